"""run-chains with `--marks` (params.yaml `prompt.marks`) on the committed sample pool, real Chromium: with the
browser-use-0.5 dialect the planner's screenshots carry 0.5.0's marks and nothing else changes (every chain is
kept, every gate passes, the rows' text is the same, the episode only gains `marks: true`), a second marked run
gives the same bytes, and marks off is today's run. The marks' cost is printed (PNG bytes per row, with and
without)."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from run_helpers import plandvc, tree, walk_chains

from plandvc import io

ROOT = Path(__file__).resolve().parents[1]
POOL, SITES = ROOT / "data" / "pool", ROOT / "data" / "sites"

pytestmark = pytest.mark.slow


def run(work: Path, name: str, marks: str) -> dict[str, bytes]:
    out = work / name
    p = plandvc(
        "run-chains", "--chains", work / "chains.jsonl", "--pool", POOL, "--sites", SITES, "--out", out,
        "--cache", work / f"cache-{name}", "--workers", "1", "--no-progress",
        "--dialect", "browser-use-0.5", "--marks", marks, timeout=900,
    )  # fmt: skip
    assert p.returncode == 0, p.stderr[-2000:]
    assert all(r["ok"] for r in io.read_jsonl(out / "results.jsonl")), (out / "results.jsonl").read_text()
    return tree(out)


def test_marks_change_only_the_screenshots_and_are_reproducible(tmp_path: Path) -> None:
    work = walk_chains(tmp_path, 3, seed=11)
    plain, marked, again = (
        run(work, "plain", "false"),
        run(work, "marked", "true"),
        run(work, "again", "true"),
    )
    assert marked == again  # byte-reproducible
    assert set(plain) == set(marked)
    pngs = sorted(k for k in plain if k.endswith(".png"))
    assert pngs and all(plain[k] != marked[k] for k in pngs)  # every planner screenshot carries marks
    for k in plain:
        if k.endswith("episode.json"):
            ep = orjson.loads(marked[k])
            assert ep.pop("marks") is True and ep == orjson.loads(plain[k])
        elif not k.endswith(".png"):
            assert plain[k] == marked[k], k  # rows (their text), results: the same
    a, b = sum(len(plain[k]) for k in pngs), sum(len(marked[k]) for k in pngs)
    print(
        f"{len(pngs)} screenshots: {a / len(pngs):.0f} B plain, {b / len(pngs):.0f} B marked per row (+{b / a - 1:.1%})"
    )
