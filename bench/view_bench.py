"""`make bench-view`: how long the viewer takes to write and to open, at 300 chains and with 10,000 in the index.

From a dataset version (default: the pipeline's, `data/planner_rows/<version>`) it makes a version of
`--chains` chains by cloning its chains under new keys (files hard-linked), writes the viewer with
`make_view` (wall and CPU seconds of this process; no browser runs then), and opens it in Chromium from
file://: the index until its script has drawn the first page, and the first chain page until its first
screenshot has loaded. Times are the pages' own `performance.now()` at that moment (milliseconds since the
navigation started), the median of `--repeat` loads in fresh contexts. Then it writes an index of
`--index` entries (the real entries cloned under new keys) and times it the same way. Prints a table and
writes bench/view_results.json.

    python bench/view_bench.py [--dataset data/planner_rows/v1] [--chains 300] [--index 10000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import resource
import shutil
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from plandvc import io  # noqa: E402
from plandvc.browser.chromium import chromium_path  # noqa: E402
from plandvc.view import make_view  # noqa: E402
from plandvc.view.write import write_index  # noqa: E402

OUT = ROOT / "bench" / "out" / "view"


def clone_version(src: Path, dest: Path, n: int) -> None:
    """A dataset version of n chains: src's chains cycled under new keys (`<key>-c<i>`), files hard-linked."""
    m = io.read_json(src / "manifest.json")
    if not m["chains"]:
        raise SystemExit(f"{src}: no chains to clone")
    shutil.rmtree(dest, ignore_errors=True)
    dest.mkdir(parents=True)
    chains = []
    for i in range(n):
        c = m["chains"][i % len(m["chains"])]
        key = f"{c['key']}-c{i:05d}"
        (dest / key).mkdir()
        for f in sorted((src / c["key"]).iterdir()):
            os.link(f, dest / key / f.name)
        chains.append({**c, "key": key})
    io.write_json(dest / "manifest.json", {**m, "chains": chains, "dropped": []})


async def page_times(pages: list[tuple[str, str]], repeat: int) -> dict[str, float]:
    """Median ms from navigation start to each page's `window.viewReadyAt` (and its first screenshot)."""
    from playwright.async_api import async_playwright

    got: dict[str, list[float]] = {}
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=chromium_path())
        for _ in range(repeat):
            for name, url in pages:
                ctx = await browser.new_context(viewport={"width": 1400, "height": 900})
                page = await ctx.new_page()
                await page.goto(url)
                await page.wait_for_function("window.viewReadyAt !== undefined")
                got.setdefault(name, []).append(await page.evaluate("window.viewReadyAt"))
                if await page.locator("#shot").count():
                    await page.wait_for_function("window.viewShotAt !== undefined")
                    shot = await page.evaluate("window.viewShotAt")
                    got.setdefault(name + " + first screenshot", []).append(shot)
                await ctx.close()
        await browser.close()
    return {k: round(statistics.median(v), 1) for k, v in got.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    version = re.search(r"^version: *(\S+)", (ROOT / "params.yaml").read_text(), re.M)
    default = ROOT / "data" / "planner_rows" / (version[1] if version else "v1")
    ap.add_argument("--dataset", type=Path, default=default)
    ap.add_argument("--chains", type=int, default=300)
    ap.add_argument("--index", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    rows = OUT / "rows" / "v"
    clone_version(args.dataset, rows, args.chains)
    t0, c0 = time.perf_counter(), resource.getrusage(resource.RUSAGE_SELF)
    site = make_view(rows, None, OUT / "view")
    c1 = resource.getrusage(resource.RUSAGE_SELF)
    write_s = time.perf_counter() - t0
    write_cpu = (c1.ru_utime - c0.ru_utime) + (c1.ru_stime - c0.ru_stime)
    size = sum(f.stat().st_size for f in (OUT / "view").rglob("*") if f.is_file())
    big = OUT / "big"
    entries = [
        replace(e, key=f"{e.key}-i{i:05d}")
        for i in range(args.index)
        for e in [site.index[i % len(site.index)]]
    ]
    write_index(big, "big", entries, site.facets)
    first = OUT / "view" / "chains" / f"{site.chains[0].head.key}.html"
    pages = [
        (f"index of {args.chains}", (OUT / "view" / "index.html").resolve().as_uri()),
        ("first chain page", first.resolve().as_uri()),
        (f"index of {args.index}", (big / "index.html").resolve().as_uri()),
    ]
    times = asyncio.run(page_times(pages, args.repeat))
    result: dict[str, Any] = {
        "chains": args.chains,
        "write_view_s": round(write_s, 2),
        "write_view_cpu_s": round(write_cpu, 2),
        "view_bytes": size,
        "index_bytes": {
            f"{args.chains}": (OUT / "view" / "index.html").stat().st_size,
            f"{args.index}": (big / "index.html").stat().st_size,
        },
        "ready_ms": times,
        "repeat": args.repeat,
        "cpus": os.cpu_count(),
        "load_avg": os.getloadavg()[0],
    }
    print(
        f"write the viewer of {args.chains} chains: {write_s:.2f}s wall, {write_cpu:.2f}s CPU, {size:,} bytes"
    )
    for name, ms in times.items():
        print(f"  {name:<40} {ms:8.1f} ms (median of {args.repeat})")
    (ROOT / "bench" / "view_results.json").write_text(json.dumps(result, indent=2, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
