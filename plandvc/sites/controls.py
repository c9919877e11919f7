"""The view of one list-page control, for the original sites' templates and the world's alike.

One function builds it (`control_view`), one template macro draws it (`templates/controls.html`): the original
sites draw every control in its kind's first implementation, the world's sites in the one their spec names
(`world` adds the `data-impl` attribute and the world's markup, e.g. a "Search" button). A view is a plain dict.
"""

from __future__ import annotations

import json
import re
from typing import Any

from markupsafe import Markup

from plandvc.sites.art import format_value, plain_number
from plandvc.sites.model import Control, Table
from plandvc.sites.query import ListQuery

View = dict[str, Any]
MAX_SUGGESTIONS = 400  # autocomplete words embedded in a page


def apply_text(c: Control, world: bool) -> str:
    """The submit button's text: "Apply", or on a world site "Go" for min–max fields and "Search" for a search."""
    if not world:
        return "Apply"
    if c.kind == "slider" and c.implementation == "numbers":
        return "Go"
    return "Search" if c.kind == "search" else "Apply"


def control_view(table: Table, c: Control, q: ListQuery, path: str, world: bool) -> View:
    """What the control template draws for control `c` of a list page at `path` with query `q`."""
    v = q.values.get(c.control_id)
    view: View = {"id": c.control_id, "kind": c.kind, "impl": c.implementation, "label": c.label,
                  "action": path, "hidden": q.carried(c), "world": world,
                  "apply": apply_text(c, world)}  # fmt: skip
    if c.kind in ("dropdown", "options"):
        col = table.column(str(c.column))
        chosen = set(v) if c.kind == "options" and v else {v}
        view["name"] = c.param
        view["options"] = [{"value": o, "selected": o in chosen, "n": i} for i, o in enumerate(col.values)]
        view["current"] = v if c.kind == "dropdown" and v else ""
    elif c.kind == "slider":
        col = table.column(str(c.column))
        current = c.max if v is None else v
        low = q.lower.get(c.control_id)
        view.update(
            name=c.param, min_name=c.min_param or "", min=plain_number(c.min), max=plain_number(c.max), step=plain_number(c.step),
            value=plain_number(current), shown=format_value(col, current), set=v is not None, low=plain_number(low),
            typed=plain_number(v) if v is not None else "", unit=col.prefix or col.suffix.strip(),
        )  # fmt: skip
    elif c.kind == "date_range":
        lo, hi = v or (None, None)
        view.update(names=list(c.params), dates=[lo or "", hi or ""])
    elif c.kind == "sort":
        name, direction = v or (c.columns[0], "asc")
        view.update(
            names=list(c.params),
            columns=[{"value": n, "text": table.column(n).label, "selected": n == name} for n in c.columns],
            dirs=[{"value": d, "text": t, "selected": d == direction}
                  for d, t in (("asc", "Ascending"), ("desc", "Descending"))],
        )  # fmt: skip
    elif c.kind == "search":
        view.update(name=c.param, value=v or "", over=", ".join(table.column(n).label for n in c.columns))
        if c.implementation == "autocomplete":
            view["words"] = Markup(
                json.dumps(suggestions(table, c), ensure_ascii=False).replace("</", "<\\/")
            )
    return view


def suggestions(table: Table, c: Control) -> list[str]:
    """Autocomplete words for a search: the searched columns' words and whole values, sorted, distinct."""
    words: set[str] = set()
    for r in table.rows:
        for name in c.columns:
            text = str(r[name])
            words.add(text)
            words.update(w for w in re.findall(r"[A-Za-z][A-Za-z'-]{3,}", text))
    return sorted(words, key=lambda w: (w.casefold(), w))[:MAX_SUGGESTIONS]  # ties in a fixed order


SHOWN_SUGGESTIONS = 6  # suggestions the list shows at once (templates/world/site.js)


def suggested(words: list[str], typed: str) -> list[str]:
    """The suggestions the search box lists for `typed`, as site.js computes them: nothing under 2 characters,
    else the words starting with it, then the words containing it elsewhere (case-insensitive), the first 6."""
    q = typed.strip().lower()
    if len(q) < 2:
        return []
    first = [w for w in words if w.lower().startswith(q)]
    inner = [w for w in words if w.lower().find(q) > 0]
    return (first + inner)[:SHOWN_SUGGESTIONS]
