"""List-page query semantics: parse a page's URL query against its controls, then filter and sort rows.

Pure functions over a `Page` and its `Table`, shared by the server (what a list shows) and by anyone who
needs the rows a query selects (the pool's task generator counts them). Semantics (docs/ARCHITECTURE.md, "Sites"):
dropdown `p=v`; options `p=v1&p=v2`; slider `p=<number>` (column <= value; drawn as min–max fields also
`p_min=<number>`, column >= it); date range `from`/`to`
(inclusive ISO dates); sort `sort=<column>&dir=asc|desc`; search `q` (case-insensitive substring of the
listed columns). An empty value means "no filter". Malformed values raise `BadValue`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from plandvc.sites.spec import Control, Page, Table, is_date


class BadValue(ValueError):
    """A malformed query value (unknown option, non-number, bad date): a 400."""


@dataclass(frozen=True)
class ListQuery:
    """The validated state of a list page's controls, by control_id (only the ones set)."""

    values: dict[str, Any] = field(default_factory=dict)
    pairs: tuple[tuple[str, str], ...] = ()  # the query's (param, value) pairs owned by the page's controls
    lower: dict[str, int | float] = field(default_factory=dict)  # a min–max slider's lower bound, when set

    def carried(self, control: Control) -> list[tuple[str, str]]:
        """The pairs of the *other* controls, carried as hidden inputs so one form keeps the others' state."""
        own = set(control.query_params)
        return [(k, v) for k, v in self.pairs if k not in own and v != ""]


def parse_number(text: str) -> int | float:
    """A finite number from text; ints stay ints (`"120"` -> 120, `"120.5"` -> 120.5)."""
    s = text.strip()
    try:
        return int(s)
    except ValueError:
        pass
    try:
        v = float(s)
    except ValueError:
        raise BadValue(f"{text!r} is not a number") from None
    if not math.isfinite(v):
        raise BadValue(f"{text!r} is not a finite number")
    return v


def _single(pairs: dict[str, list[str]], name: str) -> str:
    got = pairs.get(name, [])
    if len(got) > 1:
        raise BadValue(f"parameter {name!r} given {len(got)} times")
    return got[0] if got else ""


def parse_query(page: Page, table: Table, pairs: list[tuple[str, str]]) -> ListQuery:
    """Validate the (param, value) pairs against the page's controls; unknown parameters are ignored."""
    by_name: dict[str, list[str]] = {}
    for k, v in pairs:
        by_name.setdefault(k, []).append(v)
    owned = {q for c in page.controls for q in c.query_params}
    values: dict[str, Any] = {}
    lower: dict[str, int | float] = {}
    for c in page.controls:
        if c.kind == "dropdown":
            v = _single(by_name, str(c.param))
            if v:
                col = table.column(str(c.column))
                if v not in col.values:
                    raise BadValue(f"{c.param}={v!r} is not one of the {col.label} options")
                values[c.control_id] = v
        elif c.kind == "options":
            col = table.column(str(c.column))
            chosen = [v for v in by_name.get(str(c.param), []) if v]
            for v in chosen:
                if v not in col.values:
                    raise BadValue(f"{c.param}={v!r} is not one of the {col.label} options")
            if chosen:
                values[c.control_id] = sorted(set(chosen), key=col.values.index)
        elif c.kind == "slider":
            v = _single(by_name, str(c.param))
            if v.strip():
                values[c.control_id] = parse_number(v)
            lo = _single(by_name, c.min_param) if c.min_param else ""
            if lo.strip():
                lower[c.control_id] = parse_number(lo)
        elif c.kind == "date_range":
            lo, hi = (_single(by_name, p) for p in c.params)
            for p, v in zip(c.params, (lo, hi), strict=True):
                if v and not is_date(v):
                    raise BadValue(f"{p}={v!r} is not a date YYYY-MM-DD")
            if lo or hi:
                values[c.control_id] = (lo or None, hi or None)
        elif c.kind == "sort":
            by, direction = (_single(by_name, p) for p in c.params)
            if direction and direction not in ("asc", "desc"):
                raise BadValue(f"{c.params[1]}={direction!r} is not asc or desc")
            if by:
                if by not in c.columns:
                    raise BadValue(f"{c.params[0]}={by!r} is not a sortable column")
                values[c.control_id] = (by, direction or "asc")
            elif direction:
                raise BadValue(f"{c.params[1]} given without {c.params[0]}")
        elif c.kind == "search":
            v = _single(by_name, str(c.param)).strip()
            if v:
                values[c.control_id] = v
    return ListQuery(values=values, pairs=tuple((k, v) for k, v in pairs if k in owned), lower=lower)


def _sort_key(col_type: str, v: Any) -> Any:
    return v.casefold() if col_type in ("text", "enum", "id") and isinstance(v, str) else v


def apply_query(page: Page, table: Table, rows: list[dict[str, Any]], q: ListQuery) -> list[dict[str, Any]]:
    """The rows the query selects, in its sort order (stable: ties keep the table's order)."""
    out = list(rows)
    for c in page.controls:
        if c.control_id in q.lower:
            out = [r for r in out if r[str(c.column)] >= q.lower[c.control_id]]
        v = q.values.get(c.control_id)
        if v is None:
            continue
        column = str(c.column)  # dropdown, options, slider and date range controls have one (spec.py checks)
        if c.kind == "dropdown":
            out = [r for r in out if r[column] == v]
        elif c.kind == "options":
            out = [r for r in out if r[column] in v]
        elif c.kind == "slider":
            out = [r for r in out if r[column] <= v]
        elif c.kind == "date_range":
            lo, hi = v
            out = [r for r in out if (lo is None or r[column] >= lo) and (hi is None or r[column] <= hi)]
        elif c.kind == "search":
            needle = v.casefold()
            out = [r for r in out if any(needle in str(r[name]).casefold() for name in c.columns)]
    for c in page.controls:
        if c.kind == "sort" and c.control_id in q.values:
            name, direction = q.values[c.control_id]
            ctype = table.column(name).type
            out.sort(key=lambda r: _sort_key(ctype, r[name]), reverse=direction == "desc")
    return out


def select_rows(
    page: Page, table: Table, rows: list[dict[str, Any]], pairs: list[tuple[str, str]]
) -> list[dict[str, Any]]:
    """`apply_query(parse_query(...))`: the rows a list page shows for these query pairs."""
    return apply_query(page, table, rows, parse_query(page, table, pairs))
