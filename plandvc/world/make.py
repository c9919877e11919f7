"""`make_world`: every domain × two sites, each with its own look, written as a sites folder.

    <out>/<site>/site.json, <out>/<site>/doc/README.md, <out>/site_split.json, <out>/world.json

The split holds whole domains out (`test`), so an evaluation on it measures transfer to unseen kinds of sites.
`world.json` lists each site's domain, layout family, navigation, pagination, banner and control
implementations (the docs' table is made from it). The folder is built aside and published by renames; the
same seed writes the same bytes.
"""

from __future__ import annotations

import random
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from plandvc.io import InputError, publish_built, write_bytes, write_json
from plandvc.sites.spec import parse_spec
from plandvc.world.build import SitePlan, build_site
from plandvc.world.domains import DOMAINS
from plandvc.world.furniture import FURNITURES, Furnisher
from plandvc.world.themes import Chooser, restyle

# the world's data versions (`make-sites --data`, params.yaml `world.data`): v3 as dataset v3 drew it; v4
# without what no user writes (issue 45): a slider over whole numbers steps by whole numbers (no "recipes up to
# 42.5", no "version 2.4000000000000004"), a column's `v4` way of drawing in its domain file (a team never
# plays itself, titles whose words go together)
DATA_VERSIONS = ("v3", "v4")
SITES_PER_DOMAIN = 2
HELD_OUT_DOMAINS = 3


@dataclass(frozen=True)
class WorldSummary:
    """What `make_world` wrote."""

    sites: int
    domains: int
    test_domains: tuple[str, ...]
    rows: int


def check_domains(domains: tuple[str, ...] | None) -> None:
    """An InputError naming the first key of `domains` that is no domain of the world."""
    keys = [d.key for d in DOMAINS]
    for key in domains or ():
        if key not in keys:
            raise InputError(f"--domains: no domain {key!r} (the domains: {', '.join(keys)})")


def plan_world(seed: int, per_domain: int = SITES_PER_DOMAIN) -> list[SitePlan]:
    """The sites of the world, in order: per domain, `per_domain` distinct names drawn with the seed."""
    plans: list[SitePlan] = []
    for d, domain in enumerate(DOMAINS):
        if per_domain > len(domain.names):
            raise InputError(f"world: domain {domain.key!r} has only {len(domain.names)} site names")
        names = random.Random(f"world-names:{seed}:{domain.key}").sample(list(domain.names), per_domain)
        for j, name in enumerate(names):
            plans.append(SitePlan(domain, d, j, len(plans), name))
    return plans


def _manifest_entry(site: dict[str, Any]) -> dict[str, Any]:
    theme = site["theme"]
    controls = {f"{p['page']}/{c['kind']}": c["impl"] for p in site["pages"] for c in p["controls"]}
    entry = {
        "site": site["site"], "name": site["name"], "domain": site["domain"], "family": theme["layout"],
        "nav": theme["nav"], "pagination": theme["pagination"], "banner": theme["banner"],
        "tabs": bool(theme.get("tabs")), "delete": sorted(t for t, tab in site["tables"].items() if tab.get("delete")),
        "forms": {t: tab["form"] for t, tab in site["tables"].items()}, "controls": controls,
        "rows": sum(len(tab["rows"]) for tab in site["tables"].values()),
    }  # fmt: skip
    if "home" in theme:  # v3 furniture (absent from a v2 world, whose bytes stay)
        entry.update(home=theme["home"], filters=theme["filters"], row_actions=theme["row_actions"])
    return entry


