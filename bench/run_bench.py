"""`make bench`: throughput of run-chains against the raw-browser bound, and the cost of the first two stages.

On a fixed set of chains from the sample pool it runs `plandvc run-chains` at 1 and 2 workers (fresh cache)
and the raw-browser bound (bench/raw_bound.py) side by side, measuring for each: kept chains per minute,
wall and CPU seconds per chain (user+sys of the whole process tree: Python, the Playwright driver, Chromium,
the servers), peak memory (summed RSS of the tree), and where run-chains' time goes (from its run log).
Then it times pool-items and chain-specs on a generated 3,000-trajectory pool (bench/bench_chains.py).
It prints a table and writes bench/results.json.

    python bench/run_bench.py [--chains 48] [--seed 3] [--workers 1,2]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from plandvc import io  # noqa: E402
from plandvc.chains.items import pool_items  # noqa: E402
from plandvc.chains.walk import chain_specs  # noqa: E402

OUT = ROOT / "bench" / "out"


def tree_rss(pid: int) -> int:
    """Summed resident memory (bytes) of `pid` and all its descendants, from /proc."""
    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            fields = (d / "stat").read_text().rsplit(")", 1)[1].split()
            children.setdefault(int(fields[1]), []).append(int(d.name))
            rss[int(d.name)] = int(fields[21]) * os.sysconf("SC_PAGE_SIZE")
        except (OSError, IndexError, ValueError):
            continue
    total, stack = 0, [pid]
    while stack:
        p = stack.pop()
        total += rss.get(p, 0)
        stack += children.get(p, [])
    return total


def measured(cmd: list[str]) -> dict[str, Any]:
    """Run `cmd`; its wall time, CPU time of its whole tree, and peak summed RSS."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    peak = 0
    stop = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not stop.is_set():
            peak = max(peak, tree_rss(p.pid))
            stop.wait(0.25)

    th = threading.Thread(target=sample, daemon=True)
    th.start()
    stdout, stderr = p.communicate()
    stop.set()
    th.join()
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        raise SystemExit(f"bench: {' '.join(cmd[:4])} failed ({p.returncode}): {stderr[-1500:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {
        "wall_s": round(wall, 2),
        "cpu_s": round(cpu, 2),
        "peak_rss_mb": round(peak / 2**20),
        "stdout": stdout,
    }


def run_chains(chains: Path, pool: Path, sites: Path, workers: int) -> dict[str, Any]:
    cache, out, log = OUT / f"cache_w{workers}", OUT / f"raw_w{workers}", OUT / f"log_w{workers}.json"
    shutil.rmtree(cache, ignore_errors=True)
    m = measured(
        [
            sys.executable,
            "-m",
            "plandvc",
            "run-chains",
            "--chains",
            str(chains),
            "--pool",
            str(pool),
            "--sites",
            str(sites),
            "--out",
            str(out),
            "--workers",
            str(workers),
            "--cache",
            str(cache),
            "--log",
            str(log),
            "--no-progress",
        ]
    )
    data = io.read_json(log)
    s = data["summary"]
    phases: Counter[str] = Counter()
    for c in data["chains"]:
        phases.update(c["phases"])
    busy = sum(c["seconds"] for c in data["chains"])
    n = s["chains"]
    return {
        "workers": workers,
        "chains": n,
        "kept": s["ok"],
        "kept_per_min": round(s["ok"] / m["wall_s"] * 60, 1),
        "kept_per_min_steady": round(s["ok"] / s["wall_s"] * 60, 1),
        "wall_s_per_chain": round(m["wall_s"] / n, 2),
        "cpu_s_per_chain": round(m["cpu_s"] / n, 2),
        "peak_rss_mb": m["peak_rss_mb"],
        "wall_s": m["wall_s"],
        "startup_s": s["startup_s"],
        "errors": s["errors"],
        # seconds per chain in each phase (summed over workers); "other" is the agent's own Python work
        "phases_s_per_chain": {k: round(v / n, 3) for k, v in sorted(phases.items())}
        | {"other": round((busy - sum(phases.values())) / n, 3)},
    }


