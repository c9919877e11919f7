"""The pinned image: helper logic (apt sources, content tag, build-time pip settings) and, with podman,
the image itself: it builds from a locally made base, runs plandvc with the repo's code, writes files as
the caller, and its Chromium starts and renders (a data: page, and the sites server's home page).
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "docker" / "plandvc-docker.sh"
sys.path.insert(0, str(REPO / "docker"))
import host_pip  # noqa: E402

# ---------------------------------------------------------------- helpers


def script(*args: str, env: dict[str, str] | None = None, timeout: float = 60, script_path: Path = SCRIPT):
    """Run docker/plandvc-docker.sh (or a copy of it) and return the finished process."""
    return subprocess.run(
        ["bash", str(script_path), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, **(env or {})},
    )


def run_in_image(*cmd: str, timeout: float = 300, env: dict[str, str] | None = None):
    """Run any command inside the built image with podman, the repo mounted at /repo (its code first on
    PYTHONPATH, files owned by the caller) — the same path `make docker-run` takes."""
    return script("run", *cmd, env={"DOCKER": "podman", **(env or {})}, timeout=timeout)


def png_rgb(data: bytes) -> tuple[int, int, list[bytes]]:
    """Decode an 8-bit, non-interlaced RGB/RGBA PNG (what Chromium writes) into (width, height, RGB rows)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, header = 8, b"", None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + length]
        header = body if kind == b"IHDR" else header
        idat += body if kind == b"IDAT" else b""
        pos += 12 + length
    width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", header)
    assert depth == 8 and colour in (2, 6) and interlace == 0, f"unsupported PNG {depth}/{colour}/{interlace}"
    channels = 3 if colour == 2 else 4
    stride = width * channels
    raw, rows, prev = zlib.decompress(idat), [], bytearray(stride)
    for y in range(height):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up, corner = prev[i], prev[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 255
            elif kind == 2:
                line[i] = (line[i] + up) & 255
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 255
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 255
        rows.append(bytes(b for x in range(width) for b in line[x * channels : x * channels + 3]))
        prev = line
    return width, height, rows


def centre_colour(png: bytes) -> tuple[int, int, int]:
    """The RGB colour at the centre of a screenshot."""
    width, height, rows = png_rgb(png)
    row = rows[height // 2]
    return tuple(row[(width // 2) * 3 : (width // 2) * 3 + 3])


def encode_png(width: int, height: int, rgb: tuple[int, int, int]) -> bytes:
    """A solid-colour RGB PNG (test input for the decoder)."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    raw = b"".join(b"\x00" + bytes(rgb) * width for _ in range(height))
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")
    )


# ---------------------------------------------------------------- helper logic (no podman needed)


def test_sources_reads_deb822_and_one_line_entries(tmp_path: Path) -> None:
    (tmp_path / "debian.sources").write_text(
        "Types: deb\nURIs: http://mirror.invalid/debian\nSuites: bookworm bookworm-updates\nComponents: main\n\n"
        "Types: deb\n# a comment\nURIs: http://mirror.invalid/debian-security\nSuites: bookworm-security\n"
        "Components: main contrib\n\n"
        "Types: deb\nURIs: http://off.invalid/debian\nSuites: bookworm\nComponents: main\nEnabled: no\n\n"
        "Types: deb-src\nURIs: http://src.invalid/debian\nSuites: bookworm\nComponents: main\n"
    )
    (tmp_path / "extra.list").write_text(
        "# deb http://commented.invalid/debian bookworm main\n"
        "deb [signed-by=/k.gpg] http://one.invalid/debian bookworm main\n"
        "deb http://other.invalid/debian trixie main\n"
        "deb http://nomain.invalid/debian bookworm contrib\n"
    )
    (tmp_path / "ignored.list.disabled").write_text("deb http://disabled.invalid/debian bookworm main\n")
    done = script("sources", env={"PLANDVC_APT_SOURCES": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "http://mirror.invalid/debian bookworm",
        "http://mirror.invalid/debian bookworm-updates",
        "http://mirror.invalid/debian-security bookworm-security",
        "http://one.invalid/debian bookworm",
    ]


def test_sources_without_bookworm_give_nothing(tmp_path: Path) -> None:
    (tmp_path / "sources.list").write_text("deb http://other.invalid/debian trixie main\n")
    done = script("sources", env={"PLANDVC_APT_SOURCES": str(tmp_path / "sources.list")})
    assert done.returncode == 0 and done.stdout == ""


def _tag_repo(tmp_path: Path) -> Path:
    """A copy of the files that define the image, with the script, in a throwaway repo layout."""
    repo = tmp_path / "repo"
    (repo / "docker").mkdir(parents=True)
    for name in ("Dockerfile", ".dockerignore", "requirements/requirements.lock", "pyproject.toml"):
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(REPO / name, repo / name)
    for path in (REPO / "docker").iterdir():
        if path.is_file():
            shutil.copy(path, repo / "docker" / path.name)
    return repo


def test_tag_is_the_content_of_what_defines_the_image(tmp_path: Path) -> None:
    repo = _tag_repo(tmp_path)
    copy = repo / "docker" / "plandvc-docker.sh"
    first = script("tag", script_path=copy).stdout.strip()
    assert first == script("tag").stdout.strip(), "a copy of the same files has the same tag"
    assert first.startswith("plandvc:") and len(first) == len("plandvc:") + 12
    (repo / "plandvc").mkdir()
    (repo / "plandvc" / "new.py").write_text("x = 1\n")
    (repo / "docker" / "__pycache__").mkdir()
    (repo / "docker" / "__pycache__" / "host_pip.cpython-311.pyc").write_bytes(b"\0")
    assert script("tag", script_path=copy).stdout.strip() == first, "code and caches are not image inputs"
    for name in ("Dockerfile", "requirements/requirements.lock", "pyproject.toml", "docker/containers.conf"):
        path = repo / name
        original = path.read_text()
        path.write_text(original + "\n# changed\n")
        assert script("tag", script_path=copy).stdout.strip() != first, f"{name} must change the tag"
        path.write_text(original)
    assert script("tag", script_path=copy).stdout.strip() == first


def test_unknown_engine_and_command_are_refused() -> None:
    done = script("build", env={"DOCKER": "nerdctl"})
    assert done.returncode != 0 and "DOCKER must be docker or podman, not 'nerdctl'" in done.stderr
    done = script("build", env={"DOCKER_BASE": "registry"})
    assert done.returncode != 0 and "DOCKER_BASE must be local or pinned" in done.stderr
    done = script("frobnicate")
    assert done.returncode != 0 and "usage:" in done.stderr


def test_host_pip_keeps_remote_indexes_and_the_ca_without_host_paths(tmp_path: Path) -> None:
    ca = tmp_path / "host-ca.crt"
    ca.write_text("-----BEGIN CERTIFICATE-----\nx\n-----END CERTIFICATE-----\n")
    config = host_pip.parse_config_list(
        "global.extra-index-url='file:///local/simple https://extra.invalid/simple'\n"
        "global.find-links='/local/wheels'\n"
        f"global.cert='{ca}'\n"
    )
    env = {"PIP_INDEX_URL": "https://index.invalid/simple", "PIP_TRUSTED_HOST": "index.invalid"}
    out = tmp_path / "out"
    summary = host_pip.write_host_config(out, env, config)
    conf = (out / "pip.conf").read_text()
    assert conf == (
        "[global]\nindex-url = https://index.invalid/simple\nextra-index-url = https://extra.invalid/simple\n"
        f"trusted-host = index.invalid\ncert = {host_pip.BUILD_MOUNT}/ca.pem\n"
    )
    assert (out / "ca.pem").read_bytes() == ca.read_bytes()
    assert str(tmp_path) not in conf + summary and "file://" not in conf


def test_host_pip_without_settings_uses_defaults(tmp_path: Path) -> None:
    host_pip.write_host_config(tmp_path, {}, {})
    assert (tmp_path / "pip.conf").read_text() == "[global]\n"
    assert not (tmp_path / "ca.pem").exists()


def test_host_pip_rejects_a_missing_ca_bundle(tmp_path: Path) -> None:
    with pytest.raises(host_pip.HostConfigError, match="PIP_CERT names a CA bundle that is not a file"):
        host_pip.ca_bundle({"PIP_CERT": str(tmp_path / "missing.pem")}, {})
    done = subprocess.run(
        [sys.executable, str(REPO / "docker" / "host_pip.py"), str(tmp_path / "o")],
        capture_output=True,
        text=True,
        env={**os.environ, "PIP_CERT": str(tmp_path / "missing.pem")},
    )
    assert done.returncode == 1 and "host_pip: PIP_CERT names a CA bundle" in done.stderr


def test_png_decoder_reads_colours_and_rejects_non_png() -> None:
    assert centre_colour(encode_png(9, 5, (12, 200, 34))) == (12, 200, 34)
    with pytest.raises(AssertionError, match="not a PNG"):
        png_rgb(b"GIF89a" + b"\0" * 20)


# ---------------------------------------------------------------- the image (podman)


def podman_unusable() -> str | None:
    """Why podman cannot build and run the image here, or None when it can."""
    if shutil.which("podman") is None:
        return "podman is not installed (apt-get install podman debootstrap runc)"
    if os.geteuid() != 0 and subprocess.run(["sudo", "-n", "true"], capture_output=True).returncode != 0:
        return "rootful podman needs root or passwordless sudo"
    env = {**os.environ, "CONTAINERS_CONF": str(REPO / "docker" / "containers.conf")}
    sudo = [] if os.geteuid() == 0 else ["sudo", "-n", "--preserve-env=CONTAINERS_CONF"]
    info = subprocess.run([*sudo, "podman", "info"], capture_output=True, text=True, env=env, timeout=60)
    if info.returncode != 0:
        return f"podman info fails: {info.stderr.strip().splitlines()[-1:]}"
    return None


@pytest.fixture(scope="module")
def image() -> str:
    """The image, built with podman from the debootstrapped local base (not rebuilt when that tag exists).
    Without a usable podman the image tests fail with the reason, never skip: `make docker-test` installs
    podman first, and `make test` leaves them out (-m "not docker")."""
    unusable = podman_unusable()
    if unusable is not None:
        pytest.fail(f"the image tests cannot run: {unusable}", pytrace=False)
    done = script("build", env={"DOCKER": "podman", "DOCKER_BASE": "local"}, timeout=1800)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout.strip().splitlines()[-1]


CHROMIUM_PROBE = r"""
import asyncio, base64, json, os, subprocess, sys, time, urllib.request
from playwright.async_api import async_playwright
from plandvc.browser.chromium import chromium_path

async def main(site):
    out = {}
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=chromium_path())  # the headless shell
        page = await browser.new_page(viewport={"width": 640, "height": 400})
        await page.goto("data:text/html,<body style='margin:0;background:rgb(10,180,90)'></body>")
        out["data"] = base64.b64encode(await page.screenshot()).decode()
        out["version"] = browser.version
        if site:
            server = subprocess.Popen(["plandvc", "serve", "--sites", "data/sites", "--ports", "8399"])
            try:
                deadline = time.monotonic() + 60
                while True:
                    try:
                        if urllib.request.urlopen("http://127.0.0.1:8399/_health", timeout=2).read():
                            break
                    except OSError:
                        if time.monotonic() > deadline or server.poll() is not None:
                            raise
                        await asyncio.sleep(0.1)
                await page.goto(f"http://127.0.0.1:8399/sites/{site}")
                out["site_title"] = await page.title()
                out["site"] = base64.b64encode(await page.screenshot()).decode()
            finally:
                server.terminate()
                server.wait()
        await browser.close()
    print(json.dumps(out))

asyncio.run(main(sys.argv[1] if len(sys.argv) > 1 else ""))
"""


@pytest.mark.docker
@pytest.mark.slow
@pytest.mark.timeout(2400)  # the first one builds the image (its fixture): up to 30 min
def test_plandvc_runs_inside_the_image_with_the_repos_code(image: str) -> None:
    done = run_in_image("plandvc", "--help")
    assert done.returncode == 0, done.stderr
    assert "Usage:" in done.stdout
    probe = "import os, plandvc; print(plandvc.__file__); print(os.environ['PLANDVC_IMAGE'])"
    done = run_in_image("python", "-c", probe)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["/repo/plandvc/__init__.py", image]


@pytest.mark.docker
@pytest.mark.slow
@pytest.mark.timeout(2400)  # the first one builds the image (its fixture): up to 30 min
def test_files_written_inside_belong_to_the_caller_and_failures_surface(image: str) -> None:
    scratch = REPO / ".plandvc" / f"docker-test-{os.getpid()}"
    scratch.parent.mkdir(exist_ok=True)
    try:
        done = run_in_image("sh", "-c", f'touch /repo/.plandvc/{scratch.name} && test -w "$HOME"')
        assert done.returncode == 0, done.stderr
        assert (scratch.stat().st_uid, scratch.stat().st_gid) == (os.getuid(), os.getgid())
    finally:
        scratch.unlink(missing_ok=True)
    done = run_in_image("sh", "-c", "exit 7")
    assert done.returncode == 7, "a failing command inside must fail the run"


@pytest.mark.docker
@pytest.mark.slow
@pytest.mark.timeout(2400)  # the first one builds the image (its fixture): up to 30 min
def test_chromium_inside_starts_and_renders(image: str) -> None:
    site = ""
    if (REPO / "plandvc" / "sites" / "cli.py").exists() and (
        REPO / "data" / "sites" / "site_split.json"
    ).exists():
        site = json.loads((REPO / "data" / "sites" / "site_split.json").read_text())["train"][0]
    done = run_in_image("python", "-c", CHROMIUM_PROBE, site)
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    pinned = next(
        line for line in (REPO / "Dockerfile").read_text().splitlines() if "CHROMIUM_VERSION=" in line
    )
    assert pinned.split("=", 1)[1].startswith(out["version"] + "-"), (pinned, out["version"])
    shot = base64.b64decode(out["data"])
    assert png_rgb(shot)[:2] == (640, 400)
    assert centre_colour(shot) == (10, 180, 90), "Chromium must render the page's colour"
    if site:
        site_name = json.loads((REPO / "data" / "sites" / site / "site.json").read_text())["name"]
        assert site_name in out["site_title"]
        width, height, rows = png_rgb(base64.b64decode(out["site"]))
        assert (width, height) == (640, 400) and len(set(rows)) > 10, "the site page must render content"


@pytest.mark.docker
@pytest.mark.slow
@pytest.mark.timeout(2400)  # the first one builds the image (its fixture): up to 30 min
def test_run_chains_inside_the_image_matches_the_native_run(image: str) -> None:
    """A few chains run natively and inside the image: the same bytes, but for the image id each records."""
    from plandvc import io
    from plandvc.chains.items import pool_items
    from plandvc.chains.walk import chain_specs

    work = REPO / ".plandvc" / "dockertest"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    records, _ = pool_items(REPO / "data" / "pool", REPO / "data" / "sites")
    io.write_jsonl(work / "chains.jsonl", chain_specs(records, 3, seed=5))
    rel = work.relative_to(REPO)

    def args(where: str) -> list[str]:
        return [
            "run-chains",
            "--chains",
            f"{rel}/chains.jsonl",
            "--pool",
            "data/pool",
            "--sites",
            "data/sites",
            "--out",
            f"{rel}/{where}",
            "--cache",
            f"{rel}/cache_{where}",
            "--workers",
            "1",
            "--no-progress",
        ]

    native = subprocess.run(
        [sys.executable, "-m", "plandvc", *args("native")],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert native.returncode == 0, native.stderr[-2000:]
    inside = run_in_image("plandvc", *args("image"), timeout=900)
    assert inside.returncode == 0, inside.stderr[-2000:]

    def files(d: Path) -> dict[str, bytes]:
        return {p.relative_to(d).as_posix(): p.read_bytes() for p in sorted(d.rglob("*")) if p.is_file()}

    a, b = files(work / "native"), files(work / "image")
    assert sorted(a) == sorted(b)
    differ = sorted(k for k in a if a[k] != b[k])
    assert all(k.endswith("episode.json") for k in differ), f"files that differ: {differ}"
    for k in differ:  # the one known difference: the image id in the environment
        ea, eb = io.loads(a[k]), io.loads(b[k])
        assert ea["env"]["image"] is None and eb["env"]["image"] == image
        ea["env"].pop("image"), eb["env"].pop("image")
        assert ea == eb
    shutil.rmtree(work, ignore_errors=True)
