"""`make bench`: throughput of run-chains against the raw-browser bound, and the cost of the first two stages.

On a fixed set of chains from the sample pool it runs `plandvc run-chains` at 1 and 2 workers (fresh cache)
and the raw-browser bound (bench/raw_bound.py, the same browser and launch settings) side by side. For each
it reports kept chains per minute, the CPU-seconds of everything the run caused per kept chain, peak
memory, and where run-chains' time goes (from its run log). Then it times pool-items and chain-specs on a
generated 3,000-trajectory pool (plandvc/bench/chains.py). It prints a table and writes bench/results.json.

The generated world (bench/bench_world.py): the bench writes the world, keeps `--world-sites` training sites
(one per layout family first) and records their tasks with `plandvc make-pool` at each of `--world-workers`
(kept trajectories per minute, CPU-seconds per kept trajectory, the same bytes at every worker count), then
chains the pool (pool-items, chain-specs) and runs `--world-chains` chains with run-chains at 2 workers, right
after the hand-written sites' 2-worker run, so the two are side by side in one run. What a page of each world
weighs (HTML, pictures, screenshot bytes, page height) says why richer pages cost more. `--no-world` leaves it
out. The world chains are made with params.yaml's `chains` params and run with its `prompt` dialect and marks
(`--params`; plandvc/bench/pipeline.py): only their number (`--world-chains`) and seed are the bench's. The
raw-browser bound then runs over the same world chains (their trips home, parts, recovery attempts and goal
steps, bench/raw_bound.py), and the table prints run-chains' ratio to it by wall and by CPU.

How CPU and memory are counted (plandvc/bench/accounting.py): each measured command runs in its own cgroup (cgroup
v1 cpuacct + memory, joined before exec), so Chromium's renderer, GPU and utility processes — which the
command never reaps, and which the old rusage figure missed (about 70 % of the CPU) — are counted, and
other processes on the machine are not. Where cgroups are not writable it falls back to machine-wide
/proc/stat deltas, honest only on a quiet machine; the table names the method used. CPU-seconds per kept
chain do not depend on what else runs; chains per minute and the wall-clock ratio to the bound do, so on a
shared machine compare the CPU columns, or configurations measured side by side in one run
(`--baseline REV` runs another revision's run-chains, e.g. `main`, interleaved with this one's).

The marks pair (plandvc/bench/marks.py; `--no-marks` leaves it out): at 2 workers, the same chains run in the
browser-use-0.5 dialect with marks off and then on, right after each other: CPU-seconds per kept chain and
bytes per row (the JSON line and the PNG) of each, and what the marks add.

`--recovery SHARE` (`make bench RECOVERY=0.2`) also runs the same chains with a SHARE of them made recovery
chains (`plandvc.chains.recovery.assign_failures`, seeded like chain-specs), interleaved with the run
without: the two columns differ only by the failures, so their CPU-seconds per chain give what recovery
costs, and their chains per minute compare because they ran side by side.

    python bench/run_bench.py [--chains 48] [--seed 3] [--workers 1,2] [--baseline main] [--recovery 0.2]
        [--world-sites 5] [--world-per-macro 1] [--world-chains 48] [--world-workers 1,2] [--no-world] [--no-marks]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
from collections import Counter
from dataclasses import asdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import bench_world  # noqa: E402

from plandvc import io  # noqa: E402
from plandvc.bench import marks as bench_marks  # noqa: E402
from plandvc.bench.accounting import Measure, measure  # noqa: E402
from plandvc.bench.pipeline import read_pipeline_params  # noqa: E402
from plandvc.browser.chromium import chromium_path  # noqa: E402
from plandvc.chains.items import pool_items  # noqa: E402
from plandvc.chains.recovery import assign_failures, count_failures  # noqa: E402
from plandvc.chains.walk import chain_specs  # noqa: E402

OUT = ROOT / "bench" / "out"
# the chain-specs params the world table names (the rest are in results.json)
WORLD_PARAM_KEYS = ("request", "goal_share", "goal_kinds", "recovery_share", "phrasing", "hygiene")


def measured(cmd: list[str], cwd: Path = ROOT) -> Measure:
    """Run `cmd` under the bench's accounting; a failed command stops the bench with its stderr."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    m = measure(cmd, cwd, env)
    if m.returncode != 0:
        raise SystemExit(f"bench: {' '.join(cmd[:4])} failed ({m.returncode}): {m.stderr[-1500:]}")
    return m


