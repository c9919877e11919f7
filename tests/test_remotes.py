"""Dataset versions through real DVC remotes on loopback: an S3 server (moto) and an SFTP server (asyncssh),
both in this process on ephemeral ports. A tiny project (the real filter_rows and export stages over a few
chains in run-chains' format) is pushed with `make push`; a fresh clone's `make pull` gets every output byte
for byte and `dvc status -c` is clean. The trainer's path: a bare git repo plays the public repo, tags
rows-v1 and rows-v2 with different rows, and the README's commands (`dvc get`, `dvc.api`, `datasets`) run in
an empty folder. Then what a user hits: a closed port, a refused key, a missing bucket, a push killed with
SIGKILL and rerun, a disk that fills during a pull: each is one line, and nothing half-written is left."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import asyncssh
import pytest
import yaml
from raw_chains import make_chain, write_results
from remote_servers import S3Store, SFTPStore, s3_store, sftp_store

ROOT = Path(__file__).resolve().parents[1]
VENV = Path(sys.executable).parent.parent
COPY = [
    "params.yaml", "Makefile", "Dockerfile", "requirements/requirements.lock", "pyproject.toml", ".dvcignore",
    ".gitignore", "plandvc", "data/sites", "data/pool",
]  # fmt: skip
FIXTURE_WORLD = (  # the copied hand-written sites and pool stand in for the generated world
    ("\nsites: data/world", "\nsites: data/sites"),
    ("\nversion: v4", "\nversion: v1"),  # the README's trainer lines name v1's folder
    ("  dir: data/world-pool", "  dir: data/pool"),
    ("  ids: data/world-pool/pool_ids.txt", "  ids: data/pool/pool_ids.txt"),
)
STAGES = ("filter_rows", "export")  # the real stages; data/raw (run-chains' format) is `dvc add`ed
OUTPUTS = ("data/raw", "data/planner_rows/v1", "data/exports/v1")
README_URL = "https://example.org/plandvc.git"
SECRET_KEYS = ("access_key_id", "secret_access_key", "session_token", "password", "passphrase", "account_key")

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]


# ---------------------------------------------------------------- helpers


def env_for(home: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of every command: the venv's tools first, a HOME of the test's own (DVC's global
    config, ~/.ssh/known_hosts, the datasets cache), no AWS settings inherited from the caller, and no make
    of the caller's (under `make test` a nested make would name itself `make[1]` and take its flags): the
    commands run as from a user's shell."""
    make_vars = ("MAKELEVEL", "MAKEFLAGS", "MFLAGS", "MAKEOVERRIDES")
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_") and k not in make_vars}
    env |= {
        "PATH": f"{VENV / 'bin'}:{env['PATH']}",
        "HOME": str(home),
        "HF_HOME": str(home / "hf"),
        "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org",
        "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.org",
        "DVC_NO_ANALYTICS": "1",
    }  # fmt: skip
    return env | (extra or {})


def run(cwd: Path, *cmd: str, env: dict[str, str], check: bool = True, timeout: float = 300):
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=env, timeout=timeout)
    if check and p.returncode != 0:
        raise AssertionError(
            f"{' '.join(cmd)} failed ({p.returncode}):\n{p.stdout[-2000:]}\n{p.stderr[-3000:]}"
        )
    return p


def make(repo: Path, target: str, env: dict[str, str], check: bool = True, **vars_: str):
    """`make push` / `make pull` as a user runs them; the venv is the shared one, already set up, so its
    stamp is not remade (`-o`)."""
    args = [f"VENV={VENV}", *(f"{k}={v}" for k, v in vars_.items())]
    return run(
        repo,
        "make",
        "--no-print-directory",
        "-o",
        f"{VENV}/.plandvc-setup",
        target,
        *args,
        env=env,
        check=check,
    )


def outputs(repo: Path) -> dict[str, str]:
    """sha256 of every file of the pipeline's outputs, by path."""
    return {
        p.relative_to(repo).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for out in OUTPUTS
        for p in sorted((repo / out).rglob("*"))
        if p.is_file() and p.name != ".gitignore"
    }


def size(repo: Path, files: dict[str, str]) -> int:
    return sum((repo / f).stat().st_size for f in files)


