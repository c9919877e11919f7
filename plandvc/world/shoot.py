"""Screenshots of the generated world for the docs: the home and a list page of several sites, and a table of
domains × sites × layout family × control implementations.

    python -m plandvc.world.shoot --sites data/world --out docs/world --n 8 --doc docs/WORLD.md
    python -m plandvc.world.shoot --sites WORLD_V3 --out docs/world-v3 --n 5 --by home   # one per home structure

Serves the sites on a free loopback port, opens each page in headless Chromium at 1280×800 (the harness's
viewport) and writes `<site>-home.jpg` and `<site>-list.jpg` (JPEG keeps the repository small) into `--out`.
The sites shown are one per layout family first, then the next domains, so the pictures show the variety.
With `--doc`, the part of that markdown file between `<!-- world:begin -->` and `<!-- world:end -->` is
replaced by the table of every site and the pictures.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Sequence
from pathlib import Path

from plandvc.browser.chromium import VIEWPORT, chromium_path
from plandvc.errors import script_main
from plandvc.io import InputError, read_json, write_bytes
from plandvc.ports import free_ports
from plandvc.sites.servers import Servers

Entry = dict[str, object]


def pick_sites(entries: Sequence[Entry], n: int, by: str = "family") -> list[Entry]:
    """`n` sites of distinct domains: one per value of `by` (the layout family; a v3 world's `home` structure
    or `filters`) first, then the rest in world order."""
    chosen: list[Entry] = []
    for value in sorted({str(e[by]) for e in entries}):
        e = next(
            (e for e in entries if e[by] == value and e["domain"] not in {c["domain"] for c in chosen}),
            next(e for e in entries if e[by] == value),
        )
        if e not in chosen:
            chosen.append(e)
    for e in entries:
        if len(chosen) >= n:
            break
        if e["domain"] not in {c["domain"] for c in chosen}:
            chosen.append(e)
    return chosen[:n]


KINDS = ("dropdown", "options", "slider", "date_range", "sort", "search")


def table_md(entries: Sequence[Entry], shot: Sequence[Entry]) -> str:
    """The markdown table of every site: domain, layout family, navigation, pagination, banner, the form style
    of each table, whether its entry pages have tabs and which tables delete, and each control kind's
    implementations on its pages; and whether it is pictured."""
    pictured = {e["site"] for e in shot}
    lines = [
        "| domain | site | layout family | navigation | pagination | banner | forms | entry tabs | delete | "
        + " | ".join(k.replace("_", " ") for k in KINDS)
        + " | pictured |",
        "|---" * (10 + len(KINDS)) + "|",
    ]
    for e in entries:
        controls: dict[str, str] = dict(e["controls"])  # type: ignore[call-overload]
        forms = ", ".join(sorted(set(dict(e["forms"]).values())))  # type: ignore[call-overload]
        impls = [
            " / ".join(sorted({v for k, v in controls.items() if k.endswith("/" + kind)})) for kind in KINDS
        ]
        lines.append(
            f"| {e['domain']} | {e['name']} | {e['family']} | {e['nav']} | {e['pagination']} | {e['banner']} | "
            f"{forms} | {'tabs' if e.get('tabs') else ''} | {', '.join(e.get('delete') or [])} | "  # type: ignore[arg-type]
            + " | ".join(impls)
            + f" | {'yes' if e['site'] in pictured else ''} |"
        )
    return "\n".join(lines) + "\n"


async def _shoot(base: str, shots: list[tuple[str, str]], out: Path) -> None:
    from playwright.async_api import async_playwright

    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=chromium_path(), headless=True)
        try:
            for path, name in shots:
                ctx = await browser.new_context(viewport={"width": VIEWPORT[0], "height": VIEWPORT[1]})
                page = await ctx.new_page()
                await page.goto(base + path, wait_until="load")
                write_bytes(out / name, await page.screenshot(type="jpeg", quality=80))
                await ctx.close()
        finally:
            await browser.close()


def shoot(sites: Path, out: Path, n: int, by: str = "family") -> list[Entry]:
    """Screenshot `n` sites of the world at `sites` into `out`, one per value of `by` first; returns the sites
    pictured."""
    manifest = read_json(sites / "world.json")
    if not isinstance(manifest, dict) or not isinstance(manifest.get("sites"), list):
        raise InputError(f"{sites / 'world.json'}: not a world manifest (run plandvc make-sites)")
    entries: list[Entry] = manifest["sites"]
    if any(by not in e for e in entries):
        raise InputError(
            f"{sites / 'world.json'}: a site without {by!r} (--by home needs a --furniture v3 world)"
        )
    chosen = pick_sites(entries, n, by)
    shots: list[tuple[str, str]] = []
    for e in chosen:
        spec = read_json(sites / str(e["site"]) / "site.json")
        shots.append((f"/sites/{e['site']}", f"{e['site']}-home.jpg"))
        shots.append((f"/sites/{e['site']}/{spec['pages'][0]['page']}", f"{e['site']}-list.jpg"))
    out.mkdir(parents=True, exist_ok=True)
    with Servers(free_ports(1), sites) as servers:
        asyncio.run(_shoot(servers.bases[0], shots, out))
    return chosen


BEGIN, END = "<!-- world:begin -->", "<!-- world:end -->"


def write_doc(doc: Path, out: Path, sites: Path, chosen: Sequence[Entry]) -> None:
    """Replace the generated part of `doc` with the sites' table and the pictures (paths relative to it)."""
    text = doc.read_text(encoding="utf-8")
    if BEGIN not in text or END not in text:
        raise InputError(f"{doc}: no {BEGIN} ... {END} part to fill")
    entries: list[Entry] = read_json(sites / "world.json")["sites"]
    rel = out.resolve().relative_to(doc.resolve().parent)
    pics = [f"### {e['name']} ({e['domain']}, {e['family']}, navigation {e['nav']})\n\n"
            f"![home]({rel}/{e['site']}-home.jpg)\n![list]({rel}/{e['site']}-list.jpg)\n" for e in chosen]  # fmt: skip
    body = f"{BEGIN}\n{table_md(entries, chosen)}\n## Screenshots\n\n" + "\n".join(pics) + END
    head, rest = text.split(BEGIN, 1)
    write_bytes(doc, (head + body + rest.split(END, 1)[1]).encode("utf-8"))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m plandvc.world.shoot", description=__doc__.split("\n")[0])
    ap.add_argument("--sites", type=Path, default=Path("data/world"), help="the world's sites folder")
    ap.add_argument("--out", type=Path, default=Path("docs/world"), help="where the PNGs and table.md go")
    ap.add_argument("--n", type=int, default=8, help="how many sites to picture")
    ap.add_argument("--doc", type=Path, default=None, help="a markdown file whose world part to fill")
    ap.add_argument(
        "--by", default="family", help="picture one site per value of this key first (family, home)"
    )
    args = ap.parse_args(argv)

    def body() -> int:
        chosen = shoot(args.sites, args.out, args.n, args.by)
        if args.doc:
            write_doc(args.doc, args.out, args.sites, chosen)
        print(f"pictured {len(chosen)} sites in {args.out}: {', '.join(str(e['site']) for e in chosen)}")
        return 0

    return script_main("plandvc.world.shoot", body)


if __name__ == "__main__":
    sys.exit(main())