def export_rev(rev: str) -> Path:
    """The package of git revision `rev`, exported beside the bench's output (for a side-by-side run)."""
    sha = subprocess.run(
        ["git", "rev-parse", "--short", rev], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout.strip()
    dest = OUT / f"rev-{sha}"
    if not (dest / "plandvc").is_dir():
        shutil.rmtree(dest, ignore_errors=True)
        dest.mkdir(parents=True)
        archive = subprocess.run(
            ["git", "archive", "--format=tar", sha, "plandvc"], cwd=ROOT, check=True, capture_output=True
        ).stdout
        subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
    return dest


def run_chains(
    chains: Path,
    pool: Path,
    sites: Path,
    workers: int,
    code: Path | None = None,
    recovery: float = 0.0,
    world: str = "",
    marks: bool | None = None,
    dialect: str | None = None,
) -> dict[str, Any]:
    """run-chains on `chains` with a fresh cache; `code` = another revision's exported package (else this
    tree's); `recovery`: the recovery share the chains were made with (a label and a folder of its own);
    `world` names the sites' world in the tag and the table (empty: the hand-written sites); `dialect` with
    `marks`: the planner input's dialect (the world's: params.yaml's; else the marks pair's)."""
    tag = (
        f"w{workers}"
        + (f"-{code.name}" if code else "")
        + (f"-rec{recovery}" if recovery else "")
        + (f"-{world}" if world else "")
        + ("" if marks is None else f"-marks{str(marks).lower()}")
    )
    cache, out, log = OUT / f"cache_{tag}", OUT / f"raw_{tag}", OUT / f"log_{tag}.json"
    shutil.rmtree(cache, ignore_errors=True)
    args = ["--chains", chains, "--pool", pool, "--sites", sites, "--out", out, "--workers", workers]
    args += ["--cache", cache, "--log", log, "--no-progress"]
    if (
        marks is not None
    ):  # the marks pair (browser-use-0.5 with its marks off or on), or params.yaml's prompt
        args += ["--dialect", dialect or bench_marks.DIALECT, "--marks", str(marks).lower()]
    cmd = [
        sys.executable,
        "-m",
        "plandvc",
        "run-chains",
        *(str(Path(a).resolve()) if isinstance(a, Path) else str(a) for a in args),
    ]
    m = measured(cmd, cwd=code or ROOT)  # `-m` imports the package from the working directory first
    data = io.read_json(log)
    s = data["summary"]
    phases: Counter[str] = Counter()
    for c in data["chains"]:
        phases.update(c["phases"])
    busy = sum(c["seconds"] for c in data["chains"])
    n, kept = s["chains"], s["ok"]
    env = next((io.read_json(e)["env"] for e in sorted(out.glob("*/episode.json"))), {})
    results = io.read_jsonl(out / "results.jsonl")
    shots = [p.stat().st_size for p in out.glob("*/step_*.png")]
    return {
        "code": world or (code.name if code else "this tree"),
        "recovery": recovery,
        "browser": env.get("chromium_binary") or "chromium",
        "workers": workers,
        "chains": n,
        "kept": kept,
        "recovery_chains": sum(1 for r in results if r.get("failure")),
        "recovery_kept": sum(1 for r in results if r.get("failure") and r["ok"]),
        "method": m.method,
        "kept_per_min": round(kept / m.wall_s * 60, 1),
        "kept_per_min_steady": round(kept / s["wall_s"] * 60, 1),
        "wall_s": m.wall_s,
        "cpu_s": m.cpu_s,
        "cpu_s_per_kept": round(m.cpu_s / max(kept, 1), 2),
        "cpu_s_per_chain": round(m.cpu_s / max(n, 1), 2),
        "peak_mb": m.peak_mb,
        "left_behind": m.left_behind,
        "cpu_s_per_kept_by_kind": {k: round(v / max(kept, 1), 3) for k, v in m.by_kind.items()},
        "startup_s": s["startup_s"],
        "errors": s["errors"],
        "screenshots_per_chain": round(len(shots) / max(n, 1), 2),
        "screenshot_kb": round(sum(shots) / max(len(shots), 1) / 1024, 1),
        # seconds per chain in each phase (summed over workers); "other" is the agent's own Python work
        "phases_s_per_chain": {k: round(v / n, 3) for k, v in sorted(phases.items())}
        | {"other": round((busy - sum(phases.values())) / n, 3)},
        "row_bytes": asdict(bench_marks.row_bytes(out)),
    }


def raw_bound(chains: Path, pool: Path, sites: Path, workers: int, world: str = "") -> dict[str, Any]:
    """The raw-browser bound (bench/raw_bound.py) on `chains`, under the bench's accounting."""
    script = ROOT / "bench" / "raw_bound.py"
    args = ["--chains", str(chains), "--pool", str(pool), "--sites", str(sites), "--workers", str(workers)]
    m = measured([sys.executable, str(script), *args])
    r = json.loads(m.stdout.strip().splitlines()[-1])
    return {
        "code": f"bound {world}".strip(),
        "workers": workers,
        "chains": r["chains"],
        "ok": r["ok"],
        "browser": r["browser"],
        "method": m.method,
        "chains_per_min": round(r["chains"] / m.wall_s * 60, 1),
        "chains_per_min_steady": r["chains_per_min"],
        "cpu_s": m.cpu_s,
        "cpu_s_per_chain": round(m.cpu_s / r["chains"], 2),
        "peak_mb": m.peak_mb,
        "wall_s": m.wall_s,
    }


def with_ratios(rc: dict[str, Any], rb: dict[str, Any]) -> None:
    """A run-chains column's ratio to its bound, by wall (kept chains per minute) and by CPU-seconds (what a
    CPU-bound run's throughput follows; contention-independent)."""
    rc["ratio_to_bound"] = (
        round(rc["kept_per_min"] / rb["chains_per_min"], 2) if rb["chains_per_min"] else None
    )
    rc["cpu_ratio_to_bound"] = round(rb["cpu_s_per_chain"] / rc["cpu_s_per_kept"], 2)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pool", type=Path, default=ROOT / "data" / "pool")
    ap.add_argument("--sites", type=Path, default=ROOT / "data" / "sites")
    ap.add_argument("--chains", type=int, default=48)
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--workers", default="1,2")
    ap.add_argument("--baseline", metavar="REV", help="also run git revision REV's run-chains, side by side")
    ap.add_argument("--skip-stages", action="store_true", help="leave out the pool-items/chain-specs timing")
    ap.add_argument(
        "--recovery",
        type=float,
        default=0.0,
        metavar="SHARE",
        help="also run the chains with this share made recovery chains, side by side with the plain run",
    )
    ap.add_argument("--no-world", dest="world", action="store_false", help="leave out the generated world")
    ap.add_argument(
        "--no-marks", dest="marks", action="store_false", help="leave out the marks off/on pair at 2 workers"
    )
    ap.add_argument("--world-sites", type=int, default=5, help="training sites of the world recorded [5]")
    ap.add_argument("--world-per-macro", type=int, default=1, help="make-pool tasks per site and macro [1]")
    ap.add_argument("--world-chains", type=int, default=48, help="world chains run at 2 workers [48]")
    ap.add_argument("--world-workers", default="1,2", help="make-pool worker counts measured [1,2]")
    ap.add_argument(
        "--params", type=Path, default=ROOT / "params.yaml", help="the pipeline's params the world chains use"
    )
    ap.add_argument("--world-seed", type=int, default=0, help="make-sites seed [0]")
    args = ap.parse_args(argv)
    if not 0.0 <= args.recovery <= 1.0:
        raise SystemExit(f"bench: --recovery: must be in [0, 1], got {args.recovery}")
    OUT.mkdir(parents=True, exist_ok=True)
    records, _ = pool_items(args.pool, args.sites)
    chains_file = OUT / "chains.jsonl"
    chains = chain_specs(records, args.chains, seed=args.seed)
    io.write_jsonl(chains_file, chains)
    recovery_file = OUT / "chains_recovery.jsonl"
    if args.recovery:
        failing = assign_failures(chains, records, args.recovery, seed=args.seed)
        io.write_jsonl(recovery_file, failing)
    baseline = export_rev(args.baseline) if args.baseline else None
    results: dict[str, Any] = {
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version()},
        "chains": args.chains,
        "seed": args.seed,
        "chromium": Path(chromium_path()).name,
        "run_chains": [],
        "raw_bound": [],
    }
    if args.recovery:
        results["recovery"] = {"share": args.recovery, "by_kind": count_failures(failing)}
    pipeline = read_pipeline_params(args.params, args.world_chains, args.seed)
    wb = bench_world.WorldBench(OUT / "world_bench", args.world_seed, args.world_sites, args.world_per_macro)
    world_chains: Path | None = None
    if args.world:
        results["world"] = world_pools(wb, [int(x) for x in args.world_workers.split(",")])
        print("bench: page weight of both worlds...", file=sys.stderr, flush=True)
        results["world"]["page_weight"] = {
            "hand-written": bench_world.page_weight(args.sites),
            "world": bench_world.page_weight(wb.subset),
        }
        rec_w = max(p["workers"] for p in results["world"]["pool"])
        world_chains = bench_world.world_chains(wb, rec_w, pipeline.chains, OUT / "chains_world.jsonl")
        results["world"]["chains"] = args.world_chains
        results["world"]["params"] = {
            "chains": asdict(pipeline.chains) | {"sizes": list(pipeline.chains.sizes)},
            "dialect": pipeline.dialect,
            "marks": pipeline.marks,
        }
    for w in (int(x) for x in args.workers.split(",")):
        if baseline is not None:
            print(f"bench: run-chains of {args.baseline}, {w} worker(s)...", file=sys.stderr, flush=True)
            results["run_chains"].append(run_chains(chains_file, args.pool, args.sites, w, baseline))
        print(f"bench: run-chains, {w} worker(s)...", file=sys.stderr, flush=True)
        results["run_chains"].append(run_chains(chains_file, args.pool, args.sites, w))
        if args.recovery:
            print(
                f"bench: run-chains, recovery {args.recovery}, {w} worker(s)...", file=sys.stderr, flush=True
            )
            results["run_chains"].append(
                run_chains(recovery_file, args.pool, args.sites, w, None, args.recovery)
            )
        print(f"bench: raw-browser bound, {w} worker(s)...", file=sys.stderr, flush=True)
        results["raw_bound"].append(raw_bound(chains_file, args.pool, args.sites, w))
        if args.marks and w == 2:  # browser-use-0.5 with marks off, then on, right after each other
            pair = []
            for on in (False, True):
                print(f"bench: run-chains, {bench_marks.DIALECT} marks {on}, 2 workers...", file=sys.stderr)
                pair.append(run_chains(chains_file, args.pool, args.sites, w, marks=on))
            results["marks"] = pair
        if world_chains is not None and w == 2:  # the world's chains right after the hand-written ones
            print("bench: run-chains on the world, 2 workers...", file=sys.stderr, flush=True)
            pool_w = wb.pool(max(p["workers"] for p in results["world"]["pool"]))
            results["world"]["run_chains"] = run_chains(
                world_chains,
                pool_w,
                wb.subset,
                2,
                world="world",
                marks=pipeline.marks,
                dialect=pipeline.dialect,
            )
            print("bench: raw-browser bound on the world, 2 workers...", file=sys.stderr, flush=True)
            results["world"]["raw_bound"] = raw_bound(world_chains, pool_w, wb.subset, 2, world="world")
            with_ratios(results["world"]["run_chains"], results["world"]["raw_bound"])
    bounds = {rb["workers"]: rb for rb in results["raw_bound"]}
    for rc in results["run_chains"]:
        with_ratios(rc, bounds[rc["workers"]])
    if not args.skip_stages:
        from plandvc.bench import chains as bench_chains

        results["stages"] = bench_chains.run()
    io.write_json(ROOT / "bench" / "results.json", results)
    print_table(results)
    return 0


