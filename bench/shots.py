"""Are screenshots a function of the page? Capture the same pages in many new browsers and count distinct PNGs.

A run's screenshots must not depend on the machine's load. The differences this found were rare (a few in a
hundred first captures, on a loaded machine) and tiny (a channel value one apart on an anti-aliased edge),
so it launches many browsers, W at a time, and prints, per page and capture index, how many PNGs of each
hash it got; it exits 1 when a page gave more than one. Load the machine as a run does (two busy loops, or
another run) to see what a run would.

    python bench/shots.py --sites data/world --rounds 20 --workers 2 --captures 2 \\
        /sites/recipes-pantry-stories/collections /sites/code-forgehub
    python bench/shots.py --sites data/world --drop-arg --disable-partial-raster ...   # the flag's effect
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import hashlib
import sys
from pathlib import Path

import plandvc.browser.chromium as chromium
from plandvc.browser.chromium import Browser
from plandvc.ports import free_ports
from plandvc.sites.servers import Servers

Counts = dict[tuple[str, int], collections.Counter[str]]


async def one_browser(base: str, urls: list[str], captures: int, counts: Counts) -> None:
    """A new browser; `captures` fresh sessions, each loading every URL (snapshot, then screenshot, as a turn)."""
    async with Browser() as browser:
        for i in range(captures):
            session = await browser.new_session(base)
            for url in urls:
                await session.goto(url)
                await session.snapshot()
                counts[(url, i)][hashlib.sha256(await session.screenshot()).hexdigest()[:12]] += 1
            await session.page.context.close()


async def shoot(sites: Path, urls: list[str], rounds: int, workers: int, captures: int) -> Counts:
    counts: Counts = collections.defaultdict(collections.Counter)
    with Servers(free_ports(1), sites) as servers:
        for _ in range(rounds):
            await asyncio.gather(
                *(one_browser(servers.bases[0], urls, captures, counts) for _ in range(workers))
            )
    return counts


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python bench/shots.py", description=__doc__.split("\n")[0])
    ap.add_argument("urls", nargs="+", help="paths on the sites server, e.g. /sites/<site>/<page>")
    ap.add_argument("--sites", type=Path, default=Path("data/world"), help="the sites folder")
    ap.add_argument("--rounds", type=int, default=20, help="rounds of new browsers")
    ap.add_argument("--workers", type=int, default=2, help="browsers at once")
    ap.add_argument("--captures", type=int, default=2, help="fresh sessions per browser")
    ap.add_argument(
        "--drop-arg", action="append", default=[], help="a Chromium switch of plandvc's to leave out"
    )
    a = ap.parse_args(argv)
    chromium.CHROMIUM_ARGS = tuple(x for x in chromium.CHROMIUM_ARGS if x not in a.drop_arg)
    counts = asyncio.run(shoot(a.sites, a.urls, a.rounds, a.workers, a.captures))
    for (url, i), c in sorted(counts.items()):
        print(f"{url} capture {i}: " + ", ".join(f"{h} x{n}" for h, n in c.most_common()))
    varied = sorted({url for (url, _), c in counts.items() if len(c) > 1})
    print(
        f"{len(varied)} of {len(a.urls)} pages gave more than one PNG"
        + (f": {', '.join(varied)}" if varied else "")
    )
    return 1 if varied else 0


if __name__ == "__main__":
    sys.exit(main())
