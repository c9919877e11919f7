"""The world's pool is committed: `make gen` on a fresh clone finds `make_pool` up to date and starts at
`pool_items`. These tests hold the committed folder to exactly the output `dvc.lock` records for `make_pool`
(DVC's own directory hash, file count and bytes: a half-written or hand-edited pool fails), to git rather than
DVC's cache (`cache: false` in dvc.yaml), and to the repository's budget for pool data in git."""

from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
WORLD_POOL = "data/world-pool"
POOL_DATA_BUDGET = 15 * 2**20  # bytes of pool data the repository keeps in git (data/pool and the world's)


def tracked(folder: str) -> list[str]:
    """The files git tracks under `folder` (paths relative to the repo), sorted."""
    out = subprocess.run(
        ["git", "ls-files", "-z", "--", folder], cwd=ROOT, capture_output=True, check=True
    ).stdout.decode()
    return sorted(p for p in out.split("\0") if p)


def dvc_dir_md5(folder: Path, files: list[Path]) -> str:
    """DVC's hash of a directory output: md5 of its sorted {md5, relpath} list as JSON (what dvc.lock says)."""
    entries = sorted(
        (
            {"md5": hashlib.md5(p.read_bytes()).hexdigest(), "relpath": p.relative_to(folder).as_posix()}
            for p in files
        ),
        key=lambda e: e["relpath"],
    )
    return hashlib.md5(json.dumps(entries, sort_keys=True).encode()).hexdigest() + ".dir"


def locked_out(stage: str, path: str) -> dict[str, object]:
    lock = yaml.safe_load((ROOT / "dvc.lock").read_text())
    (out,) = [o for o in lock["stages"][stage]["outs"] if o["path"] == path]
    return out


def test_the_committed_world_pool_is_make_pools_locked_output() -> None:
    files = tracked(WORLD_POOL)
    assert files, f"{WORLD_POOL} is not in git"
    paths = [ROOT / f for f in files]
    on_disk = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / WORLD_POOL).rglob("*") if p.is_file())
    assert on_disk == files, "the checkout's world pool holds files git does not track (or lacks some)"
    out = locked_out("make_pool", WORLD_POOL)
    assert out["nfiles"] == len(files)
    assert out["size"] == sum(p.stat().st_size for p in paths)
    assert out["md5"] == dvc_dir_md5(ROOT / WORLD_POOL, paths)


def test_the_check_fails_on_a_pool_that_is_not_the_locked_one(tmp_path: Path) -> None:
    """The hash above is DVC's: one changed byte, or one file missing, gives another."""
    src = ROOT / WORLD_POOL / "kept.jsonl"
    a = tmp_path / "a"
    a.mkdir()
    (a / "kept.jsonl").write_bytes(src.read_bytes())
    (a / "pool_ids.txt").write_bytes((ROOT / WORLD_POOL / "pool_ids.txt").read_bytes())
    whole = dvc_dir_md5(a, sorted(a.iterdir()))
    (a / "kept.jsonl").write_bytes(src.read_bytes()[:-1])
    assert dvc_dir_md5(a, sorted(a.iterdir())) != whole
    assert dvc_dir_md5(a, [a / "pool_ids.txt"]) != whole


def test_make_pools_output_is_kept_by_git_not_dvcs_cache() -> None:
    stage = yaml.safe_load((ROOT / "dvc.yaml").read_text())["stages"]["make_pool"]
    (out,) = stage["outs"]
    assert out == {"${world.pool}": {"cache": False}}
    assert "/world-pool" not in (ROOT / "data" / ".gitignore").read_text().split()


def test_pool_data_in_git_stays_under_the_budget() -> None:
    """data/pool and data/world-pool together, as committed (about 9 MB today)."""
    size = sum((ROOT / f).stat().st_size for f in tracked("data/pool") + tracked(WORLD_POOL))
    assert size <= POOL_DATA_BUDGET, f"{size:,} bytes of pool data in git (budget {POOL_DATA_BUDGET:,})"