def world_pools(wb: bench_world.WorldBench, workers: list[int]) -> dict[str, Any]:
    """Write the bench's world and record its subset with make-pool at each worker count, measured."""
    names = bench_world.prepare(wb)
    pools = []
    for w in workers:
        print(f"bench: make-pool on {len(names)} world sites, {w} worker(s)...", file=sys.stderr, flush=True)
        m = measured(bench_world.make_pool_cmd(wb, w))
        pools.append(bench_world.pool_result(wb, w, m.wall_s, m.cpu_s, m.method) | {"peak_mb": m.peak_mb})
    same = all(bench_world.same_pool(wb.pool(workers[0]), wb.pool(w)) for w in workers[1:])
    return {"sites": names, "per_macro": wb.per_macro, "pool": pools, "same_bytes": same}


METHODS = {
    "cgroup": "CPU and memory by cgroup (cpuacct.usage, memory.max_usage_in_bytes): everything the run "
    "started, Chromium's reparented processes included, nothing else on the machine",
    "proc_stat": "CPU from machine-wide /proc/stat deltas (valid on a quiet machine only), memory as the "
    "peak summed RSS of the process tree",
}


def label(x: dict[str, Any]) -> str:
    """A run-chains column's name: whose code, the workers, and the recovery share when it had one."""
    return f"{x['code'][:10]} w={x['workers']}" + (f" rec={x['recovery']}" if x.get("recovery") else "")


