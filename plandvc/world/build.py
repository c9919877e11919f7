"""One generated site: a domain, a look and a seed -> the site.json object (and its README line).

The rows come from the domain's field makers with a `random.Random` seeded by (world seed, site), so a site's
data does not depend on which other sites the world holds. Every list page gets all six control kinds, each in
the implementation the site's look chose; the page's filters read the table's enum, number and date columns.
"""

from __future__ import annotations

import datetime as dt
import math
import random
import re
from dataclasses import dataclass
from typing import Any

from plandvc.world.fields import Domain, Field, Pick, TableDef
from plandvc.world.themes import Chooser, Look

ROWS = (44, 60)  # rows per table, drawn per table
FIRST_DAY = dt.date(2026, 1, 5)
TAB_FAMILIES = (
    "dashboard",
    "cardgrid",
)  # their entry pages show tabs (overview, details, related)  # every site's fixed `today` is within 120 days of it

JsonObject = dict[str, Any]


@dataclass(frozen=True)
class SitePlan:
    """Where a site sits in the world: its domain, its position and its name."""

    domain: Domain
    domain_index: int
    j: int  # 0 or 1: which of the domain's sites
    index: int  # position in the world
    name: str

    @property
    def slug(self) -> str:
        return f"{self.domain.key}-{re.sub(r'[^a-z0-9]+', '-', self.name.lower()).strip('-')}"


def _column(f: Field, values: tuple[str, ...]) -> JsonObject:
    c = f.column
    col: JsonObject = {"name": c.name, "label": c.label, "type": c.type}
    if c.type == "enum":
        col["values"] = list(values)
    for key, value, default in (("prefix", c.prefix, ""), ("suffix", c.suffix, ""), ("decimals", c.decimals, 0),
                                ("display", c.display, "plain")):  # fmt: skip
        if value != default:
            col[key] = value
    return col


def _rows(td: TableDef, rng: random.Random, today: dt.date, data: str = "v3") -> list[JsonObject]:
    """44–60 rows with distinct labels; ids are the table's prefix and a running number; each column drawn as
    the world data version `data` draws it."""
    n = rng.randint(*ROWS)
    start = rng.randrange(1001, 4001, 10)
    rows: list[JsonObject] = []
    labels: set[str] = set()
    for i in range(n):
        row: JsonObject = {"id": f"{td.id_prefix}{start + i}"}
        for f in td.fields:
            make = f.maker(data)
            v = make.draw(rng, today, i)
            tries = 0
            while f.column.name == td.label and v in labels:
                tries += 1
                v = make.draw(rng, today, i) if tries < 200 else f"{v} {tries}"
            row[f.column.name] = v
        labels.add(str(row[td.label]))
        rows.append(row)
    return rows


def _step(lo: float, hi: float, whole: bool = False) -> float:
    """A round slider step giving about 10–25 positions between lo and hi; with `whole` (world data v4, on a
    column of whole numbers) a whole step of 1, 2 or 5 times a power of ten, so no bound is a fraction of a
    count ("recipes up to 42.5") or a float's noise ("version 2.4000000000000004")."""
    span = max(hi - lo, 1e-9)
    base = 10 ** math.floor(math.log10(span / 10))
    for m in (1, 2, 2.5, 5, 10):
        if span / (base * m) <= 25:
            step = base * m
            break
    else:
        step = base * 10
    if not whole or float(step).is_integer():
        return step
    return next(r * 10**k for k in range(12) for r in (1, 2, 5) if r * 10**k >= step)


def _number(v: float) -> int | float:
    return int(v) if float(v).is_integer() else round(v, 4)


