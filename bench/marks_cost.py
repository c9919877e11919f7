"""What browser-use-0.5's set-of-marks cost a planner turn: CPU-seconds per look and PNG bytes, marks on and off.

One child process per mode (`--marks false`, `--marks true`), each measured whole by bench/accounting.py (its
own cgroup: Chromium's renderer and GPU processes counted, other processes on the machine not). A child opens
one session, loads each page once, and then looks at it `--looks` times as a planner turn does (the dialect's
`look`: page.js, and with marks the drawing, the screenshot and the marks taken off). The two children do the
same loads, so (CPU on - CPU off) / looks is what the marks add to one look; the PNG sizes are the screenshots'
own (Chromium's fast encoding, as a row stores them).

    python bench/marks_cost.py --sites data/sites --looks 20 /sites/shop/orders /sites/clinic
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from plandvc.bench.accounting import measure

ROOT = Path(__file__).resolve().parents[1]


async def child(sites: Path, urls: list[str], looks: int, marks: bool) -> dict[str, float]:
    """Load each URL once and look at it `looks` times; the PNG bytes per look."""
    from plandvc.agent.dialects import dialect
    from plandvc.browser.chromium import Browser
    from plandvc.ports import free_ports
    from plandvc.sites.servers import Servers

    sizes: list[int] = []
    with Servers(free_ports(1), sites) as servers:
        async with Browser() as browser:
            session = await browser.new_session(servers.bases[0])
            for url in urls:
                await session.goto(url)
                await session.snapshot()
                d = dialect("browser-use-0.5", marks)
                for _ in range(looks):
                    sizes.append(len((await d.look(session)).shot))
            await session.close()
    return {"looks": len(sizes), "png_bytes": sum(sizes) / len(sizes)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sites", type=Path, default=ROOT / "data" / "sites")
    ap.add_argument("--looks", type=int, default=20)
    ap.add_argument("--marks", choices=["true", "false"], help=argparse.SUPPRESS)  # a child's mode
    ap.add_argument("urls", nargs="+")
    a = ap.parse_args()
    if a.marks is not None:
        print(json.dumps(asyncio.run(child(a.sites, a.urls, a.looks, a.marks == "true"))))
        return
    got = {}
    for mode in ("false", "true", "false", "true"):  # interleaved, twice
        m = measure(
            [
                sys.executable,
                __file__,
                "--sites",
                str(a.sites),
                "--looks",
                str(a.looks),
                "--marks",
                mode,
                *a.urls,
            ],
            ROOT,
        )
        assert m.returncode == 0, m.stderr[-2000:]
        out = json.loads(m.stdout)
        got.setdefault(mode, []).append((m.cpu_s, out))
        print(
            f"marks {mode:5s}: {m.cpu_s:6.2f} CPU-s ({m.method}), {out['looks']} looks, {out['png_bytes']:.0f} B/PNG"
        )
    cpu = {k: min(c for c, _ in v) for k, v in got.items()}
    looks = got["true"][0][1]["looks"]
    print(
        f"marks add {(cpu['true'] - cpu['false']) / looks * 1000:.1f} ms CPU per look (min of two runs each); "
        f"PNG {got['false'][0][1]['png_bytes']:.0f} -> {got['true'][0][1]['png_bytes']:.0f} B"
    )


if __name__ == "__main__":
    main()