def last_line(p: subprocess.CompletedProcess[str]) -> str:
    """The last line the command wrote to stderr that is not make's own `make: *** ... Error` line."""
    lines = [ln for ln in p.stderr.splitlines() if ln.strip() and not ln.startswith("make: ***")]
    return lines[-1] if lines else ""


def free_port() -> int:
    """A loopback port nothing listens on (bound, then closed)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def add_chains(repo: Path, chains: list[tuple[str, list[str], int]]) -> None:
    raw = repo / "data" / "raw"
    for site, parts, shade in chains:
        make_chain(
            raw, site, parts, answer="Ada Byrne" if "c" in parts[-1] else None, shade=shade, size=(1280, 800)
        )
    (raw / "results.jsonl").unlink(missing_ok=True)
    write_results(raw)


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny project: the repo's code, sites, pool and Makefile, a dvc.yaml of the real filter_rows and
    export stages, three chains in run-chains' format as data/raw; reproduced and committed."""
    repo = tmp_path_factory.mktemp("template") / "project"
    home = tmp_path_factory.mktemp("home")
    for name in COPY:
        src, dst = ROOT / name, repo / name
        dst.parent.mkdir(parents=True, exist_ok=True)
        if src.is_dir():
            shutil.copytree(src, dst, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(src, dst)
    pipeline = yaml.safe_load((ROOT / "dvc.yaml").read_text())
    pipeline["stages"] = {k: v for k, v in pipeline["stages"].items() if k in STAGES}
    (repo / "dvc.yaml").write_text(yaml.safe_dump(pipeline, sort_keys=False))
    params = repo / "params.yaml"
    text = params.read_text().replace("val_share: 0.1", "val_share: 0.4", 1)
    for old, new in FIXTURE_WORLD:
        assert old in text, f"params.yaml no longer says {old!r}"
        text = text.replace(old, new, 1)
    params.write_text(text)
    add_chains(repo, [("shop", ["a1", "b1"], 0), ("hotel", ["a2", "c1"], 3), ("clinic", ["d1", "e1"], 5)])
    env = env_for(home)
    run(repo, "git", "init", "-q", "-b", "main", env=env)
    run(repo, "dvc", "init", "-q", env=env)
    run(repo, "dvc", "config", "core.analytics", "false", env=env)
    run(repo, "dvc", "add", "-q", "data/raw", env=env)
    run(repo, "dvc", "repro", env=env)
    run(repo, "git", "add", "-A", env=env)
    run(repo, "git", "commit", "-qm", "rows v1", env=env)
    return repo


@pytest.fixture
def project(template: Path, tmp_path: Path) -> tuple[Path, Path]:
    """A working copy of the template (its DVC cache included) and a bare `origin` it pushes to."""
    work, origin = tmp_path / "work", tmp_path / "origin.git"
    shutil.copytree(template, work, symlinks=True)
    env = env_for(tmp_path)
    run(tmp_path, "git", "clone", "-q", "--bare", str(work), str(origin), env=env)
    run(work, "git", "remote", "add", "origin", str(origin), env=env)
    return work, origin


@pytest.fixture(scope="module")
def s3() -> Iterator[S3Store]:
    with s3_store() as store:
        yield store


@pytest.fixture(scope="module")
def sftp(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SFTPStore]:
    with sftp_store(tmp_path_factory.mktemp("sftp")) as store:
        yield store


def home_with(tmp_path: Path, sftp: SFTPStore | None = None) -> Path:
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True, exist_ok=True)
    if sftp is not None:
        (home / ".ssh" / "known_hosts").write_text(sftp.known_hosts)
    return home


def store_config(repo: Path, level: str, **settings: str) -> None:
    """Write remote 'store's settings at one level of the project's DVC config, as `dvc remote add -d` and
    `dvc remote modify [--local]` do (without a DVC process per setting): `config` (committed, with
    core.remote) or `config.local` (git-ignored)."""
    section = "['remote \"store\"']\n" + "".join(f"    {k} = {v}\n" for k, v in settings.items())
    core = "[core]\n    analytics = false\n    remote = store\n" if level == "config" else ""
    (repo / ".dvc" / level).write_text(core + section)


