"""An app site, measured: install (into a new, empty apps home), the install's size, seeding, the server's start
time and memory, and the recording of every macro's tasks, twice, to show the pool is the same bytes.

Prints a table and writes bench/apps_results-<app>.json (docs/APPS.md quotes it). The install reads pip's (or
apt's) cache when it has the packages, so a first install on a new machine takes longer (the download).

    python bench/apps_bench.py [--app trac] [--per-macro 3] [--starts 3]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from plandvc.io import tree_hash

HERE = Path(__file__).resolve().parent


def du_mib(path: Path) -> float:
    out = subprocess.run(["du", "-sk", str(path)], capture_output=True, text=True, check=True).stdout
    return round(int(out.split()[0]) / 1024, 1)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--app", default="trac")
    ap.add_argument("--per-macro", type=int, default=3)
    ap.add_argument("--starts", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="plandvc-apps-bench-") as home:
        os.environ["PLANDVC_APPS"] = home
        from plandvc.apps import REGISTRY, record

        app = REGISTRY[args.app]
        t0 = time.monotonic()
        root = app.install()
        install_s = time.monotonic() - t0
        t0 = time.monotonic()
        app.install()
        again_s = time.monotonic() - t0
        t0 = time.monotonic()
        tpl = app.template(0, 40)
        seed_s = time.monotonic() - t0
        starts, rss = [], []
        for _ in range(args.starts):
            t0 = time.monotonic()
            with app.serve(0, 40) as s:
                starts.append(time.monotonic() - t0)  # a fresh copy, started and answering
                server = getattr(s, "server", None)
                rss.append(server.rss_kib() if server is not None else 0)
        pools = []
        record_s = []
        for i in range(2):
            out = Path(home) / f"pool{i}"
            t0 = time.monotonic()
            summary = record.record_pool(app, out, per_macro=args.per_macro)
            record_s.append(time.monotonic() - t0)
            pools.append(tree_hash(out))
        result = {
            "install_s": round(install_s, 1),
            "install_again_s": round(again_s, 3),
            "app": app.name,
            "install_mib": du_mib(root),
            "seed_s": round(seed_s, 1),
            "template_mib": du_mib(tpl),
            "start_s_median": round(statistics.median(starts), 2),
            "server_rss_mib_median": round(statistics.median(rss) / 1024, 1),
            "per_macro": args.per_macro,
            "tasks": summary.tasks,
            "kept": summary.kept,
            "record_s": [round(s, 1) for s in record_s],
            "pool_same_bytes": pools[0] == pools[1],
        }
    (HERE / f"apps_results-{app.name}.json").write_text(json.dumps(result, indent=2, sort_keys=True) + "\n")
    for k, v in result.items():
        print(f"{k:24} {v}")


if __name__ == "__main__":
    main()
