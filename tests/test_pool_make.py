"""make-pool end to end: the same seed gives byte-identical files whatever the worker count, progress and
a summary as it goes, and a run made again replaces the old one whole."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import cast

import pytest
from bundled import SITES_DIR, SPECS
from click.testing import CliRunner
from run_helpers import ROOT, kill_group_when, plandvc, tree

from plandvc.cli import cli
from plandvc.pool.cli import make_pool as make_pool_cmd
from plandvc.pool.recorder import make_pool, recorded
from plandvc.ports import free_ports
from plandvc.records import PoolTask


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.slow
def test_make_pool_twice_with_the_same_seed_gives_the_same_bytes(tmp_path: Path) -> None:
    site = sorted(SPECS)[-1]
    logs: list[str] = []
    a = make_pool(SITES_DIR, tmp_path / "a", seed=0, workers=1, ports=free_ports(1), limit=10, only_site=site,
                  log=logs.append)  # fmt: skip
    make_pool(SITES_DIR, tmp_path / "b", seed=0, workers=2, ports=free_ports(2), limit=10,
              only_site=site, log=logs.append)  # fmt: skip
    ta, tb = _tree(tmp_path / "a"), _tree(tmp_path / "b")
    assert ta == tb
    assert sum(a.accepted.values()) == 10 and "kept.jsonl" in ta and "pool_ids.txt" in ta
    assert any(line.startswith("[10/10]") for line in logs)  # progress as it goes
    assert any("per recorded trajectory" in line for line in logs)
    # a run made again replaces the old one whole (no stale task left behind)
    make_pool(SITES_DIR, tmp_path / "a", seed=0, workers=1, ports=free_ports(1), limit=4, only_site=site,
              log=logs.append)  # fmt: skip
    assert len(list((tmp_path / "a" / "runs" / "r1" / "accepted").iterdir())) == 4


def test_make_pool_help_has_an_example() -> None:
    out = CliRunner().invoke(make_pool_cmd, ["--help"])
    assert out.exit_code == 0 and "Example:" in out.output and "plandvc make-pool --sites" in out.output


@pytest.mark.parametrize(
    "args, says",
    [
        (["--ports", "80x"], "--ports: '80x' is not a port number"),
        (["--only-site", "nowhere"], "--only-site: no site 'nowhere'"),
        (["--run", ".hidden"], "--run: '.hidden' is not a run name"),
        (["--workers", "17"], "Invalid value for '--workers': 17 is not in the range 1<=x<=16"),
        ([], "Invalid value for '--workers': 'abc' is not a valid integer range"),  # PLANDVC_WORKERS=abc
    ],
)
def test_make_pool_bad_input_is_one_line_and_nonzero(tmp_path: Path, args: list[str], says: str) -> None:
    env = {} if args else {"PLANDVC_WORKERS": "abc"}
    out = CliRunner(env=env).invoke(
        cli, ["make-pool", "--sites", str(SITES_DIR), "--out", str(tmp_path / "p"), *args]
    )
    assert out.exit_code != 0 and says in out.output
    assert not (tmp_path / "p" / "kept.jsonl").exists()


def _filed(run_dir: Path) -> int:
    """Whole outcomes filed in a recording in progress (not the `.<id>.part` folders being written)."""
    return sum(1 for p in run_dir.glob("*/*") if p.is_dir() and not p.name.startswith("."))


@pytest.mark.slow
def test_a_killed_make_pool_resumes_to_the_same_bytes(tmp_path: Path) -> None:
    """SIGKILL mid-recording, then the same command: the filed outcomes are reused, only the rest is recorded,
    and the pool is byte for byte the one an uninterrupted run writes."""
    site = sorted(SPECS)[0]
    args = ["--sites", SITES_DIR, "--only-site", site, "--limit", "12", "--workers", "1"]
    ref = plandvc("make-pool", *args, "--out", tmp_path / "ref")
    assert ref.returncode == 0, ref.stderr[-2000:]
    out = tmp_path / "pool"
    p = subprocess.Popen(
        [sys.executable, "-m", "plandvc", "make-pool", *map(str, args), "--out", str(out)],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )  # fmt: skip
    kill_group_when(p, lambda: _filed(out / "runs" / ".r1.tmp") >= 3, "3 outcomes")
    assert not (out / "kept.jsonl").exists()  # nothing published by the killed run
    filed = _filed(out / "runs" / ".r1.tmp")
    again = plandvc("make-pool", *args, "--out", out)
    assert again.returncode == 0, again.stderr[-2000:]
    assert f"{filed} of 12 tasks reused" in again.stderr
    assert tree(out) == tree(tmp_path / "ref")


def test_a_recording_of_other_inputs_is_not_resumed(tmp_path: Path) -> None:
    """A leftover recording is reused only under the same key; a `.<id>.part` folder is never reused."""
    run_dir = tmp_path / ".r1.tmp"
    task = cast(PoolTask, {"task_id": "t1", "site": "s", "macro": "m"})
    assert recorded(run_dir, "key-a", [task]) == {}
    (run_dir / "accepted" / "t1").mkdir(parents=True)
    (run_dir / "accepted" / ".t2.part").mkdir()
    got = recorded(run_dir, "key-a", [task])
    assert list(got) == ["t1"] and got["t1"].accepted
    assert not (run_dir / "accepted" / ".t2.part").exists()
    assert recorded(run_dir, "key-b", [task]) == {}  # other inputs: the leftover goes
    assert not (run_dir / "accepted").exists()