def s3_env(
    tmp_path: Path, work: Path, s3: S3Store, prefix: str, with_dvc: bool = False
) -> tuple[Path, dict[str, str]]:
    """A test's HOME and environment on the S3 remote, the project set up to use it (`use_s3`)."""
    home = home_with(tmp_path)
    env = env_for(home)
    use_s3(work, s3, env, prefix, with_dvc)
    return home, env


def use_s3(work: Path, s3: S3Store, env: dict[str, str], prefix: str, with_dvc: bool = False) -> None:
    """The S3 remote as a project sets it up: url and endpoint in .dvc/config (committed, pushed to origin),
    the key in .dvc/config.local (never committed); with_dvc: by `dvc remote` commands, as the docs say."""
    url = f"s3://{s3.bucket}/{prefix}"
    if with_dvc:
        run(work, "dvc", "remote", "add", "-f", "-d", "store", url, env=env)
        run(work, "dvc", "remote", "modify", "store", "endpointurl", s3.endpoint, env=env)
        run(work, "dvc", "remote", "modify", "--local", "store", "access_key_id", s3.key_id, env=env)
        run(work, "dvc", "remote", "modify", "--local", "store", "secret_access_key", s3.secret, env=env)
    else:
        store_config(work, "config", url=url, endpointurl=s3.endpoint)
        store_config(work, "config.local", access_key_id=s3.key_id, secret_access_key=s3.secret)
    run(work, "git", "add", ".dvc/config", env=env)
    run(work, "git", "commit", "-qm", "the S3 remote", env=env)
    run(work, "git", "push", "-q", "origin", "HEAD", env=env)


def fresh_clone(origin: Path, where: Path, env: dict[str, str]) -> Path:
    run(where.parent, "git", "clone", "-q", str(origin), str(where), env=env)
    return where


def report(name: str, files: dict[str, str], nbytes: int, push: float, pull: float) -> None:
    print(
        f"\n{name}: {len(files)} files, {nbytes} bytes: make push {push:.1f} s, fresh-clone make pull {pull:.1f} s"
    )


def round_trip(
    work: Path,
    origin: Path,
    tmp_path: Path,
    env_push: dict[str, str],
    env_pull: dict[str, str],
    setup_clone=None,
):
    """make push, then a fresh clone's make pull: every output byte for byte, `dvc status -c` clean."""
    want = outputs(work)
    t0 = time.monotonic()
    pushed = make(work, "push", env_push)
    t_push = time.monotonic() - t0
    assert re.search(r"\d+ files? pushed", pushed.stdout), pushed.stdout
    clone = fresh_clone(origin, tmp_path / "clone", env_pull)
    assert not any((clone / out).exists() and any((clone / out).rglob("*.png")) for out in OUTPUTS)
    if setup_clone is not None:
        setup_clone(clone)
    t0 = time.monotonic()
    make(clone, "pull", env_pull)
    t_pull = time.monotonic() - t0
    assert outputs(clone) == want
    status = run(clone, "dvc", "status", "-c", env=env_pull)
    assert "Cache and remote 'store' are in sync." in status.stdout, status.stdout
    return want, t_push, t_pull


# ---------------------------------------------------------------- S3


def test_s3_round_trip_with_credentials_outside_the_committed_config(
    project, s3: S3Store, tmp_path: Path
) -> None:
    work, origin = project
    home, env = s3_env(tmp_path, work, s3, "roundtrip", with_dvc=True)
    config = (work / ".dvc" / "config").read_text()
    assert "endpointurl" in config and f"s3://{s3.bucket}/roundtrip" in config
    assert committed_secrets(work, env) == [], "the key must never be in the committed .dvc/config"
    assert s3.secret in (work / ".dvc" / "config.local").read_text()
    assert run(work, "git", "check-ignore", ".dvc/config.local", env=env).returncode == 0

    # the fresh clone has no config.local: the trainer's key comes from the environment
    want, t_push, t_pull = round_trip(work, origin, tmp_path, env, env_for(home, s3.env))
    stored = [k for k in s3.objects() if k.startswith("roundtrip/")]
    assert len(stored) >= len(set(want.values())), "every distinct file is one object on the remote"
    report("S3", want, size(work, want), t_push, t_pull)