def _controls(
    td: TableDef, page: str, rows: list[JsonObject], look_impl: dict[str, str], data: str = "v3"
) -> list[JsonObject]:
    nums = [float(r[td.slider]) for r in rows]
    step = _step(min(nums), max(nums), whole=data == "v4" and all(x.is_integer() for x in nums))
    lo, hi = math.floor(min(nums) / step) * step, math.ceil(max(nums) / step) * step
    dd, op, sl, dr = (td.field(n).column for n in (td.dropdown, td.options, td.slider, td.date))
    controls: list[JsonObject] = [
        {"control_id": f"{page}-search", "kind": "search", "label": "Search", "param": "q",
         "columns": list(td.search)},
        {"control_id": f"{page}-{dd.name.replace('_', '-')}", "kind": "dropdown", "label": dd.label, "column": dd.name,
         "param": dd.name},
        {"control_id": f"{page}-{op.name.replace('_', '-')}", "kind": "options", "label": op.label, "column": op.name,
         "param": op.name},
        {"control_id": f"{page}-{sl.name.replace('_', '-')}", "kind": "slider", "label": td.slider_label or f"Max {sl.label.lower()}",
         "column": sl.name, "param": f"max_{sl.name}", "min": _number(lo), "max": _number(hi), "step": _number(step)},
        {"control_id": f"{page}-{dr.name.replace('_', '-')}", "kind": "date_range", "label": td.date_label or dr.label,
         "column": dr.name, "params": [f"{dr.name}_from", f"{dr.name}_to"]},
        {"control_id": f"{page}-sort", "kind": "sort", "label": "Sort by", "params": ["sort", "dir"],
         "columns": list(td.sort)},
    ]  # fmt: skip
    for c in controls:
        c["impl"] = look_impl[c["kind"]]
    return controls


def _table(
    td: TableDef, rng: random.Random, today: dt.date, form: str, data: str = "v3"
) -> tuple[JsonObject, list[JsonObject]]:
    """A table's site.json object (and its rows); a table people edit can also have its entries deleted."""
    rows = _rows(td, rng, today, data)
    cols = [{"name": "id", "label": "ID", "type": "id"}]
    for f in td.fields:
        used = tuple(sorted({str(r[f.column.name]) for r in rows})) if f.column.type == "enum" else ()
        # an enum lists its options in the domain's order, only those some row uses (an empty filter is noise)
        values = tuple(x for x in f.make.values if x in used) if isinstance(f.make, Pick) else ()
        cols.append(_column(f, values))
    table: JsonObject = {
        "title": td.title, "singular": td.singular, "key": "id", "label": td.label, "columns": cols,
        "rows": rows, "form": form,
    }  # fmt: skip
    for key, value in (
        ("create", list(td.create)),
        ("edit", list(td.edit)),
        ("copy", td.copy),
        ("text", td.text),
    ):
        if value:
            table[key] = value
    if td.edit:
        table["delete"] = True
    return table, rows


def build_site(plan: SitePlan, look: Look, chooser: Chooser, seed: int, data: str = "v3") -> JsonObject:
    """The site.json object of one generated site, its data as world data version `data` draws it
    (`plandvc.world.data`)."""
    rng = random.Random(f"world-site:{seed}:{plan.slug}")
    today = FIRST_DAY + dt.timedelta(days=rng.randint(0, 120))
    tables: JsonObject = {}
    pages: list[JsonObject] = []
    for k, td in enumerate(plan.domain.tables):
        table, rows = _table(td, rng, today, chooser.form(plan.index, k), data)
        tables[td.name] = table
        page = td.name.replace("_", "-")
        impls = {kind: chooser.impl(kind, plan.index, k) for kind in ("dropdown", "options", "slider",
                                                                        "date_range", "sort", "search")}  # fmt: skip
        pages.append(
            {
                "page": page,
                "title": td.title,
                "table": td.name,
                "controls": _controls(td, page, rows, impls, data),
            }
        )
    accent, background, panel, text = look.palette
    theme: JsonObject = {
        "layout": look.family, "nav": look.nav, "pagination": look.pagination, "page_size": look.page_size,
        "banner": look.banner, "accent": accent, "background": background, "panel": panel, "text": text,
        "font": look.font, "radius": look.radius, "hero": plan.domain.hero, "tagline": plan.domain.tagline,
    }  # fmt: skip
    if look.family in TAB_FAMILIES:
        theme["tabs"] = True
    return {
        "site": plan.slug, "name": plan.name, "domain": plan.domain.key, "today": today.isoformat(),
        "theme": theme, "tables": tables, "pages": pages,
    }  # fmt: skip
