"""What a recorded pool exercised of the world: kept and rejected tasks per macro and per piece of the page
(control implementation, form style, navigation, pagination, layout family, banner).

    python -m plandvc.pool.coverage --pool /tmp/world-pool --sites data/world

Reads `<pool>/runs/<run>/{accepted,rejected}/<task_id>/task.json` and the sites' specs; prints two markdown
tables. A task counts for the pieces its macro drives: a list control's implementation (`dropdown:listbox`), the
form style of a create or edit (`form:wizard`), the navigation of a page visit (`nav:drawer`), the pagination
an entry is found through (`pagination:loadmore`), and for every task its site's family and banner.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from plandvc.errors import script_main
from plandvc.io import InputError, read_json
from plandvc.macros import REGISTRY
from plandvc.sites.model import Spec
from plandvc.sites.spec import load_sites


@dataclass
class Coverage:
    """Kept and rejected counts by macro and by page piece."""

    kept: Counter[str] = field(default_factory=Counter)
    rejected: Counter[str] = field(default_factory=Counter)
    kept_by_piece: Counter[str] = field(default_factory=Counter)
    rejected_by_piece: Counter[str] = field(default_factory=Counter)
    reasons: Counter[str] = field(default_factory=Counter)

    def table(self, by_piece: bool) -> str:
        kept, rejected = (
            (self.kept_by_piece, self.rejected_by_piece) if by_piece else (self.kept, self.rejected)
        )
        head = "piece" if by_piece else "macro"
        lines = [f"| {head} | kept | rejected |", "|---|---:|---:|"]
        for key in sorted(set(kept) | set(rejected)):
            lines.append(f"| {key} | {kept[key]} | {rejected[key]} |")
        return "\n".join(lines) + "\n"


def pieces(spec: Spec, macro: str, target: dict[str, object]) -> list[str]:
    """The pieces of the site's pages the task drives (see the module's docstring)."""
    out = [f"family:{spec.theme.layout}", f"banner:{spec.theme.banner}"]
    page = spec.page(str(target.get("page"))) if target.get("page") else None
    cid = target.get("control_id")
    if page is not None and isinstance(cid, str):
        c = page.control(cid)
        out.append(f"{c.kind}:{c.implementation}")
    drives = REGISTRY[macro].pieces if macro in REGISTRY else frozenset()
    if page is not None and "form" in drives:
        out.append(f"form:{spec.table_of(page).form}")
    if "nav" in drives:
        out.append(f"nav:{spec.theme.nav}")
    if "pagination" in drives:
        out.append(f"pagination:{spec.theme.pagination}")
    return out


def site_pieces(spec: Spec) -> set[str]:
    """Every piece a site's pages show: family, banner, navigation, pagination, forms, control implementations."""
    out = {f"family:{spec.theme.layout}", f"banner:{spec.theme.banner}", f"nav:{spec.theme.nav}",
           f"pagination:{spec.theme.pagination}"}  # fmt: skip
    out |= {f"form:{t.form}" for t in spec.tables.values() if t.create or t.edit}
    out |= {f"{c.kind}:{c.implementation}" for _, c in spec.controls}
    return out


def covering_sample(specs: dict[str, Spec], at_least: int = 0) -> list[str]:
    """A few sites that together show every piece any site shows (greedy: the site adding most first, ties by
    name), then more sites of new domains until there are `at_least`."""
    want = set().union(*(site_pieces(s) for s in specs.values()))
    chosen: list[str] = []
    have: set[str] = set()
    while have != want:
        best = max(sorted(specs), key=lambda n: len(site_pieces(specs[n]) - have))
        chosen.append(best)
        have |= site_pieces(specs[best])
    for name in sorted(specs):
        if len(chosen) >= at_least:
            break
        if name not in chosen and specs[name].domain not in {specs[c].domain for c in chosen}:
            chosen.append(name)
    return sorted(chosen)


def pool_coverage(pool: Path, sites: Path, run: str = "r1") -> Coverage:
    specs = load_sites(sites)
    cov = Coverage()
    for verdict in ("accepted", "rejected"):
        folder = pool / "runs" / run / verdict
        if not folder.is_dir():
            continue
        for task_file in sorted(folder.glob("*/task.json")):
            task = read_json(task_file)
            spec = specs.get(task["site"])
            if spec is None:
                raise InputError(f"{task_file}: site {task['site']!r} is not in {sites}")
            kept = verdict == "accepted"
            (cov.kept if kept else cov.rejected)[task["macro"]] += 1
            for p in pieces(spec, task["macro"], task.get("target") or {}):
                (cov.kept_by_piece if kept else cov.rejected_by_piece)[p] += 1
            if not kept:
                reason = (task_file.parent / "reason.txt").read_text(encoding="utf-8").strip()
                cov.reasons[reason.split(":")[0]] += 1
    return cov


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m plandvc.pool.coverage", description=__doc__.split("\n")[0])
    ap.add_argument("--pool", type=Path, required=True)
    ap.add_argument("--sites", type=Path, required=True)
    ap.add_argument("--run", default="r1")
    args = ap.parse_args(argv)

    def body() -> int:
        cov = pool_coverage(args.pool, args.sites, args.run)
        print(cov.table(by_piece=False))
        print(cov.table(by_piece=True))
        if cov.reasons:
            print("rejected by reason: " + ", ".join(f"{k} {n}" for k, n in sorted(cov.reasons.items())))
        return 0

    return script_main("plandvc.pool.coverage", body)


if __name__ == "__main__":
    sys.exit(main())