def committed_secrets(repo: Path, env: dict[str, str]) -> list[str]:
    """Secret-looking keys in the committed .dvc/config (the version git has at HEAD)."""
    text = run(repo, "git", "show", "HEAD:.dvc/config", env=env).stdout
    return [k for k in SECRET_KEYS if re.search(rf"^\s*{k}\s*=", text, re.M)]


def test_a_plain_pull_asks_only_for_what_a_plain_push_published(project, s3: S3Store, tmp_path: Path) -> None:
    """Since the applications' stages came in, a fresh clone's `make pull` fetched every file and exited 1
    ("Checkout failed ... data/apps/*/held"): apps/dvc.lock names outputs `make gen` never makes, so `make
    push` could not publish them. Here the project has such a pipeline (its lock naming an output no cache
    holds, as a clone's after `make gen`): the push publishes the version, the clone's pull gets it, exit 0."""
    work, origin = project
    home, env = s3_env(tmp_path, work, s3, "apps-pipeline")
    apps = work / "apps"
    apps.mkdir()
    out = "data/apps/trac/held"
    stage = {"wdir": "..", "cmd": "plandvc eval-apps --app trac", "outs": [out]}
    (apps / "dvc.yaml").write_text(yaml.safe_dump({"stages": {"held_apps": stage}}, sort_keys=False))
    never_made = {"path": out, "hash": "md5", "md5": "0" * 32 + ".dir", "size": 1, "nfiles": 1}
    lock = {"schema": "2.0", "stages": {"held_apps": {"cmd": stage["cmd"], "outs": [never_made]}}}
    (apps / "dvc.lock").write_text(yaml.safe_dump(lock, sort_keys=False))
    run(work, "git", "add", "apps", env=env)
    run(work, "git", "commit", "-qm", "the applications' pipeline", env=env)
    run(work, "git", "push", "-q", "origin", "HEAD", env=env)
    trainer = env_for(home, s3.env)  # the clone has no config.local: the key comes from the environment
    want, _, _ = round_trip(work, origin, tmp_path, env, trainer)  # make pull exits 0, every output the same
    assert want and not (tmp_path / "clone" / out).exists()
    clone = tmp_path / "clone"
    named = run(clone, sys.executable, "-m", "plandvc", "pull", "apps/dvc.yaml", env=trainer, check=False)
    assert named.returncode == 1 and last_line(named).startswith("Error: ")  # named, it is asked for


def test_a_key_written_into_the_committed_config_is_refused(project, s3: S3Store, tmp_path: Path) -> None:
    """`make push` refuses to run while .dvc/config holds a secret (a commit would publish it); the check
    sees what `dvc remote modify` without --local writes."""
    work, _ = project
    env = env_for(home_with(tmp_path))
    use_s3(work, s3, env, "leak")
    run(work, "dvc", "remote", "modify", "store", "secret_access_key", s3.secret, env=env)
    done = make(work, "push", env, check=False)
    assert done.returncode != 0
    assert last_line(done) == (
        "Error: .dvc/config holds secret_access_key for remote 'store': move it to .dvc/config.local with "
        "`dvc remote modify --local` (or the environment) and remove it from .dvc/config"
    )
    assert not [k for k in s3.objects() if k.startswith("leak/")], "nothing was pushed"


# ---------------------------------------------------------------- SSH


def use_ssh(work: Path, sftp: SFTPStore, env: dict[str, str], key: Path) -> None:
    """The SSH remote: its url in .dvc/config (committed, pushed to origin), the key file in config.local."""
    url = f"ssh://trainer@127.0.0.1:{sftp.port}/store"
    store_config(work, "config", url=url)
    store_config(work, "config.local", keyfile=str(key))
    run(work, "git", "commit", "-qam", "the SSH remote", env=env)
    run(work, "git", "push", "-q", "origin", "HEAD", env=env)


def test_ssh_round_trip(project, sftp: SFTPStore, tmp_path: Path) -> None:
    work, origin = project
    home = home_with(tmp_path, sftp)
    env = env_for(home)
    use_ssh(work, sftp, env, sftp.client_key)

    def key(clone: Path) -> None:
        store_config(clone, "config.local", keyfile=str(sftp.client_key))

    want, t_push, t_pull = round_trip(work, origin, tmp_path, env, env, setup_clone=key)
    stored = [p for p in (sftp.root / "store").rglob("*") if p.is_file()]
    assert len(stored) >= len(set(want.values())) and not [p for p in stored if ".tmp" in p.name]
    report("SSH", want, size(work, want), t_push, t_pull)


