"""Benchmark of pool-items and chain-specs: a generated 3,000-trajectory pool, 1,500 chains.

    python -m plandvc.bench.chains [--trajectories 3000] [--chains 1500]

`run()` returns the timings as a dict (for the lead's `make bench`); `main()` prints them as JSON.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from plandvc.chains.items import pool_items
from plandvc.chains.walk import chain_specs, summarise
from plandvc.io import dumps, write_bytes, write_jsonl
from plandvc.macros import QA_MACROS

PAGES = ("orders", "customers", "items")
FILTERS = (
    "filter_by_dropdown",
    "filter_by_options",
    "filter_by_slider",
    "filter_by_date_range",
    "sort_by_form",
)


def _task(rng: random.Random, site: str, k: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """One plausible (task, trajectory) of a site: the macro mix of a real pool, a few controls per page."""
    page = rng.choice(PAGES)
    lp, home = f"/sites/{site}/{page}", f"/sites/{site}"
    macro = rng.choices(
        [
            *FILTERS,
            "search_by_text",
            "navigate_to_page",
            "open_entry",
            "navigate_home",
            "create_entry",
            "edit_entry",
            "copy_value",
            "report_information",
            "count_entries",
        ],
        weights=[6, 4, 4, 4, 4, 4, 4, 3, 2, 3, 3, 3, 4, 4],
    )[0]
    start, end, answer, role, scope = lp, lp, None, "dropdown", [f"query:{lp}:p{rng.randrange(6)}"]
    check: dict[str, Any] = {"kind": "query", "path": lp, "params": {"p": ["v"]}}
    if macro in ("navigate_to_page", "open_entry"):
        start, end, role, scope = home, f"{lp}/{rng.randrange(40)}", "link", [f"visit:{lp}"]
        check = {"kind": "visited", "path": end, "last": True}
    elif macro == "navigate_home":
        start, end, role, scope = lp, home, "home", ["visit:home"]
        check = {"kind": "visited", "path": home, "last": True}
    elif macro in ("create_entry", "edit_entry"):
        start = rng.choice([home, lp])
        role, scope = "create_form", [f"table:{page}"]
        check = {"kind": "entry_created", "table": page, "fields": {"name": "x"}}
    elif macro in QA_MACROS or macro == "copy_value":
        answer = str(rng.randrange(50)) if macro in QA_MACROS else None
        scope = [f"entry:{page}/{rng.randrange(40)}"] + [f"query:{lp}:p{i}" for i in range(6)]
        check = {"kind": "answer", "expected": answer} if answer else {"kind": "clipboard", "value": "1"}
        if rng.random() < 0.4:
            start = home  # a question asked from the home page
    elif macro != "search_by_text" and rng.random() < 0.2:
        start = home  # a filter that starts on the home page
    kind = "mid_chain" if rng.random() < 0.03 else "fresh"
    tid = f"{site}-{macro}-{k:04d}"
    task = {
        "task_id": tid,
        "site": site,
        "macro": macro,
        "instruction": f"Do task {k} on {site}.",
        "start": {"url": start, "kind": kind, "keep": False},
        "control": {"control_id": f"{page}-c{rng.randrange(8)}", "role": role, "prep": {}},
        "check": check,
        "verifier": {"exclusive": True},
        "scope": scope,
    }
    traj = {
        "task_id": tid,
        "site": site,
        "macro": macro,
        "start_kind": kind,
        "history_macro": "navigate_to_page" if kind == "mid_chain" else None,
        "steps": [{"action": "click", "element": 0, "value": None, "memory": "Clicking."}],
        "done": "Done.",
        "answer": answer,
        "end": end,
    }
    return task, traj


def make_pool(root: Path, trajectories: int = 3000, sites: int = 10, seed: int = 0) -> tuple[Path, Path]:
    """A pool dir in the pool format (docs/FORMATS.md) and a sites dir with its split (the last site is the test site)."""
    rng = random.Random(seed)
    pool, sites_dir = root / "pool", root / "sites"
    names = [f"site{s:02d}" for s in range(sites)]
    kept = []
    element = dumps(
        [{"tag": "button", "role": "button", "text": "Apply", "label": "", "attrs": {}, "box": [0, 0, 9, 9]}]
    )
    for k in range(trajectories):
        task, traj = _task(rng, names[k % sites], k)
        d = pool / "runs" / "r1" / "accepted" / task["task_id"]
        write_bytes(d / "task.json", dumps(task))
        write_bytes(d / "trajectory.json", dumps(traj))
        write_bytes(d / "elements.json", element)
        kept.append({"id": task["task_id"], "run": "r1", "site": task["site"], "macro": task["macro"]})
    kept.sort(key=lambda r: r["id"])
    write_jsonl(pool / "kept.jsonl", kept)
    ids = "".join(f"{r['id']}\n" for r in kept if r["macro"] not in QA_MACROS)
    write_bytes(pool / "pool_ids.txt", ids.encode())
    write_bytes(sites_dir / "site_split.json", dumps({"train": names[:-1], "test": names[-1:]}))
    return pool, sites_dir


def run(trajectories: int = 3000, chains: int = 1500, seed: int = 0) -> dict[str, Any]:
    """Seconds for pool-items and chain-specs (and what they produced); CPU seconds too, as the machine may be
    shared."""
    with tempfile.TemporaryDirectory(prefix="bench-chains-") as tmp:
        pool, sites = make_pool(Path(tmp), trajectories)
        t0, c0 = time.perf_counter(), time.process_time()
        records, report = pool_items(pool, sites)
        t1, c1 = time.perf_counter(), time.process_time()
        out = chain_specs(records, chains, seed=seed)
        t2, c2 = time.perf_counter(), time.process_time()
    s = summarise(out, {r["id"] for r in records if r["answers"]})
    return {
        "trajectories": trajectories,
        "records": len(records),
        "dropped": report["dropped"],
        "chains": len(out),
        "by_size": s["by_size"],
        "home_steps": s["home_steps"],
        "answers": s["answers"],
        "pool_items_s": round(t1 - t0, 3),
        "chain_specs_s": round(t2 - t1, 3),
        "pool_items_cpu_s": round(c1 - c0, 3),
        "chain_specs_cpu_s": round(c2 - c1, 3),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--trajectories", type=int, default=3000)
    ap.add_argument("--chains", type=int, default=1500)
    args = ap.parse_args(argv)
    res = run(args.trajectories, args.chains)
    sys.stdout.write(dumps(res, indent=True).decode() + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