def raw_bound(chains: Path, pool: Path, sites: Path, workers: int) -> dict[str, Any]:
    m = measured(
        [
            sys.executable,
            str(ROOT / "bench" / "raw_bound.py"),
            "--chains",
            str(chains),
            "--pool",
            str(pool),
            "--sites",
            str(sites),
            "--workers",
            str(workers),
        ]
    )
    r = json.loads(m["stdout"].strip().splitlines()[-1])
    return {
        "workers": workers,
        "chains": r["chains"],
        "ok": r["ok"],
        "chains_per_min": round(r["chains"] / m["wall_s"] * 60, 1),
        "chains_per_min_steady": r["chains_per_min"],
        "cpu_s_per_chain": round(m["cpu_s"] / r["chains"], 2),
        "peak_rss_mb": m["peak_rss_mb"],
        "wall_s": m["wall_s"],
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pool", type=Path, default=ROOT / "data" / "pool")
    ap.add_argument("--sites", type=Path, default=ROOT / "data" / "sites")
    ap.add_argument("--chains", type=int, default=48)
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--workers", default="1,2")
    ap.add_argument("--skip-stages", action="store_true", help="leave out the pool-items/chain-specs timing")
    args = ap.parse_args(argv)
    OUT.mkdir(parents=True, exist_ok=True)
    records, _ = pool_items(args.pool, args.sites)
    chains_file = OUT / "chains.jsonl"
    io.write_jsonl(chains_file, chain_specs(records, args.chains, seed=args.seed))
    results: dict[str, Any] = {
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version()},
        "run_chains": [],
        "raw_bound": [],
    }
    for w in (int(x) for x in args.workers.split(",")):
        print(f"bench: run-chains, {w} worker(s)...", file=sys.stderr, flush=True)
        results["run_chains"].append(run_chains(chains_file, args.pool, args.sites, w))
        print(f"bench: raw-browser bound, {w} worker(s)...", file=sys.stderr, flush=True)
        results["raw_bound"].append(raw_bound(chains_file, args.pool, args.sites, w))
    for rc, rb in zip(results["run_chains"], results["raw_bound"], strict=True):
        rc["ratio_to_bound"] = (
            round(rc["kept_per_min"] / rb["chains_per_min"], 2) if rb["chains_per_min"] else None
        )
    if not args.skip_stages:
        import bench_chains

        results["stages"] = bench_chains.run()
    io.write_json(ROOT / "bench" / "results.json", results)
    print_table(results)
    return 0


def print_table(r: dict[str, Any]) -> None:
    print(f"\n{'':28}" + "".join(f"{'w=' + str(x['workers']):>12}" for x in r["run_chains"]))
    rows = [
        ("kept chains / min", [x["kept_per_min"] for x in r["run_chains"]]),
        ("  (steady, after start-up)", [x["kept_per_min_steady"] for x in r["run_chains"]]),
        ("raw bound chains / min", [x["chains_per_min"] for x in r["raw_bound"]]),
        ("ratio to the bound", [x["ratio_to_bound"] for x in r["run_chains"]]),
        ("wall s / chain", [x["wall_s_per_chain"] for x in r["run_chains"]]),
        ("CPU s / chain", [x["cpu_s_per_chain"] for x in r["run_chains"]]),
        ("raw bound CPU s / chain", [x["cpu_s_per_chain"] for x in r["raw_bound"]]),
        ("peak memory MB", [x["peak_rss_mb"] for x in r["run_chains"]]),
        ("start-up s", [x["startup_s"] for x in r["run_chains"]]),
        ("kept / chains", [f"{x['kept']}/{x['chains']}" for x in r["run_chains"]]),
    ]
    for name, vals in rows:
        print(f"{name:28}" + "".join(f"{v!s:>12}" for v in vals))
    print("\nwhere run-chains' time goes (s per chain, summed over workers):")
    for x in r["run_chains"]:
        print(f"  w={x['workers']}: " + ", ".join(f"{k} {v}" for k, v in x["phases_s_per_chain"].items()))
    if "stages" in r:
        print(f"\npool-items + chain-specs: {json.dumps(r['stages'])}")


if __name__ == "__main__":
    sys.exit(main())