def test_ssh_wrong_key_and_closed_port_are_one_line(project, sftp: SFTPStore, tmp_path: Path) -> None:
    work, _ = project
    env = env_for(home_with(tmp_path, sftp))
    other = tmp_path / "other_key"
    asyncssh.generate_private_key("ssh-ed25519").write_private_key(other)
    other.chmod(0o600)
    use_ssh(work, sftp, env, other)
    done = make(work, "push", env, check=False)
    assert done.returncode != 0
    assert last_line(done) == (
        f"Error: remote 'store' (ssh://trainer@127.0.0.1:{sftp.port}/store) refused the login: set the key with "
        "`dvc remote modify --local NAME keyfile PATH` (docs/REMOTES.md)"
    )
    closed = free_port()
    store_config(work, "config", url=f"ssh://trainer@127.0.0.1:{closed}/store")
    done = make(work, "push", env, check=False)
    assert done.returncode != 0
    assert last_line(done) == (
        f"Error: remote 'store' (ssh://trainer@127.0.0.1:{closed}/store) is unreachable: "
        f"cannot connect to 127.0.0.1:{closed} (Connection refused)"
    )


# ---------------------------------------------------------------- the trainer's path


def readme_trainer() -> tuple[list[str], str]:
    """The trainer's commands in the README: the lines of its second bash block and its python block."""
    text = (ROOT / "README.md").read_text()
    section = text.split("## Getting a dataset version (trainers)", 1)[1].split("\n## ", 1)[0]
    bash = re.findall(r"```bash\n(.*?)```", section, re.S)
    python = re.findall(r"```python\n(.*?)```", section, re.S)
    assert len(bash) == 2 and len(python) == 1, "the section has the project's and the trainer's blocks"
    return [ln for ln in bash[1].splitlines() if ln.strip()], python[0]


def tag_version(work: Path, tag: str, env: dict[str, str]) -> dict[str, str]:
    """make push, then tag the commit and push it to origin; the sha256 of the tag's hf export by path."""
    make(work, "push", env)
    run(work, "git", "tag", tag, env=env)
    run(work, "git", "push", "-q", "origin", "HEAD", tag, env=env)
    hf = work / "data" / "exports" / "v1" / "hf"
    return {p.relative_to(hf).as_posix(): sha(p) for p in sorted(hf.rglob("*")) if p.is_file()}


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_trainer_gets_each_tag_from_the_remote_as_the_readme_says(
    project, s3: S3Store, tmp_path: Path
) -> None:
    """A bare repo plays the public repo: rows-v1 (3 chains) and rows-v2 (5 chains) are pushed to S3. In an
    empty folder the README's `dvc get` and python lines load rows-v1 with `datasets` (as many rows as the
    manifest, no warning); the example script does the same for rows-v2: each tag gets its own bytes."""
    work, origin = project
    home, env = s3_env(tmp_path, work, s3, "trainer")
    v1 = tag_version(work, "rows-v1", env)
    add_chains(work, [("library", ["a3", "c2"], 7), ("fleet", ["b2", "e2"], 9)])
    run(work, "dvc", "add", "-q", "data/raw", env=env)
    run(work, "dvc", "repro", env=env)
    run(work, "git", "add", "-A", env=env)
    run(work, "git", "commit", "-qm", "rows v2: two more chains", env=env)
    v2 = tag_version(work, "rows-v2", env)
    assert v1 != v2

    trainer_env = env_for(home, s3.env)
    bash, python = readme_trainer()
    setup = [ln for ln in bash if ln.startswith(("pip install", "export "))]
    assert setup == [
        "pip install dvc dvc-s3 datasets",
        "export AWS_ACCESS_KEY_ID=AKIA... AWS_SECRET_ACCESS_KEY=...",
    ]
    commands = [ln for ln in bash if ln not in setup]
    assert commands == [f"dvc get {README_URL} data/exports/v1/hf --rev rows-v1"]
    empty = tmp_path / "trainer"
    empty.mkdir()
    for line in commands:  # as written, the repo's URL being the bare repo here
        run(empty, "bash", "-c", line.replace(README_URL, str(origin)), env=trainer_env)
    got = {
        p.relative_to(empty / "hf").as_posix(): sha(p)
        for p in sorted((empty / "hf").rglob("*"))
        if p.is_file()
    }
    assert got == v1
    done = run(empty, sys.executable, "-c", python.replace(README_URL, str(origin)), env=trainer_env)
    assert "malformed" not in done.stderr and "Ignoring" not in done.stderr, done.stderr

    example = (ROOT / "examples" / "train_from_remote.py").read_text()
    body = [
        ln.strip()
        for ln in python.splitlines()
        if ln.strip() and not ln.startswith(("import", "from", "REPO, REV ="))
    ]
    assert all(f"    {ln}\n" in example for ln in body), "the example runs the README's python lines"
    for tag, want in (("rows-v2", v2),):  # rows-v1 ran above as the README's lines
        folder = tmp_path / f"example-{tag}"
        folder.mkdir()
        t0 = time.monotonic()
        done = run(
            folder,
            sys.executable,
            str(ROOT / "examples" / "train_from_remote.py"),
            str(origin),
            tag,
            env=trainer_env,
        )
        got = {
            p.relative_to(folder / "hf").as_posix(): sha(p)
            for p in sorted((folder / "hf").rglob("*"))
            if p.is_file()
        }
        assert got == want, f"{tag}: the bytes of that tag"
        assert "malformed" not in done.stderr and "Ignoring" not in done.stderr, done.stderr
        print(
            f"\n$ python examples/train_from_remote.py <repo> {tag}  ({time.monotonic() - t0:.1f} s)\n{done.stdout}"
        )


