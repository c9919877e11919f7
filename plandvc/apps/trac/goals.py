"""Trac's goal kinds that use what the team finds (`chains.goal_kinds` on an app, found by
`plandvc.eval.apps.app_kinds`), made from its seeded tickets, each step performed live on Trac's own pages and
gated on its database (`plandvc.run.goal`):

- `detail`: constraints on the ticket list (a component, statuses, the Ticket sort) -> the ticket they leave
  first (sorted by the Ticket column: ids never tie) or alone -> its summary read off the list (`find`) ->
  opened by that summary (`open`, gated on `/ticket/N` last) -> one or two of its fields read on its page;
- `lookup`: a named ticket among the constraints' list (all of it on the list's first page) -> open, read;
- `compare`: two named tickets of that list -> the date each was opened -> which was opened later;
- `act`: the detail's find and open, then the ticket's Modify form: a field set to a new value, gated on THAT
  ticket's row changing and no other (`entry_updated`, exclusive).

The steps carry where Trac's pages show things (`GoalStep.read`, `entries`, `moves`): the generated sites'
selectors are not Trac's.
"""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Mapping, Sequence

from plandvc.apps.trac import adapter
from plandvc.apps.trac.facts import HOME_QUERY, LABELS, TOP_READ, query_rows
from plandvc.chains.goal_kinds import FIELDS
from plandvc.chains.goals import constraint_parts, pick_constraints, usable_by_start
from plandvc.chains.walk import chain_key
from plandvc.checks import Check, Row
from plandvc.records import ChainGoal, ChainSpec, GoalMove, GoalRead, GoalStep, ItemRecord

SITE = "trac"
PAGE_SIZE = 10  # trac.ini's query results a page: a named ticket of a shorter list is on its first page
READABLE = ("priority", "milestone", "type", "owner", "reporter", "component", "status")
EDITABLE = ("priority", "component", "milestone")
ENTRIES = "/ticket/"
# where a ticket's page shows a field: status and type beside the number, the rest in its property table
WHERE: dict[str, GoalRead] = {
    "status": {"selector": "#ticket span.trac-status"},
    "type": {"selector": "#ticket span.trac-type"},
    "time": {"selector": "#ticketbox div.date p:first-child a", "pattern": r"\d{4}-\d{2}-\d{2}"},
}
OPENED = "Opening date"  # the label of a compare's field: the date a ticket was opened


def _where(field: str) -> GoalRead:
    return WHERE.get(field) or {"selector": f'#ticket td[headers="h_{field}"]'}


def _label(field: str) -> str:
    return OPENED if field == "time" else LABELS.get(field, field.capitalize())


