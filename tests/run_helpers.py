"""Helpers shared by the run-chains and fault tests: the real command, output trees, subsets of a reference
run, waits.

A plain helper module, imported by name by tests/test_run_chains.py, tests/test_run_ray.py and the fault
tests (tests/test_faults.py, tests/test_faults_outputs.py).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

ROOT = Path(__file__).resolve().parents[1]


def walk_chains(folder: Path, n: int, seed: int, **subsets: slice) -> Path:
    """`folder` with chains.jsonl, `n` chains walked (seed `seed`) from the sample pool, and `<name>.jsonl`
    for each of `subsets`, a slice of them (e.g. `few=slice(6)`)."""
    from bundled import pool_items_once

    from plandvc import io
    from plandvc.chains.walk import chain_specs

    records, _ = pool_items_once()
    chains = chain_specs(records, n, seed=seed)
    io.write_jsonl(folder / "chains.jsonl", chains)
    for name, part in subsets.items():
        io.write_jsonl(folder / f"{name}.jsonl", chains[part])
    return folder


def plandvc(
    *args: str | Path, env: dict[str, str] | None = None, timeout: float = 600
) -> subprocess.CompletedProcess[str]:
    """The real command (`python -m plandvc ...`) run from the checkout, its output captured."""
    return subprocess.run(
        [sys.executable, "-m", "plandvc", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=timeout,
        env={**os.environ, **(env or {})},
    )


def composed_twice(tmp: Path, items: list[Any], world: Path, *args: str) -> list[bytes]:
    """chain-specs with composed requests (60 chains, goal share 0.4) and `args`, written twice into `tmp`
    (a/, b/): the two outputs' bytes."""
    from plandvc import io

    path = tmp / "items.jsonl"
    io.write_jsonl(path, items)
    outs = []
    for name in ("a", "b"):
        out = tmp / name / "chains.jsonl"
        out.parent.mkdir()
        p = plandvc(
            "chain-specs", "--items", path, "--out", out, "--n", "60", "--request", "composed",
            "--goal-share", "0.4", "--sites", world, *args,
        )  # fmt: skip
        assert p.returncode == 0, p.stderr
        outs.append(out.read_bytes())
    return outs


def one_line(p: subprocess.CompletedProcess[str]) -> str:
    """The run's single stderr line (asserting there is exactly one and no traceback)."""
    lines = [ln for ln in p.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and "Traceback" not in p.stderr, p.stderr[-3000:]
    return lines[0]


def tree(d: Path) -> dict[str, bytes]:
    """Every file under `d`, by relative path: two runs' outputs compare byte for byte."""
    return {p.relative_to(d).as_posix(): p.read_bytes() for p in sorted(d.rglob("*")) if p.is_file()}


def differing(a: dict[str, bytes], b: dict[str, bytes]) -> list[str]:
    """The paths whose bytes differ between two trees, or that only one has (a readable failure)."""
    return sorted(k for k in {*a, *b} if a.get(k) != b.get(k))


def subset(ref: dict[str, bytes], keys: list[str]) -> dict[str, bytes]:
    """The reference run's files for these chains, and their lines of results.jsonl."""
    out = {
        k: v
        for k, v in ref.items()
        if k.split("/")[0] in keys or (k.startswith("_failed/") and k.split("/")[1] in keys)
    }
    lines = [ln for ln in ref["results.jsonl"].splitlines(keepends=True) if orjson.loads(ln)["key"] in keys]
    out["results.jsonl"] = b"".join(lines)
    return out


def wait_for(pred: Callable[[], bool], timeout: float = 300.0, what: str = "") -> None:
    """Poll `pred` until it holds; an AssertionError naming `what` after `timeout` seconds."""
    t0 = time.monotonic()
    while not pred():
        if time.monotonic() - t0 > timeout:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.2)


def kill_group_when(p: subprocess.Popen[Any], ready: Callable[[], bool], what: str) -> None:
    """SIGKILL the process group of `p` (started with start_new_session) once `ready()` holds, asserting it was
    still running then; the group is killed in any case."""
    try:
        wait_for(lambda: ready() or p.poll() is not None, what=what)
        assert p.poll() is None, f"the process ended before {what}"
        os.killpg(p.pid, signal.SIGKILL)
        p.wait(30)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)


def finished(cache: Path) -> int:
    """Chains finished in a run-chains cache: whole entries, not a `<fingerprint>.tmp<pid>` folder being written
    (it holds a result.json before it is renamed into place, and a kill at that moment leaves it behind)."""
    return sum(1 for p in cache.glob("*/result.json") if ".tmp" not in p.parent.name) if cache.exists() else 0


def processes(match: Callable[[bytes], bool]) -> set[int]:
    """Live processes whose command line (its arguments joined by NUL bytes, from /proc) `match` accepts."""
    pids = set()
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            with contextlib.suppress(OSError):
                if match((d / "cmdline").read_bytes()):
                    pids.add(int(d.name))
    return pids


def browsers_of(pids: set[int]) -> set[int]:
    """Chromium processes that a browser of one of these processes launched (its marker names the pid)."""
    return processes(lambda cmd: any(f"--plandvc-browser={p}-".encode() in cmd for p in pids))


def run_on_world(chains: list[Any], tmp: Path, world: Path) -> tuple[Path, dict[str, Any]]:
    """run-chains on these chains with the committed world pool on `world`: (the raw folder, results by key)."""
    from plandvc import io

    io.write_jsonl(tmp / "chains.jsonl", chains)
    out = tmp / "raw"
    p = plandvc(
        "run-chains", "--chains", tmp / "chains.jsonl", "--pool", ROOT / "data" / "world-pool",
        "--sites", world, "--out", out, "--cache", tmp / "cache", "--no-progress", timeout=900,
    )  # fmt: skip
    assert p.returncode == 0, p.stderr[-2000:]
    return out, {r["key"]: r for r in io.read_jsonl(out / "results.jsonl")}


def with_steps(chain: Any, edit: Any, at: int = 0) -> Any:
    """A copy of a goal chain whose live steps from `at` on `edit(step)` changed in place (a misread report: the
    gates stay those of the chain), keyed apart (its key's last four characters "bad0")."""
    goal = dict(chain["goal"])
    goal["steps"] = [dict(s) for s in goal["steps"]]
    for s in goal["steps"][at:]:
        edit(s)
    return {**chain, "key": chain["key"][:-4] + "bad0", "goal": goal}