# ---------------------------------------------------------------- what a user hits


def one_error_line(p: subprocess.CompletedProcess[str]) -> str:
    """The command failed and said exactly one line (besides make's own `make: ***` line)."""
    assert p.returncode != 0, p.stdout
    lines = [ln for ln in p.stderr.splitlines() if ln.strip() and not ln.startswith("make: ***")]
    assert len(lines) == 1, p.stderr
    return lines[0]


def table(command: str, p: subprocess.CompletedProcess[str], seconds: float) -> None:
    print(f"\n| {command} | {p.returncode} | {one_error_line(p)} | {seconds:.1f} s |")


def timed_make(repo: Path, target: str, env: dict[str, str], **vars_: str):
    t0 = time.monotonic()
    p = make(repo, target, env, check=False, **vars_)
    return p, time.monotonic() - t0


def test_s3_unreachable_refused_and_missing_bucket_are_one_line_each(
    project, s3: S3Store, tmp_path: Path
) -> None:
    work, origin = project
    home, env = s3_env(tmp_path, work, s3, "failures")
    make(work, "push", env)
    clone = fresh_clone(origin, tmp_path / "clone", env)
    good = env_for(home, s3.env)

    closed = free_port()
    store_config(clone, "config.local", endpointurl=f"http://127.0.0.1:{closed}")
    p, seconds = timed_make(clone, "pull", good)
    assert one_error_line(p) == (
        f"Error: remote 'store' (http://127.0.0.1:{closed}) is unreachable: "
        f"cannot connect to 127.0.0.1:{closed} (Connection refused)"
    )
    assert seconds < 30, "a closed port is said at once, not after DVC's retries"
    table("make pull (endpoint's port closed)", p, seconds)
    (clone / ".dvc" / "config.local").unlink()

    wrong = env_for(home, {**s3.env, "AWS_SECRET_ACCESS_KEY": "not-the-secret"})
    p, seconds = timed_make(clone, "pull", wrong)
    refused = (
        "Error: remote 'store' refused the credentials (403 Forbidden): set the key with `dvc remote modify "
        "--local` or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY (docs/REMOTES.md)"
    )
    assert one_error_line(p) == refused
    table("make pull (wrong secret key)", p, seconds)
    store_config(work, "config.local", access_key_id="AKIANOTAKEY", secret_access_key=s3.secret)
    p, seconds = timed_make(work, "push", env)
    assert one_error_line(p) == refused
    table("make push (unknown access key)", p, seconds)

    store_config(clone, "config.local", url="s3://no-such-bucket/plandvc")
    p, seconds = timed_make(clone, "pull", good)
    assert one_error_line(p) == (
        f"Error: remote 'store': bucket 'no-such-bucket' does not exist at {s3.endpoint}; "
        "create it or fix the remote's url"
    )
    table("make pull (bucket missing)", p, seconds)
    assert not [
        p for out in OUTPUTS for p in (clone / out).rglob("*") if p.is_file() and p.name != ".gitignore"
    ], "a failed pull writes no output"
    (clone / ".dvc" / "config.local").unlink()
    make(clone, "pull", good)
    assert outputs(clone) == outputs(work)


