"""`make bench-ray`: run-chains on a two-node Ray cluster on this host against the local engine, same chains.

Both engines run the same chains with the same number of browsers (fresh caches), one after the other:
the local engine (`--workers 2`), then `--engine ray` on a `ray.cluster_utils.Cluster` of two nodes with
one browser each. For each it reports kept chains per minute over the whole command (start-up included)
and over the steady part (the run log's wall time, after browsers or actors are up), the start-up seconds
and the peak memory of every process this bench started (summed RSS: the CLI, the Ray nodes, the actors,
their Chromium and servers). The overhead ratio is Ray's steady rate over the local one: both share this
host's cores, so no speed-up is expected, only what Ray costs. Both outputs are compared byte for byte.

CPU time is not reported for Ray: its actors' Chromium processes hang under Ray's raylets, which reap
them, so no rusage of this process sees them.

    python bench/ray_bench.py [--chains 96] [--seed 3]   (24 chains last about 25 s a run: too short for a stable ratio)
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from plandvc import io  # noqa: E402
from plandvc.bench.accounting import tree_rss  # noqa: E402
from plandvc.chains.items import pool_items  # noqa: E402
from plandvc.chains.walk import chain_specs  # noqa: E402
from plandvc.run.ray_cluster import ONE_HOST_ENV  # noqa: E402

OUT = ROOT / "bench" / "out_ray"
NODE: dict[str, Any] = {
    "num_cpus": 1,
    "resources": {"plandvc_browser": 1},
    "object_store_memory": 80 * 1024 * 1024,
}


def timed_run(args: list[str], env: dict[str, str]) -> tuple[float, int]:
    """Run the CLI; its wall seconds and the peak summed RSS of this bench's whole process tree."""
    t0 = time.monotonic()
    p = subprocess.Popen(args, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    peak, stop = 0, threading.Event()

    def sample() -> None:
        nonlocal peak
        while not stop.is_set():
            peak = max(peak, tree_rss(os.getpid()))
            stop.wait(0.25)

    th = threading.Thread(target=sample, daemon=True)
    th.start()
    _, stderr = p.communicate()
    stop.set()
    th.join()
    if p.returncode != 0:
        raise SystemExit(f"bench-ray: run-chains failed ({p.returncode}): {stderr[-1500:]}")
    return time.monotonic() - t0, peak


def one(engine: str, chains: Path, env: dict[str, str], workers: int) -> dict[str, Any]:
    cache, out, log = OUT / f"cache_{engine}", OUT / f"raw_{engine}", OUT / f"log_{engine}.json"
    shutil.rmtree(cache, ignore_errors=True)
    args = [sys.executable, "-m", "plandvc", "run-chains", "--chains", str(chains)]
    args += ["--pool", str(ROOT / "data" / "pool"), "--sites", str(ROOT / "data" / "sites")]
    args += ["--out", str(out), "--cache", str(cache), "--log", str(log), "--no-progress"]
    args += ["--workers", str(workers), "--engine", engine]
    wall, peak = timed_run(args, env)
    s = io.read_json(log)["summary"]
    return {
        "engine": engine,
        "chains": s["chains"],
        "kept": s["ok"],
        "wall_s": round(wall, 2),
        "kept_per_min": round(s["ok"] / wall * 60, 1),
        "kept_per_min_steady": round(s["ok"] / s["wall_s"] * 60, 1),
        "startup_s": s["startup_s"],
        "peak_rss_mb": round(peak / 2**20),
    }


def tree(d: Path) -> dict[str, bytes]:
    return {p.relative_to(d).as_posix(): p.read_bytes() for p in sorted(d.rglob("*")) if p.is_file()}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--chains", type=int, default=96)
    ap.add_argument("--seed", type=int, default=3)
    args = ap.parse_args(argv)
    load_at_start = os.getloadavg()
    shutil.rmtree(OUT, ignore_errors=True)
    OUT.mkdir(parents=True)
    records, _ = pool_items(ROOT / "data" / "pool", ROOT / "data" / "sites")
    chains = OUT / "chains.jsonl"
    io.write_jsonl(chains, chain_specs(records, args.chains, seed=args.seed))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RAY_ADDRESS", "PLANDVC_ENGINE"))}

    print(f"bench-ray: local engine, 2 workers, {args.chains} chains...", file=sys.stderr, flush=True)
    local = one("local", chains, env, 2)

    tmp = f"/tmp/pdvc-b{os.getpid()}"
    os.environ.update(RAY_TMPDIR=tmp, RAY_AUTH_MODE="disabled", RAY_USAGE_STATS_ENABLED="0")
    os.environ[ONE_HOST_ENV] = "0"  # before Ray is imported: the two nodes are on loopback only
    from ray.cluster_utils import Cluster

    print("bench-ray: starting a two-node Ray cluster on this host...", file=sys.stderr, flush=True)
    t0 = time.monotonic()
    cluster = Cluster(initialize_head=True, head_node_args={**NODE, "include_dashboard": False})
    try:
        cluster.add_node(**NODE)
        cluster.wait_for_nodes()
        cluster_s = time.monotonic() - t0
        print(
            f"bench-ray: Ray engine, 2 actors on 2 nodes, {args.chains} chains...",
            file=sys.stderr,
            flush=True,
        )
        ray = one("ray", chains, {**env, "RAY_ADDRESS": cluster.address, "RAY_AUTH_MODE": "disabled"}, 2)
    finally:
        cluster.shutdown()
        shutil.rmtree(tmp, ignore_errors=True)
    ray["cluster_start_s"] = round(cluster_s, 2)
    same = tree(OUT / "raw_local") == tree(OUT / "raw_ray")
    results = {
        "machine": {
            "cpus": os.cpu_count(),
            # the load averages (1, 5, 15 min) when the bench started and ended: the host is shared
            "load_at_start": [round(x, 1) for x in load_at_start],
            "load_at_end": [round(x, 1) for x in os.getloadavg()],
        },
        "local": local,
        "ray": ray,
        "overhead_ratio_steady": round(ray["kept_per_min_steady"] / local["kept_per_min_steady"], 2),
        "overhead_ratio_whole": round(ray["kept_per_min"] / local["kept_per_min"], 2),
        "byte_identical": same,
    }
    io.write_json(ROOT / "bench" / "ray_results.json", results)
    print(f"\n{'':30}{'local':>10}{'ray':>10}")
    for k in ("kept_per_min", "kept_per_min_steady", "wall_s", "startup_s", "peak_rss_mb"):
        print(f"{k:30}{local[k]!s:>10}{ray[k]!s:>10}")
    print(f"{'kept / chains':30}{local['kept']}/{local['chains']:<7}{ray['kept']}/{ray['chains']}")
    print(f"Ray cluster start (2 nodes): {ray['cluster_start_s']} s (not in the Ray engine's wall time)")
    m = results["machine"]
    print(f"load average (1, 5, 15 min) at start {m['load_at_start']}, at end {m['load_at_end']}")
    print(
        f"overhead ratio (Ray / local, steady): {results['overhead_ratio_steady']}; whole command: "
        f"{results['overhead_ratio_whole']}; outputs byte-identical: {same}"
    )
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
