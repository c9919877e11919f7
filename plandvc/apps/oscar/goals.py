"""The shop's goal kinds that use what the team finds (`chains.goal_kinds` on an app, found by
`plandvc.eval.apps.app_kinds`), made from its seeded products, each step performed live on Oscar's own pages
and gated on its database (`plandvc.run.goal`):

- `detail`: the catalogue sorted by price or title (the one constraint that stays on the catalogue: a category or a
  search leaves it, docs/APPS.md "Held out in eval: the shop") -> the product it leaves first (no tie) -> its
  title read off the list (`find`) -> opened by that title (`open`) -> one or two rows of its "Product
  Information" read;
- `act`: the same find and open, then "Add to basket" on ITS page, gated on a basket line of THAT product
  being created and nothing else changing (`entry_created`, exclusive).

Not here: `lookup` and `compare` need a named product's list (a category page) and a way back to it from a
product page (the shop has no "Back to" link), and `count`/`top` have no answers on the shop (`App.goal`).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from decimal import Decimal

from plandvc.apps.oscar import adapter
from plandvc.apps.oscar.tasks import QUESTION_FIELDS
from plandvc.chains.goal_kinds import FIELDS
from plandvc.chains.goals import constraint_parts, pick_constraints, usable_by_start
from plandvc.chains.walk import chain_key
from plandvc.checks import Check, Row
from plandvc.records import ChainGoal, ChainSpec, GoalMove, GoalRead, GoalStep, ItemRecord

SITE = "oscar"
HOME = "/catalogue"  # the catalogue, as the walk's paths name it (no trailing slash)
FIND: GoalRead = {"selector": "article.product_pod h3 a"}  # the catalogue's product titles, in its order
ENTRIES = "/catalogue/"  # a product's page: /catalogue/<slug>_<id>/
READABLE = ("price", "colour", "material", "upc")
LABELS = {"price": "Price", "colour": "Colour", "material": "Material", "upc": "UPC"}


def _where(field: str) -> GoalRead:
    """A "Product Information" row's cell; a price without its pound sign."""
    read: GoalRead = {"selector": f'xpath=//table//tr[th[normalize-space()="{QUESTION_FIELDS[field]}"]]/td'}
    return read | {"pattern": r"\d+\.\d{2}"} if field == "price" else read


def _price(p: Row) -> Decimal:
    return Decimal(str(p["price"]))


def _by_price(p: Row) -> tuple[Decimal, str]:
    return _price(p), ""


def _by_title(p: Row) -> tuple[Decimal, str]:
    return Decimal(0), str(p["title"]).casefold()


# the catalogue's sorts whose first product the seeded data gives: (the key, descending)
ORDER: dict[str, tuple[Callable[[Row], tuple[Decimal, str]], bool]] = {
    "price-asc": (_by_price, False), "price-desc": (_by_price, True), "title-asc": (_by_title, False),
    "title-desc": (_by_title, True),
}  # fmt: skip


class ShopGoals:
    """The goal kinds on the shop seeded with (seed, size): `self(records, kind, rng)` draws one chain or None."""

    def __init__(self, products: Sequence[Row]) -> None:
        self.products = sorted(products, key=lambda p: int(p["id"] or 0))
        titles = [str(p["title"]) for p in self.products]
        self.unique = {t for t in titles if titles.count(t) == 1}

    def __call__(self, records: Sequence[ItemRecord], kind: str, rng: random.Random) -> ChainSpec | None:
        if kind not in ("detail", "act"):
            return None
        starts = usable_by_start(records, [SITE]).get(SITE)
        parts = pick_constraints(starts, rng) if starts else []
        keys = [str(v) for r in parts for k, v in r["ask"].get("query", []) if k == "sort_by"]
        if len(parts) != 1 or not keys or keys[0] not in ORDER:
            return None  # the first product is known only after a sort by price or title
        order = sorted(self.products, key=ORDER[keys[0]][0], reverse=ORDER[keys[0]][1])
        by = ORDER[keys[0]][0]
        if len(order) < 2 or by(order[0]) == by(order[1]):
            return None  # a tie: the first product is first by the index's order, not by the sort
        first = order[0]
        name = str(first["title"])
        if name not in self.unique:
            return None
        find: GoalStep = {"do": "find", "page": HOME, "name": name, "check": {"kind": "answer", "expected": name},
                          "read": FIND}  # fmt: skip
        path = f"/catalogue/{first['slug']}_{first['id']}/"
        opened: GoalStep = {"do": "open", "page": HOME, "name": name, "entries": ENTRIES,
                            "check": {"kind": "visited", "path": path, "last": True}}  # fmt: skip
        if kind == "detail":
            fields = rng.sample(READABLE, rng.choice(FIELDS))
            reads = [self._read(first, f) for f in fields]
            expected = " and ".join(str(s["check"].get("expected", "")) for s in reads)
            goal: ChainGoal = {"kind": "detail", "page": HOME, "expected": expected,
                               "steps": [find, opened, *reads]}  # fmt: skip
            ids = [str(first["id"]), *fields]
        else:
            moves: list[GoalMove] = [
                {"action": "click", "attrs": {"value": "Add to basket"}, "memory": "Adding it to the basket."}
            ]
            check: Check = {"kind": "entry_created", "table": "basket_line",
                            "fields": {"product": name, "quantity": 1}}  # fmt: skip
            add: GoalStep = {"do": "add", "page": HOME, "name": name, "check": check, "label": "basket",
                             "moves": moves}  # fmt: skip
            goal = {"kind": "act", "page": HOME, "expected": name, "steps": [find, opened, add]}
            ids = [str(first["id"]), "basket"]
        key = chain_key(SITE, [p["id"] for p in parts] + [f"goal-{kind}", *ids])
        return {"key": key, "site": SITE, "parts": constraint_parts(parts), "goal": goal}

    def _read(self, p: Row, field: str) -> GoalStep:
        value = f"{_price(p):.2f}" if field == "price" else str(p[field])  # "60.00", as the page shows it
        check: Check = {"kind": "answer", "expected": value, "number": field == "price"}
        return {"do": "read", "page": HOME, "name": str(p["title"]), "check": check, "label": LABELS[field],
                "field": field, "read": _where(field)}  # fmt: skip


def kinds(seed: int, size: int) -> ShopGoals:
    """The goal kinds of the shop seeded with (seed, size products): read by `plandvc.eval.apps.app_kinds`."""
    return ShopGoals(adapter.products(adapter.template(seed, size)))