def test_s3_push_killed_then_rerun_ends_complete(project, s3: S3Store, tmp_path: Path) -> None:
    """`make push` (one transfer at a time) is killed with SIGKILL, process group and all, once some of
    the objects are on the remote; the rerun pushes the rest and a fresh clone pulls every byte."""
    work, origin = project
    home, env = s3_env(tmp_path, work, s3, "killed")
    want = outputs(work)
    cmd = ["make", "--no-print-directory", "-o", f"{VENV}/.plandvc-setup", "push", f"VENV={VENV}", "JOBS=1"]
    proc = subprocess.Popen(
        cmd, cwd=work, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True
    )
    try:
        deadline = time.monotonic() + 120
        while not [k for k in s3.objects() if k.startswith("killed/files/")]:
            assert proc.poll() is None, "the push ended before any object landed"
            assert time.monotonic() < deadline
            time.sleep(0.01)
        os.killpg(proc.pid, signal.SIGKILL)
        assert proc.wait(30) == -signal.SIGKILL
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(30)
    partial = [k for k in s3.objects() if k.startswith("killed/")]
    status = run(work, "dvc", "status", "-c", env=env, check=False)
    assert "missing" in status.stdout or "new" in status.stdout, status.stdout
    rerun = make(work, "push", env)
    pushed = re.search(r"(\d+) files? pushed", rerun.stdout)
    assert pushed, rerun.stdout
    complete = [k for k in s3.objects() if k.startswith("killed/")]
    assert set(partial) < set(complete)
    print(
        f"\n| make push, SIGKILL after {len(partial)} objects, then make push | -9, then 0 | {pushed.group(0)} |"
    )
    clone = fresh_clone(origin, tmp_path / "clone", env)
    make(clone, "pull", env_for(home, s3.env))
    assert outputs(clone) == want
    assert (
        "Cache and remote 'store' are in sync."
        in run(clone, "dvc", "status", "-c", env=env_for(home, s3.env)).stdout
    )


def test_a_pull_onto_a_full_disk_is_one_line_and_leaves_nothing_half_written(
    project, s3: S3Store, tmp_path: Path
) -> None:
    """The clone's DVC cache is a 64 KiB tmpfs (a mount namespace of the test's own, no root needed): the pull
    fails with one line, every output file it left is whole, and a pull with room restores every byte."""
    work, origin = project
    home, env = s3_env(tmp_path, work, s3, "diskfull")
    make(work, "push", env)
    want = outputs(work)
    clone = fresh_clone(origin, tmp_path / "clone", env)
    (clone / ".dvc" / "cache").mkdir(exist_ok=True)
    good = env_for(home, s3.env)
    make_pull = f"exec make --no-print-directory -o {VENV}/.plandvc-setup pull VENV={VENV}"
    t0 = time.monotonic()
    p = run(
        clone, "unshare", "--mount", "--map-root-user", "sh", "-c",
        f"mount -t tmpfs -o size=64k tmpfs .dvc/cache && {make_pull}", env=good, check=False,
    )  # fmt: skip
    line = one_error_line(p)
    assert re.fullmatch(
        r"Error: pull: no space left on device on this machine \(\d+ files not pulled\); free space and rerun "
        r"`make pull`",
        line,
    ), line
    table("make pull (cache on a full 64 KiB disk)", p, time.monotonic() - t0)
    left = {
        q.relative_to(clone).as_posix(): sha(q)
        for out in OUTPUTS
        for q in (clone / out).rglob("*")
        if q.is_file() and q.name != ".gitignore"
    }
    assert all(want[f] == h for f, h in left.items()), "a file the failed pull left is whole"
    assert len(left) < len(want)
    make(clone, "pull", good)
    assert outputs(clone) == want