def _write(
    out: Path,
    seed: int,
    per_domain: int,
    domains: tuple[str, ...] | None,
    theme_seed: int | None,
    furniture: str = "v3",
    data: str = "v3",
) -> WorldSummary:
    check_domains(domains)
    if furniture not in FURNITURES:
        raise InputError(f"--furniture: no version {furniture!r} (one of {', '.join(FURNITURES)})")
    if data not in DATA_VERSIONS:
        raise InputError(f"--data: no version {data!r} (one of {', '.join(DATA_VERSIONS)})")
    chooser = Chooser(seed)
    furnisher = Furnisher(seed) if furniture != "v2" else None
    sites = []
    for plan in plan_world(seed, per_domain):
        # every site is built, in order, so the seeded choices (and a kept site's bytes) do not depend on which
        # domains are kept
        look = chooser.look(plan.domain_index, plan.j, plan.index)
        if theme_seed is not None:
            look = restyle(look, theme_seed, plan.slug)
        site = build_site(plan, look, chooser, seed, data)
        if furnisher is not None:
            furnisher.furnish(site["theme"], plan.index, plan.domain_index)
        if domains is not None and plan.domain.key not in domains:
            continue
        path = out / plan.slug / "site.json"
        parse_spec(
            site, path
        )  # a generator bug is an InputError naming the site and key, before anything is published
        write_json(path, site)
        readme = f"# {plan.name} ({plan.domain.title})\n\n{plan.domain.tagline}. A generated site of the training world.\n"
        write_bytes(out / plan.slug / "doc" / "README.md", readme.encode("utf-8"))
        sites.append(site)
    keys = [d.key for d in DOMAINS]
    test = sorted(random.Random(f"world-split:{seed}").sample(keys, HELD_OUT_DOMAINS))
    split = {
        "train": sorted(s["site"] for s in sites if s["domain"] not in test),
        "test": sorted(s["site"] for s in sites if s["domain"] in test),
    }
    write_json(out / "site_split.json", split)
    entries = [_manifest_entry(s) for s in sites]
    test = [t for t in test if domains is None or t in domains]
    manifest: dict[str, Any] = {"seed": seed, "test_domains": test, "sites": entries}
    if theme_seed is not None:
        manifest["theme_seed"] = theme_seed
    if furniture != "v2":
        manifest["furniture"] = furniture
    if data != DATA_VERSIONS[0]:  # a v3 world keeps its bytes
        manifest["data"] = data
    write_json(out / "world.json", manifest)
    rows = sum(int(e["rows"]) for e in entries)
    return WorldSummary(len(sites), len({s["domain"] for s in sites}), tuple(test), rows)


def make_world(
    out: str | Path,
    seed: int = 0,
    per_domain: int = SITES_PER_DOMAIN,
    domains: tuple[str, ...] | None = None,
    theme_seed: int | None = None,
    furniture: str = "v3",
    data: str = "v3",
) -> WorldSummary:
    """Write the world's sites folder at `out` (replacing a previous one atomically); `domains` keeps only
    those domains (the held-out ones among them stay held out). A `theme_seed`
    re-themes every site (`themes.restyle`: palette, font, corners, navigation) and keeps its data, layout
    family and controls. `furniture` "v3" adds the home structures, list filter forms and row actions
    (`plandvc.world.furniture`); "v2" is the world without them, byte for byte. `data` "v4" draws the data
    without v3's bugs (`DATA_VERSIONS`); "v3" is v3's world, byte for byte."""
    return publish_built(out, lambda tmp: _write(tmp, seed, per_domain, domains, theme_seed, furniture, data))


def sub_world(world: str | Path, sites: list[str], out: str | Path) -> Path:
    """A sites folder at `out` with only `sites` of `world` (all on the training side): a small world to record
    or bench on. Replaces a previous `out` atomically."""
    src = Path(world)
    missing = [s for s in sites if not (src / s / "site.json").is_file()]
    if missing:
        raise InputError(f"{src}: no site {missing[0]!r}")

    def build(tmp: Path) -> None:
        for s in sites:
            shutil.copytree(src / s, tmp / s)
        write_json(tmp / "site_split.json", {"train": sorted(sites), "test": []})

    publish_built(out, build)
    return Path(out)