def print_table(r: dict[str, Any]) -> None:
    rcs = r["run_chains"]
    bounds = {rb["workers"]: rb for rb in r["raw_bound"]}
    methods = sorted({x["method"] for x in rcs + r["raw_bound"]})
    print(f"\nrun-chains on {r['chains']} chains (seed {r['seed']}), {r['machine']['cpus']} CPUs")
    for m in methods:
        print(f"method: {METHODS[m]}")
    if "recovery" in r:
        kinds = ", ".join(f"{k} {n}" for k, n in r["recovery"]["by_kind"].items())
        print(f"recovery share {r['recovery']['share']}: {kinds} (the columns marked rec=)")
    head = [label(x) for x in rcs]
    print(f"\n{'':30}" + "".join(f"{h:>22}" for h in head))
    rows = [
        ("browser", [x["browser"][-17:] for x in rcs]),
        ("kept chains / min", [x["kept_per_min"] for x in rcs]),
        ("  (steady, after start-up)", [x["kept_per_min_steady"] for x in rcs]),
        ("CPU s / kept chain", [x["cpu_s_per_kept"] for x in rcs]),
        ("CPU s / chain", [x["cpu_s_per_chain"] for x in rcs]),
        ("recovery chains kept / run", [f"{x['recovery_kept']}/{x['recovery_chains']}" for x in rcs]),
        ("raw bound chains / min", [bounds[x["workers"]]["chains_per_min"] for x in rcs]),
        ("raw bound CPU s / chain", [bounds[x["workers"]]["cpu_s_per_chain"] for x in rcs]),
        ("ratio to the bound (wall)", [x["ratio_to_bound"] for x in rcs]),
        ("ratio to the bound (CPU)", [x["cpu_ratio_to_bound"] for x in rcs]),
        ("peak memory MB", [x["peak_mb"] for x in rcs]),
        ("raw bound peak memory MB", [bounds[x["workers"]]["peak_mb"] for x in rcs]),
        ("wall s", [x["wall_s"] for x in rcs]),
        ("start-up s", [x["startup_s"] for x in rcs]),
        ("kept / chains", [f"{x['kept']}/{x['chains']}" for x in rcs]),
        ("processes left behind", [x["left_behind"] for x in rcs]),
    ]
    for name, vals in rows:
        print(f"{name:30}" + "".join(f"{v!s:>22}" for v in vals))
    print(
        "\ngoals (2 workers, default chain mix): >= 60 kept chains/min, <= 1.8 CPU s per kept chain, >= 0.8 of"
        " the bound;\nwall-clock figures are only meaningful on an otherwise idle machine, CPU figures always."
    )
    print("\nwhose CPU it is (CPU s per kept chain, by process kind; cgroup only):")
    for x in rcs:
        kinds = x["cpu_s_per_kept_by_kind"]
        print(f"  {label(x)}: " + ", ".join(f"{k} {v}" for k, v in kinds.items()))
    print("\nwhere run-chains' time goes (s per chain, summed over workers):")
    for x in rcs:
        print(f"  {label(x)}: " + ", ".join(f"{k} {v}" for k, v in x["phases_s_per_chain"].items()))
    if "marks" in r:
        off, on = (marks_column(x, m) for x, m in zip(r["marks"], (False, True), strict=True))
        print(f"\nset-of-marks, {bench_marks.DIALECT} at 2 workers, the same chains side by side:")
        print(bench_marks.table(off, on))
    if "stages" in r:
        print(f"\npool-items + chain-specs: {json.dumps(r['stages'])}")
    if "world" in r:
        print_world(
            r["world"], next((x for x in rcs if x["workers"] == 2 and x["code"] == "this tree"), None)
        )


