"""What one Chromium switch costs: run-chains on the same chains with and without it, side by side.

Each round runs both, in alternating order, each from an empty cache, CPU by cgroup (everything the run
caused, Chromium's processes included; plandvc/bench/accounting.py). It prints each round and the medians of CPU-s per
chain and wall seconds, and the ratio of the medians. The outputs of both are compared too: a switch that
changes the rows is not a cost question.

    python bench/chromium_args.py --switch=--disable-partial-raster --chains 40 --rounds 3
"""

from __future__ import annotations

import argparse
import filecmp
import os
import statistics
import sys
import tempfile
from pathlib import Path

from plandvc.bench.accounting import measure

ROOT = Path(__file__).resolve().parents[1]
# run-chains with CHROMIUM_ARGS minus the switches named in PLANDVC_BENCH_DROP (this process only)
RUN = (
    "import os, plandvc.browser.chromium as c; "
    "drop = set(os.environ['PLANDVC_BENCH_DROP'].split()); "
    "c.CHROMIUM_ARGS = tuple(a for a in c.CHROMIUM_ARGS if a not in drop); "
    "from plandvc.cli import cli; cli(prog_name='plandvc')"
)


def same_tree(a: Path, b: Path) -> bool:
    cmp = filecmp.dircmp(a, b)
    if cmp.left_only or cmp.right_only or cmp.funny_files:
        return False
    _, mismatch, errors = filecmp.cmpfiles(a, b, cmp.common_files, shallow=False)
    return not mismatch and not errors and all(same_tree(a / d, b / d) for d in cmp.common_dirs)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python bench/chromium_args.py", description=__doc__.split("\n")[0])
    ap.add_argument(
        "--switch", required=True, help="the Chromium switch to price, e.g. --disable-partial-raster"
    )
    ap.add_argument("--chains", type=int, default=40, help="chains per run (the first N of --chains-file)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--chains-file", type=Path, default=ROOT / "data/chains.jsonl")
    ap.add_argument("--pool", type=Path, default=ROOT / "data/world-pool")
    ap.add_argument("--sites", type=Path, default=ROOT / "data/world")
    a = ap.parse_args(argv)
    runs: dict[str, list[tuple[float, float]]] = {"with": [], "without": []}
    with tempfile.TemporaryDirectory(prefix="plandvc-args-") as tmp:
        for r in range(a.rounds):
            order = ("with", "without") if r % 2 == 0 else ("without", "with")
            for arm in order:
                out = Path(tmp, f"{arm}-{r}")
                env = {**os.environ, "PLANDVC_BENCH_DROP": "" if arm == "with" else a.switch}
                cmd = [sys.executable, "-c", RUN, "run-chains", "--chains", str(a.chains_file), "--pool",
                       str(a.pool), "--sites", str(a.sites), "--out", str(out / "raw"), "--cache",
                       str(out / "cache"), "--limit", str(a.chains), "--workers", str(a.workers),
                       "--no-progress", "--log", str(out / "log.json")]  # fmt: skip
                m = measure(cmd, ROOT, env)
                if m.returncode != 0:
                    print(m.stderr[-2000:], file=sys.stderr)
                    return 1
                runs[arm].append((m.cpu_s / a.chains, m.wall_s))
                print(
                    f"round {r + 1} {arm:7s} {m.cpu_s / a.chains:.3f} CPU-s/chain  {m.wall_s:.1f} s wall ({m.method})"
                )
            print(
                f"round {r + 1} outputs equal: {same_tree(Path(tmp, f'with-{r}/raw'), Path(tmp, f'without-{r}/raw'))}"
            )
    cpu = {k: statistics.median(c for c, _ in v) for k, v in runs.items()}
    wall = {k: statistics.median(w for _, w in v) for k, v in runs.items()}
    print(
        f"median CPU-s/chain: with {cpu['with']:.3f}, without {cpu['without']:.3f}, ratio {cpu['with'] / cpu['without']:.3f}"
    )
    print(
        f"median wall s: with {wall['with']:.1f}, without {wall['without']:.1f}, ratio {wall['with'] / wall['without']:.3f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
