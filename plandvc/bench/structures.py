"""How many page structures does a world have? Visit every site's home and first list page in Chromium and
compare their tag structures (issue 40, item 5).

A page's structure is its `<main>` element's tree (the page's own content: the header, navigation, footer
and banners around it are the site's chrome, measured by its navigation kind elsewhere) as tag names only,
no text and no attributes, to `--depth` levels below `<main>`, with a run of equal sibling subtrees folded
into one (a list of 9 results and one of 12 are one structure; a table and a grid of cards are two). Equal
strings are one structure. It prints the number of distinct home and list structures and, per structure,
how many sites have it.

    python -m plandvc.bench.structures --sites data/world                 # v2: 1 home structure
    python -m plandvc.bench.structures --sites /tmp/world-v3 --json out.json

The page is read after its scripts ran (the DOM Chromium holds, not the served HTML), in a fresh context
per page, so a cookie banner or a drawn calendar is as a first visit shows it.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import hashlib
import sys
from dataclasses import dataclass, field
from pathlib import Path

from plandvc.browser.chromium import VIEWPORT, chromium_path
from plandvc.io import read_json, write_json
from plandvc.ports import free_ports
from plandvc.sites.servers import Servers

DEPTH = 3  # levels below <main>: the page's regions, their parts and the parts' pieces

# the structure of an element as tag names, runs of equal siblings folded, to `depth` levels; SVG is a leaf
STRUCTURE_JS = """([depth]) => {
  const walk = (el, d) => {
    const tag = el.tagName.toLowerCase();
    if (d === 0 || tag === 'svg') return tag;
    const kids = [];
    for (const c of el.children) {
      if (['script', 'style', 'template'].includes(c.tagName.toLowerCase())) continue;
      const s = walk(c, d - 1);
      if (kids[kids.length - 1] !== s) kids.push(s);
    }
    return kids.length ? tag + '(' + kids.join(',') + ')' : tag;
  };
  const root = document.querySelector('main') || document.body;
  return walk(root, depth);
}"""


@dataclass
class Structures:
    """Each visited page's structure, by page kind ("home", "list") and site."""

    pages: dict[str, dict[str, str]] = field(default_factory=lambda: {"home": {}, "list": {}})

    def distinct(self, kind: str) -> collections.Counter[str]:
        """How many sites have each structure of this page kind."""
        return collections.Counter(self.pages[kind].values())


def targets(sites: Path) -> list[tuple[str, str, str]]:
    """(kind, site, path) of every site's home and first list page, in the world's order."""
    manifest = read_json(sites / "world.json")
    out = []
    for e in manifest["sites"]:
        spec = read_json(sites / e["site"] / "site.json")
        out.append(("home", e["site"], f"/sites/{e['site']}"))
        out.append(("list", e["site"], f"/sites/{e['site']}/{spec['pages'][0]['page']}"))
    return out


async def _visit(base: str, pages: list[tuple[str, str, str]], depth: int) -> Structures:
    from playwright.async_api import async_playwright

    got = Structures()
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=chromium_path(), headless=True)
        try:
            for kind, site, path in pages:
                ctx = await browser.new_context(viewport={"width": VIEWPORT[0], "height": VIEWPORT[1]})
                page = await ctx.new_page()
                await page.goto(base + path, wait_until="load")
                got.pages[kind][site] = await page.evaluate(STRUCTURE_JS, [depth])
                await ctx.close()
        finally:
            await browser.close()
    return got


def measure(sites: Path, depth: int = DEPTH) -> Structures:
    """Serve `sites` on a free loopback port and read every home and first list page's structure."""
    with Servers(free_ports(1), sites) as servers:
        return asyncio.run(_visit(servers.bases[0], targets(sites), depth))


def short(structure: str) -> str:
    return hashlib.sha256(structure.encode()).hexdigest()[:10]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sites", type=Path, default=Path("data/world"), help="a sites folder with world.json")
    ap.add_argument("--depth", type=int, default=DEPTH, help="levels below <main> compared")
    ap.add_argument("--json", type=Path, default=None, help="write every page's structure here")
    args = ap.parse_args(argv)
    got = measure(args.sites, args.depth)
    for kind in ("home", "list"):
        counts = got.distinct(kind)
        print(f"{kind}: {len(counts)} distinct structures over {len(got.pages[kind])} sites")
        for s, n in counts.most_common():
            sites = sorted(site for site, t in got.pages[kind].items() if t == s)
            print(f"  {short(s)} {n:3d}  {s[:110]}{'…' if len(s) > 110 else ''}  e.g. {sites[0]}")
    if args.json:
        write_json(args.json, {"depth": args.depth, "pages": got.pages})
    return 0


if __name__ == "__main__":
    sys.exit(main())