def marks_column(x: dict[str, Any], marks: bool) -> bench_marks.MarksColumn:
    """One run of the marks pair from its results entry."""
    return bench_marks.MarksColumn(
        marks, x["kept"], x["chains"], x["cpu_s"], bench_marks.RowBytes(**x["row_bytes"])
    )


def print_world(w: dict[str, Any], hand: dict[str, Any] | None) -> None:
    """The world's pool recording, its chains beside the hand-written sites' at 2 workers, and page weight."""
    print(f"\nmake-pool on the world: {len(w['sites'])} sites ({', '.join(w['sites'])}), {w['per_macro']} task(s)"
          f" per site and macro; same bytes at every worker count: {w['same_bytes']}")  # fmt: skip
    print(f"{'':30}" + "".join(f"{'w=' + str(p['workers']):>12}" for p in w["pool"]))
    for name, key in (("kept trajectories", "kept"), ("rejected", "rejected"), ("kept trajectories / min",
                      "kept_per_min"), ("CPU s / kept trajectory", "cpu_s_per_kept"), ("wall s", "wall_s"),
                      ("peak memory MB", "peak_mb")):  # fmt: skip
        print(f"{name:30}" + "".join(f"{p[key]!s:>12}" for p in w["pool"]))
    rc = w.get("run_chains")
    if rc is None:
        return
    cols = [x for x in (hand, rc) if x is not None]
    print(f"\nrun-chains at 2 workers, side by side ({w['chains']} world chains):")
    print(f"{'':30}" + "".join(f"{x['code'][:12]:>14}" for x in cols) + f"{'world/hand':>12}")
    for name, key in (("kept chains / min", "kept_per_min"), ("  (steady, after start-up)", "kept_per_min_steady"),
                      ("CPU s / kept chain", "cpu_s_per_kept"), ("screenshots / chain", "screenshots_per_chain"),
                      ("screenshot KB", "screenshot_kb"), ("peak memory MB", "peak_mb"), ("wall s", "wall_s")):  # fmt: skip
        vals = [x[key] for x in cols]
        ratio = round(vals[-1] / vals[0], 2) if len(vals) == 2 and vals[0] else ""
        print(f"{name:30}" + "".join(f"{v!s:>14}" for v in vals) + f"{ratio!s:>12}")
    print(f"{'kept / chains':30}" + "".join(f"{x['kept']}/{x['chains']:<8}".rjust(14) for x in cols))
    print("  goal on the world at 2 workers: >= 60 kept chains/min, <= 1.8 CPU s per kept chain")
    if (rb := w.get("raw_bound")) is not None and rc is not None:
        p = w.get("params") or {}
        print(
            f"  world chains made and run with params.yaml's: dialect {p.get('dialect')}, marks {p.get('marks')}, "
            + ", ".join(f"{k} {(p.get('chains') or {}).get(k)}" for k in WORLD_PARAM_KEYS)
        )
        print(
            f"  raw-browser bound on the same world pages: {rb['chains_per_min']} chains/min "
            f"({rb['ok']}/{rb['chains']} ok), {rb['cpu_s_per_chain']} CPU s / chain, {rb['wall_s']} wall s"
        )
        print(
            f"  run-chains / bound on the world: {rc.get('ratio_to_bound')} by wall, "
            f"{rc.get('cpu_ratio_to_bound')} by CPU (goal >= 0.9 each)"
        )
    for x in cols:
        print(
            f"  {x['code']}: CPU s by kind "
            + ", ".join(f"{k} {v}" for k, v in x["cpu_s_per_kept_by_kind"].items())
        )
        print(
            f"  {x['code']}: s per chain " + ", ".join(f"{k} {v}" for k, v in x["phases_s_per_chain"].items())
        )
    pw = w.get("page_weight") or {}
    if pw:
        keys = list(next(iter(pw.values())))
        print(f"\npage weight (home and list pages){'':4}" + "".join(f"{k:>16}" for k in keys))
        for name, v in pw.items():
            print(f"{name:36}" + "".join(f"{v[k]!s:>16}" for k in keys))


if __name__ == "__main__":
    sys.exit(main())