class TracGoals:
    """The goal kinds on the Trac seeded with (seed, size): `self(records, kind, rng)` draws one chain or None."""

    def __init__(self, tickets: Sequence[Row], values: Mapping[str, Sequence[str]]) -> None:
        self.tickets = list(tickets)
        names = [str(t["summary"]) for t in self.tickets]
        self.unique = {n for n in names if names.count(n) == 1}
        self.values = values  # an edit's new values of each field (the form's options)

    def __call__(self, records: Sequence[ItemRecord], kind: str, rng: random.Random) -> ChainSpec | None:
        starts = usable_by_start(records, [SITE]).get(SITE)
        if not starts:
            return None
        parts = pick_constraints(starts, rng)
        if not parts:
            return None
        pairs = [(str(k), str(v)) for r in parts for k, v in r["ask"].get("query", [])]
        if any(k == "order" and v != "id" for k, v in pairs):
            return None  # only the Ticket column's order is known here (ids never tie)
        rows = [t for t in query_rows(self.tickets, pairs) if str(t["summary"]) in self.unique]
        if len(rows) != len(query_rows(self.tickets, pairs)) or not rows:
            return None  # a list with a summary twice: an open by name could take either
        made = getattr(self, f"_{kind}")(rows, pairs, rng)
        if made is None:
            return None
        goal, ids = made
        key = chain_key(SITE, [p["id"] for p in parts] + [f"goal-{kind}", *ids])
        return {"key": key, "site": SITE, "parts": constraint_parts(parts), "goal": goal}

    # ── the steps ──

    def _read(self, t: Row, field: str) -> GoalStep:
        value = _opened(t) if field == "time" else str(t[field])
        check: Check = {"kind": "answer", "expected": value, "number": False}
        return {"do": "read", "page": HOME_QUERY, "name": str(t["summary"]), "check": check,
                "label": _label(field), "field": field, "read": _where(field)}  # fmt: skip

    def _open(self, t: Row) -> GoalStep:
        check: Check = {"kind": "visited", "path": f"{ENTRIES}{t['id']}", "last": True}
        return {
            "do": "open",
            "page": HOME_QUERY,
            "name": str(t["summary"]),
            "check": check,
            "entries": ENTRIES,
        }

    def _find(self, t: Row) -> GoalStep:
        name = str(t["summary"])
        return {"do": "find", "page": HOME_QUERY, "name": name, "check": {"kind": "answer", "expected": name},
                "read": TOP_READ}  # fmt: skip

    def _fields(self, t: Row, pairs: Sequence[tuple[str, str]], rng: random.Random) -> list[str]:
        """One or two fields to read: shown on the ticket's page, not set by a constraint."""
        set_ = {k for k, _ in pairs}
        cols = [f for f in READABLE if f not in set_ and str(t[f])]
        return rng.sample(cols, min(rng.choice(FIELDS), len(cols))) if cols else []

    def _found(self, rows: list[Row], pairs: Sequence[tuple[str, str]]) -> Row | None:
        """The ticket the constraints leave first by the Ticket sort, or alone."""
        return rows[0] if ("order", "id") in pairs or len(rows) == 1 else None

    # ── the kinds ──

    def _detail(self, rows: list[Row], pairs: Sequence[tuple[str, str]], rng: random.Random) -> tuple[ChainGoal, list[str]] | None:  # fmt: skip
        t = self._found(rows, pairs)
        fields = self._fields(t, pairs, rng) if t is not None else []
        if t is None or not fields:
            return None
        reads = [self._read(t, f) for f in fields]
        steps = [self._find(t), self._open(t), *reads]
        expected = " and ".join(str(s["check"].get("expected", "")) for s in reads)
        return {"kind": "detail", "page": HOME_QUERY, "expected": expected, "steps": steps}, [
            str(t["id"]),
            *fields,
        ]

    def _lookup(self, rows: list[Row], pairs: Sequence[tuple[str, str]], rng: random.Random) -> tuple[ChainGoal, list[str]] | None:  # fmt: skip
        if len(rows) > PAGE_SIZE or ("order", "id") in pairs:
            return None  # a named ticket: a filtered list on one page, no order a user would not ask for
        t = rng.choice(rows)
        fields = self._fields(t, pairs, rng)
        if not fields:
            return None
        reads = [self._read(t, f) for f in fields]
        expected = " and ".join(str(s["check"].get("expected", "")) for s in reads)
        goal: ChainGoal = {"kind": "lookup", "page": HOME_QUERY, "expected": expected,
                           "steps": [self._open(t), *reads]}  # fmt: skip
        return goal, [str(t["id"]), *fields]

    def _compare(self, rows: list[Row], pairs: Sequence[tuple[str, str]], rng: random.Random) -> tuple[ChainGoal, list[str]] | None:  # fmt: skip
        if len(rows) > PAGE_SIZE or len(rows) < 2 or ("order", "id") in pairs:
            return None
        a, b = rng.sample(rows, 2)
        if _opened(a) == _opened(b):
            return None  # the page shows the date: two tickets of one day do not compare
        later = a if _opened(a) > _opened(b) else b
        steps = [self._open(a), self._read(a, "time"), self._open(b), self._read(b, "time")]
        goal: ChainGoal = {"kind": "compare", "page": HOME_QUERY, "expected": str(later["summary"]),
                           "steps": steps}  # fmt: skip
        return goal, [str(a["id"]), str(b["id"]), "time"]

    def _act(self, rows: list[Row], pairs: Sequence[tuple[str, str]], rng: random.Random) -> tuple[ChainGoal, list[str]] | None:  # fmt: skip
        t = self._found(rows, pairs)
        if t is None:
            return None
        field = rng.choice([f for f in EDITABLE if f not in {k for k, _ in pairs}])
        value = rng.choice([v for v in self.values[field] if v != str(t[field])])
        moves: list[GoalMove] = [
            {"action": "click", "attrs": {"id": "no3"}, "memory": "Opening the Modify Ticket section."},
            {"action": "select", "attrs": {"id": f"field-{field}"}, "value": value,
             "memory": f"Choosing {value}."},
            {"action": "click", "attrs": {"name": "submit"}, "memory": "Saving the change."},
        ]  # fmt: skip
        check: Check = {
            "kind": "entry_updated",
            "table": "ticket",
            "id": str(t["id"]),
            "fields": {field: value},
        }
        edit: GoalStep = {"do": "edit", "page": HOME_QUERY, "name": str(t["summary"]), "check": check,
                          "label": _label(field), "field": field, "value": value, "moves": moves}  # fmt: skip
        steps = [self._find(t), self._open(t), edit]
        goal: ChainGoal = {"kind": "act", "page": HOME_QUERY, "expected": str(t["summary"]), "steps": steps}
        return goal, [str(t["id"]), field, value]


def _opened(t: Row) -> str:
    """The date a ticket was opened, as its page shows it (Trac stores microseconds since the epoch, UTC)."""
    return dt.datetime.fromtimestamp(int(t["time"] or 0) / 1e6, dt.UTC).strftime("%Y-%m-%d")


def kinds(seed: int, size: int) -> TracGoals:
    """The goal kinds of the Trac seeded with (seed, size tickets): read by `plandvc.eval.apps.app_kinds`."""
    from plandvc.apps.trac.tasks import offer

    env = adapter.template(seed, size)
    o = offer(env)
    values = {"component": o.components, "priority": o.priorities, "milestone": o.milestones}
    return TracGoals(adapter.tickets(env, with_time=True), values)
