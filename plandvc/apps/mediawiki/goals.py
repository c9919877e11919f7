"""The wiki's goal kinds that use what the team finds (`chains.goal_kinds` on an app, found by
`plandvc.eval.apps.app_kinds`), made from its seeded pages, each step performed live on MediaWiki's own pages
and gated on its database and the pages seen (`plandvc.run.goal`):

- `lookup`: a category opened from the sidebar (a recorded navigation) -> a named page it lists -> opened by
  its title (`open`, gated on `/index.php/<Title>` last) -> one or two facts of its infobox read;
- `compare`: the same category -> two named pages -> the same number fact of each (a year, a budget) -> which
  is higher or later; the second page is reached back through the first page's category link.

Not here: `detail` and `act` need constraints that leave one page first or alone, and the wiki has no sort or
filter task (docs/APPS.md, "MediaWiki's macros"); `count` and `top` have no answers on the wiki (`App.goal`).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from plandvc.apps.mediawiki import adapter
from plandvc.apps.mediawiki.tasks import path_of
from plandvc.chains.goal_kinds import FIELDS
from plandvc.chains.walk import chain_key
from plandvc.checks import Check, Row
from plandvc.macros.navigate_to_page import MACRO as NAVIGATE
from plandvc.records import ChainGoal, ChainPart, ChainSpec, GoalRead, GoalStep, ItemRecord

SITE = "mediawiki"
CATEGORY = "navigate_to_page:/index.php/Category:"  # a navigation's control, to a category page
ENTRIES = "/index.php/"
# the infobox facts a compare reads, how the request names each, and whether it is a number (else a year)
COMPARED = {"Born": ("Year of birth", False), "Started": ("Start year", False), "Budget": ("Budget", True),
            "Population": ("Population", True), "Founded": ("Year founded", False), "Servings": ("Servings", True)}  # fmt: skip


def _where(field: str, number: bool = False) -> GoalRead:
    read: GoalRead = {"selector": f'table.infobox tr:has(th:text-is("{field}")) > td'}
    return read | {"pattern": r"[\d,]+"} if number else read


def _number(value: str) -> float:
    return float("".join(ch for ch in value if ch.isdigit() or ch == ".") or "nan")


class WikiGoals:
    """The goal kinds on the wiki seeded with (seed, size): `self(records, kind, rng)` draws one chain or None."""

    def __init__(self, pages: Sequence[Row]) -> None:
        self.pages = [p for p in pages if p["namespace"] == 0 and p["categories"]]
        titles = [str(p["title"]) for p in self.pages]
        self.unique = {t for t in titles if titles.count(t) == 1}

    def __call__(self, records: Sequence[ItemRecord], kind: str, rng: random.Random) -> ChainSpec | None:
        navs = [
            r for r in sorted(records, key=lambda r: r["id"])
            if r["macro"] == NAVIGATE.name and r["home_start"] and str(r["control"]).startswith(CATEGORY)
        ]  # fmt: skip
        if kind not in ("lookup", "compare") or not navs:
            return None
        nav = rng.choice(navs)
        category = str(nav["control"]).removeprefix(CATEGORY)
        members = [p for p in self.pages if p["categories"] == category and str(p["title"]) in self.unique]
        facts = sorted(k for k in (members[0] if members else {}) if k[:1].isupper())
        if len(members) < 2 or not facts:
            return None
        page = f"/index.php/Category:{category.replace(' ', '_')}"
        if kind == "lookup":
            p = rng.choice(members)
            fields = rng.sample(facts, min(rng.choice(FIELDS), len(facts)))
            reads = [self._read(page, p, f, COMPARED.get(f, (f, False))[0], False) for f in fields]
            expected = " and ".join(str(s["check"].get("expected", "")) for s in reads)
            goal: ChainGoal = {"kind": "lookup", "page": page, "expected": expected,
                               "steps": [self._open(page, p, category), *reads]}  # fmt: skip
            ids = [str(p["id"]), *fields]
        else:
            fields = [f for f in facts if f in COMPARED]
            if not fields:
                return None
            field = rng.choice(fields)
            label, number = COMPARED[field]
            a, b = rng.sample(members, 2)
            if _number(str(a[field])) == _number(str(b[field])):
                return None
            high = a if _number(str(a[field])) > _number(str(b[field])) else b
            steps = [
                self._open(page, a, category), self._read(page, a, field, label, number),
                self._open(page, b, category), self._read(page, b, field, label, number),
            ]  # fmt: skip
            goal = {"kind": "compare", "page": page, "expected": str(high["title"]), "steps": steps}
            ids = [str(a["id"]), str(b["id"]), field]
        part: ChainPart = {"id": nav["id"], "via": None}
        return {"key": chain_key(SITE, [nav["id"], f"goal-{kind}", *ids]), "site": SITE, "parts": [part],
                "goal": goal}  # fmt: skip

    def _open(self, page: str, p: Row, category: str) -> GoalStep:
        check: Check = {"kind": "visited", "path": path_of(str(p["title"])), "last": True}
        return {"do": "open", "page": page, "name": str(p["title"]), "check": check, "entries": ENTRIES,
                "back": category}  # fmt: skip

    def _read(self, page: str, p: Row, field: str, label: str, number: bool) -> GoalStep:
        value = str(p[field])
        shown = value.removeprefix("€") if number else value  # a number read without its unit
        check: Check = {"kind": "answer", "expected": shown, "number": number}
        return {"do": "read", "page": page, "name": str(p["title"]), "check": check, "label": label,
                "field": field, "read": _where(field, number)}  # fmt: skip


def kinds(seed: int, size: int) -> WikiGoals:
    """The goal kinds of the wiki seeded with (seed, size pages): read by `plandvc.eval.apps.app_kinds`."""
    return WikiGoals(adapter.pages(adapter.template(seed, size)))
