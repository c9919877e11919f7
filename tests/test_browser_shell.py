"""The headless shell and the one-call screenshot change no byte of the output.

Headless runs use Debian's `chromium-headless-shell`; the screenshot is one DevTools capture, encoded for
speed, with the caret hidden by a style every document carries. Here: the capture has the pixels of
Playwright's own screenshot (caret hidden, animations disabled) on pages with a focused field, and a few chains run with the full
`chromium` and with the headless shell give the same rows and PNGs; only the recorded binary differs.
"""

from __future__ import annotations

import base64
import os
import subprocess
import sys
from pathlib import Path

import pytest
from bundled import LIST_PAGES, pool_items_once

from plandvc import io
from plandvc.browser import Browser, Session
from plandvc.browser.chromium import DEFAULT_CHROMIUM, HEADLESS_SHELL
from plandvc.chains.walk import chain_specs
from plandvc.rows.png import read_png_info

ROOT = Path(__file__).resolve().parents[1]
POOL, SITES = ROOT / "data" / "pool", ROOT / "data" / "sites"
BOTH = pytest.mark.usefixtures("both_chromiums")


@pytest.fixture
def both_chromiums() -> None:
    """Both Debian binaries (make setup installs them): a test that compares them fails when one is absent."""
    missing = [str(p) for p in (DEFAULT_CHROMIUM, HEADLESS_SHELL) if not os.access(p, os.X_OK)]
    if missing:
        pytest.fail(f"not installed: {', '.join(missing)} (make chromium installs both)", pytrace=False)


# how many RGBA bytes of two PNGs differ (-1: not the same size), decoded by the page's own image decoder
PIXEL_DIFF_JS = """async ([a, b]) => {
  const pixels = async (b64) => {
    const bitmap = await createImageBitmap(await (await fetch('data:image/png;base64,' + b64)).blob());
    const ctx = new OffscreenCanvas(bitmap.width, bitmap.height).getContext('2d');
    ctx.drawImage(bitmap, 0, 0);
    return ctx.getImageData(0, 0, bitmap.width, bitmap.height).data;
  };
  const [x, y] = [await pixels(a), await pixels(b)];
  if (x.length !== y.length) return -1;
  let diff = 0;
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) diff++;
  return diff;
}"""


async def pixel_diff(session: Session, a: bytes, b: bytes) -> int:
    return await session.page.evaluate(
        PIXEL_DIFF_JS, [base64.b64encode(a).decode(), base64.b64encode(b).decode()]
    )


@pytest.mark.asyncio(loop_scope="module")
async def test_the_capture_has_playwrights_pixels_with_a_focused_field(session: Session) -> None:
    compared, shots = 0, []
    for site, page in LIST_PAGES[:4]:
        await session.goto(f"/sites/{site}/{page}")
        snap = await session.snapshot()
        field = next(
            e for e in snap.elements if e.tag == "input" and e.attrs.get("type") in (None, "text", "search")
        )
        await session.input(field.index, "ab")  # focused: its caret is on
        assert await session.page.evaluate("() => document.activeElement.tagName") == "INPUT"
        ours = await session.screenshot()
        playwrights = await session.page.screenshot(type="png", animations="disabled", caret="hide")
        assert ours[:8] == b"\x89PNG\r\n\x1a\n" and ours != playwrights  # encoded for speed: other bytes
        assert await session.screenshot() == ours  # deterministic
        assert await pixel_diff(session, ours, playwrights) == 0  # the same pixels
        assert read_png_info(ours)[:2] == (1280, 800)  # and filter-rows' decoder accepts the file
        shots.append(ours)
        compared += 1
    assert compared == 4
    assert await pixel_diff(session, shots[0], shots[1]) > 0  # the comparison sees a different page


@pytest.mark.asyncio(loop_scope="module")
async def test_headless_runs_default_to_the_headless_shell(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PLANDVC_CHROMIUM", raising=False)
    assert Browser().binary == "chromium-headless-shell" and Browser(headless=False).binary == "chromium"
    monkeypatch.setenv("PLANDVC_CHROMIUM", DEFAULT_CHROMIUM)
    assert Browser().binary == "chromium"  # the override wins


def run(chains: Path, out: Path, chromium: str | None) -> None:
    env = {k: v for k, v in os.environ.items() if k != "PLANDVC_CHROMIUM"}
    if chromium:
        env["PLANDVC_CHROMIUM"] = chromium
    args = [
        "--chains",
        chains,
        "--pool",
        POOL,
        "--sites",
        SITES,
        "--out",
        out,
        "--cache",
        out.with_name(out.name + "-cache"),
    ]
    p = subprocess.run(
        [sys.executable, "-m", "plandvc", "run-chains", *map(str, args), "--workers", "1", "--no-progress"],
        capture_output=True, text=True, cwd=ROOT, env=env, timeout=600,
    )  # fmt: skip
    assert p.returncode == 0, p.stderr[-2000:]


@BOTH
@pytest.mark.slow
def test_full_chromium_and_the_headless_shell_give_the_same_rows_and_pngs(tmp_path: Path) -> None:
    records, _ = pool_items_once(POOL, SITES)
    chains = tmp_path / "chains.jsonl"
    io.write_jsonl(chains, chain_specs(records, 3, seed=5))
    run(chains, tmp_path / "full", DEFAULT_CHROMIUM)
    run(chains, tmp_path / "shell", None)  # the default
    files = {}
    for name in ("full", "shell"):
        d = tmp_path / name
        files[name] = {
            p.relative_to(d).as_posix(): p.read_bytes() for p in sorted(d.rglob("*")) if p.is_file()
        }
    assert files["full"].keys() == files["shell"].keys()
    pngs = [k for k in files["full"] if k.endswith(".png")]
    kept = [k for k in pngs if not k.startswith("_failed/")]  # a failed chain's files are compared too
    assert len(kept) >= 6, sorted(files["full"])
    for k, full in files["full"].items():
        if not k.endswith("episode.json"):
            assert full == files["shell"][k], k
            continue
        a, b = io.read_json(tmp_path / "full" / k), io.read_json(tmp_path / "shell" / k)
        assert (a["env"]["chromium_binary"], b["env"]["chromium_binary"]) == (
            "chromium",
            "chromium-headless-shell",
        )
        assert a["env"]["chromium"] == b["env"]["chromium"]  # the same version
        a["env"].pop("chromium_binary"), b["env"].pop("chromium_binary")
        assert a == b, k
