"""Goal kinds that use what the team finds (`chains.goal_kinds`): goals whose later steps need an entry or a
value only an earlier step reveals, made on the generated sites by construction from their specs.

- `detail`: 1–3 constraints on a list (goal chains' constraints) -> the entry they leave first (by a sort on a
  number or a date, no tie) or alone -> the Information specialist reads its name off the list (`find`) ->
  open it by that name (`open`) -> read one or two of its fields on its own page (`read`);
- `lookup`: the list page (a recorded navigation) -> a named entry shown on its first page -> open, read;
- `compare`: the list page -> two named entries of its first page -> the same number or date field of each
  -> which is higher (or later); the final message gives both values;
- `act`: constraints -> the entry found -> open it -> copy its copy field or delete it, gated on THAT entry
  (a copy's value is unique in its table, a delete is exclusive);
- `carry`: the list page -> a named entry of its first page -> open it -> read one field (a dropdown's value or a
  searchable text) -> narrow the list by THAT value (the dropdown set to it, or a search for it: the delegation
  carries the value read, the request never holds it) -> how many entries the list shows then; the narrowing
  is gated on the list's URL state with that value (`query`), the count on the site's query semantics;
- `count` and `top`: the v3 goals (`plandvc.chains.goals`), drawn by kind.

The steps after the constraints have no recorded trajectory: each is a `GoalStep`, its expected values from
the site's data, performed live by the scripted specialist and gated at run time (`plandvc.run.goal`). The
mix is `chains.goal_kinds`: `count,top` (v3: a chain with a sort asks `top`, one without `count`,
`plandvc.chains.goals.goal_chains` as it was) or shares `detail:0.45,lookup:0.2,...` of the goal chains. One
`random.Random` per kind, seeded apart, draws its chains; sites take turns in sorted order.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, cast, get_args

from plandvc.chains.goals import (
    constraint_parts,
    goal_chains,
    goal_of,
    list_rows,
    pick_constraints,
    site_answers,
    take_turns,
    usable_by_start,
)
from plandvc.chains.walk import chain_key
from plandvc.checks import Check
from plandvc.io import InputError
from plandvc.macros.widgets import grouped
from plandvc.records import ChainGoal, ChainSpec, GoalDo, GoalKind, GoalStep, ItemRecord
from plandvc.sites.art import format_value
from plandvc.sites.model import Column, Control, Page, Spec, Table
from plandvc.sites.query import BadValue, select_rows

# an app's goal kinds (an app package's `goals.kinds(seed, size)`): (the app's walk records, a kind, the kind's rng) -> one chain or None
AppKinds = Callable[[Sequence[ItemRecord], str, random.Random], ChainSpec | None]
V3_KINDS = "count,top"  # chains.goal_kinds' v3 value: the kind follows the constraints (a sort: top)
KINDS: tuple[str, ...] = get_args(GoalKind)
FIELDS = (1, 2)  # fields a detail or lookup goal reads
Row = dict[str, Any]


def parse_kinds(text: str) -> dict[str, float] | None:
    """`chains.goal_kinds` as {kind: share} (shares summing to 1), or None for the v3 value `count,top`."""
    if text.replace(" ", "") == V3_KINDS:
        return None
    mix: dict[str, float] = {}
    for item in text.split(","):
        kind, sep, share = item.strip().partition(":")
        if kind not in KINDS or not sep:
            raise InputError(
                f"goal_kinds: {item.strip()!r} is not kind:share with a kind of {', '.join(KINDS)} "
                f"(or the v3 value {V3_KINDS!r})"
            )
        try:
            mix[kind] = float(share)
        except ValueError:
            raise InputError(f"goal_kinds: {share!r} of {kind} is not a number") from None
        if not 0.0 <= mix[kind] <= 1.0:
            raise InputError(f"goal_kinds: the share of {kind} must be in [0, 1], got {share}")
    if abs(sum(mix.values()) - 1.0) > 1e-9:
        raise InputError(f"goal_kinds: the shares must sum to 1, got {sum(mix.values()):g}")
    return mix


def kind_counts(mix: Mapping[str, float], n: int) -> dict[str, int]:
    """n split by the shares, the remainders to the largest fractions (ties by the kinds' order)."""
    exact = {k: mix.get(k, 0.0) * n for k in KINDS}
    got = {k: int(v) for k, v in exact.items()}
    rest = sorted(KINDS, key=lambda k: (-(exact[k] - got[k]), KINDS.index(k)))
    for k in rest[: n - sum(got.values())]:
        got[k] += 1
    return {k: v for k, v in got.items() if v}


# ── the site's data ──────────────────────────────────────────────────────────


def shown(col: Column, value: Any) -> str:
    """A field as its entry page shows it ("$1,200.00", "12 km")."""
    return format_value(col, value)


def read_value(col: Column, value: Any) -> str:
    """A field's answer as the Information specialist reads it: the shown text, a number's unit left out."""
    text = shown(col, value)
    return text.removeprefix(col.prefix).removesuffix(col.suffix).strip() if col.type == "number" else text


def unique_names(table: Table) -> set[str]:
    """The entry names that name one entry of the table (an open by name is then unambiguous)."""
    names = [str(r[table.label]) for r in table.rows]
    return {n for n in names if names.count(n) == 1}


def first_page(spec: Spec, page: Page, table: Table) -> list[Row]:
    """The rows a list page shows before any control or page link is used."""
    rows = list(table.rows)
    size = spec.theme.page_size if spec.theme.pagination != "none" else 0
    return rows[:size] if size else rows


def step(do: GoalDo, path: str, name: str, check: Check, **more: str) -> GoalStep:
    made: GoalStep = {"do": do, "page": path, "name": name, "check": check}
    made.update(cast(GoalStep, more))
    return made


def open_step(path: str, table: Table, row: Row) -> GoalStep:
    """Open the entry by its name: gated on its own page being the last page the step left open."""
    entry = f"{path}/{row[table.key]}"
    return step("open", path, str(row[table.label]), {"kind": "visited", "path": entry, "last": True})


def read_step(path: str, table: Table, row: Row, col: Column) -> GoalStep:
    """Read one field of the entry on its page: gated on the value the site's data holds."""
    check: Check = {
        "kind": "answer",
        "expected": read_value(col, row[col.name]),
        "number": col.type == "number",
    }
    return step("read", path, str(row[table.label]), check, label=col.label, field=col.name)


def readable(table: Table, skip: Iterable[str] = ()) -> list[Column]:
    """The fields a goal may ask for: neither the key nor the name, nor a column a constraint set."""
    out = set(skip) | {table.key, table.label}
    return [c for c in table.columns if c.name not in out and c.name != table.text]


def answer_of(reads: Sequence[GoalStep]) -> str:
    """A goal's answer from its reads: the value, or both joined by "and" (as the final message lists them)."""
    return " and ".join(str(s["check"].get("expected", "")) for s in reads)


# ── the kinds ────────────────────────────────────────────────────────────────


class Maker:
    """One kind's chains on the generated sites: `attempt(site)` draws one chain or None (tried again)."""

    def __init__(self, kind: str, records: Sequence[ItemRecord], specs: Mapping[str, Spec], seed: int):
        self.kind, self.specs = kind, specs
        self.rng = random.Random(f"goal-kinds:{seed}:{kind}")
        self.constraints = usable_by_start(records, specs)
        self.nav: dict[str, dict[str, list[ItemRecord]]] = {}
        for r in sorted(records, key=lambda r: r["id"]):
            ask = r.get("ask")
            if r["macro"] == "navigate_to_page" and r["home_start"] and r["stays"] is False and ask:
                self.nav.setdefault(r["site"], {}).setdefault(ask["page"], []).append(r)
        self.seen: set[str] = set()

    def sites(self) -> list[str]:
        need = self.nav if self.kind in ("lookup", "compare", "carry") else self.constraints
        return sorted(s for s in need if s in self.specs)

    def chain(
        self, site: str, parts: Sequence[ItemRecord], goal: ChainGoal, ids: Sequence[str]
    ) -> ChainSpec | None:
        key = chain_key(site, [p["id"] for p in parts] + [f"goal-{self.kind}", *ids])
        if key in self.seen:
            return None
        self.seen.add(key)
        return {"key": key, "site": site, "parts": constraint_parts(parts), "goal": goal}

    def found(self, site: str) -> tuple[list[ItemRecord], Page, Table, Row, str] | None:
        """Constraints and the entry they leave first by a sort (no tie) or alone: (parts, page, table, row,
        the list's path), or None."""
        spec = self.specs[site]
        starts = self.constraints[site]
        parts = pick_constraints(starts, self.rng) if starts else []
        got = list_rows(parts, spec) if parts else None
        if got is None:
            return None
        page, table, rows = got
        sort = next((r["ask"] for r in parts if r["macro"] == "sort_by_form"), None)
        if not rows or str(rows[0][table.label]) not in unique_names(table):
            return None
        if sort is not None:
            if sort.get("type") not in ("number", "date"):
                return None
            column = next(c for c in table.columns if c.label == sort.get("label"))
            if len(rows) > 1 and rows[1][column.name] == rows[0][column.name]:
                return None
        elif len(rows) != 1:
            return None
        return parts, page, table, rows[0], f"/sites/{site}/{page.page}"

    def set_columns(self, site: str, parts: Sequence[ItemRecord], page: Page) -> set[str]:
        """The columns the constraints set or sort on (a goal does not ask for what the request gives)."""
        out: set[str] = set()
        for r in parts:
            ctrl = next((c for c in page.controls if c.control_id == r["control"]), None)
            if ctrl is not None and ctrl.column is not None:
                out.add(ctrl.column)
            out |= {k for k, _ in r["ask"].get("query", [])}
        return out

    def attempt(self, site: str) -> ChainSpec | None:
        made: Callable[[str], ChainSpec | None] = getattr(self, f"_{self.kind}")
        return made(site)

    def _detail(self, site: str) -> ChainSpec | None:
        got = self.found(site)
        if got is None:
            return None
        parts, page, table, row, path = got
        cols = readable(table, self.set_columns(site, parts, page))
        if not cols:
            return None
        picked = self.rng.sample(cols, min(self.rng.choice(FIELDS), len(cols)))
        name = str(row[table.label])
        steps = [
            step("find", path, name, {"kind": "answer", "expected": name}),
            open_step(path, table, row),
            *(read_step(path, table, row, c) for c in picked),
        ]
        expected = answer_of(steps[2:])
        goal: ChainGoal = {"kind": "detail", "page": path, "expected": expected, "steps": steps}
        return self.chain(site, parts, goal, [str(row[table.key]), *(c.name for c in picked)])

    def _act(self, site: str) -> ChainSpec | None:
        got = self.found(site)
        if got is None:
            return None
        parts, _page, table, row, path = got
        name = str(row[table.label])
        ways = (["copy"] if table.copy else []) + (["delete"] if table.delete else [])
        if not ways:
            return None
        way = self.rng.choice(ways)
        if way == "copy":
            copy = table.column(str(table.copy))
            value = shown(copy, row[copy.name])
            if [shown(copy, r[copy.name]) for r in table.rows].count(value) != 1:
                return None  # a copy of another entry would pass a gate on this value
            last = step("copy", path, name, {"kind": "clipboard", "value": value}, label=copy.label)
        else:
            check: Check = {"kind": "entry_deleted", "table": table.name, "id": str(row[table.key])}
            last = step("delete", path, name, check)
        steps = [
            step("find", path, name, {"kind": "answer", "expected": name}),
            open_step(path, table, row),
            last,
        ]
        goal: ChainGoal = {"kind": "act", "page": path, "expected": name, "steps": steps}
        return self.chain(site, parts, goal, [str(row[table.key]), way])

    def _navigation(self, site: str) -> tuple[ItemRecord, Page, Table, list[Row], str] | None:
        """A recorded navigation from home to a list page, and the named entries of its first page."""
        spec, by_page = self.specs[site], self.nav[site]
        nav = self.rng.choice(by_page[self.rng.choice(sorted(by_page))])
        page = spec.page(nav["ask"]["page"])
        if page is None:
            return None
        table = spec.table_of(page)
        names = unique_names(table)
        rows = [r for r in first_page(spec, page, table) if str(r[table.label]) in names]
        return nav, page, table, rows, f"/sites/{site}/{page.page}"

    def _lookup(self, site: str) -> ChainSpec | None:
        got = self._navigation(site)
        if got is None or not got[3]:
            return None
        nav, _page, table, rows, path = got
        row = self.rng.choice(rows)
        cols = readable(table)
        if not cols:
            return None
        picked = self.rng.sample(cols, min(self.rng.choice(FIELDS), len(cols)))
        steps = [open_step(path, table, row), *(read_step(path, table, row, c) for c in picked)]
        expected = answer_of(steps[1:])
        goal: ChainGoal = {"kind": "lookup", "page": path, "expected": expected, "steps": steps}
        return self.chain(site, [nav], goal, [str(row[table.key]), *(c.name for c in picked)])

    def _compare(self, site: str) -> ChainSpec | None:
        got = self._navigation(site)
        if got is None or len(got[3]) < 2:
            return None
        nav, _page, table, rows, path = got
        cols = [c for c in readable(table) if c.type in ("number", "date")]
        if not cols:
            return None
        col = self.rng.choice(cols)
        a, b = self.rng.sample(rows, 2)
        if a[col.name] == b[col.name] or read_value(col, a[col.name]) == read_value(col, b[col.name]):
            return None
        high = a if a[col.name] > b[col.name] else b
        steps = [
            open_step(path, table, a),
            read_step(path, table, a, col),
            open_step(path, table, b),
            read_step(path, table, b, col),
        ]
        goal: ChainGoal = {
            "kind": "compare",
            "page": path,
            "expected": str(high[table.label]),
            "steps": steps,
        }
        return self.chain(site, [nav], goal, [str(a[table.key]), str(b[table.key]), col.name])

    def _carry(self, site: str) -> ChainSpec | None:
        got = self._navigation(site)
        if got is None or not got[3]:
            return None
        nav, page, table, rows, path = got
        spec = self.specs[site]
        ways = [w for c in page.controls if (w := narrowing(spec, page, c)) is not None]
        if not ways:
            return None
        row = self.rng.choice(rows)
        control, action, apply = self.rng.choice(ways)
        name = str(row[table.label])
        cols = [table.column(str(control.column))] if action != "input" else [
            table.column(c) for c in control.columns if c not in (table.label, table.key, table.text)
        ]  # fmt: skip
        if not cols:
            return None
        col = self.rng.choice(cols)
        value = str(row[col.name])
        if shown(col, row[col.name]) != value or value.lower() in name.lower() or '"' in value:
            return None  # the value read is the value set, verbatim; the request (which names the entry) never holds it
        try:
            n = len(select_rows(page, table, list(table.rows), [(str(control.param), value)]))
        except BadValue:
            return None
        if not 1 < n < len(table.rows):
            return None  # the entry alone, or the whole list: the carried value narrows nothing
        read = read_step(path, table, row, col)
        read["reveals"] = True
        query: Check = {"kind": "query", "path": path, "params": {str(control.param): [value]}}
        narrow = step(
            "narrow", path, name, query, value=value, control=control.control_id, param=str(control.param),
            action=action, apply=apply, label=col.label, field=col.name,
        )  # fmt: skip
        count = step("count", path, name, {"kind": "answer", "expected": str(n), "number": True})
        steps = [open_step(path, table, row), read, narrow, count]
        goal: ChainGoal = {"kind": "carry", "page": path, "expected": str(n), "steps": steps}
        return self.chain(site, [nav], goal, [str(row[table.key]), col.name, control.control_id])


def narrowing(spec: Spec, page: Page, c: Control) -> tuple[Control, str, str] | None:
    """How a carry goal's scripted specialist sets control `c` to a value it read: (c, the action, the id of the
    button that applies it, "" when none does), or None for a control it does not set. The moves are the macros'
    scripted executor's (`plandvc.macros.script.Executor.choose`, `search_by_text`): a dropdown drawn as a
    select (`select`, then its Apply, the filter form's one Apply, or none when the form applies on change) or as
    a facet sidebar (`facet`: the value's own link), a search box (`input`, then its Apply). Not a listbox or an
    autocomplete search (their moves pass through a popup), nor the other kinds (no one value to carry)."""
    how = grouped(spec, c)
    if c.kind == "dropdown" and c.column is not None and how == "facets":
        return c, "facet", ""  # a v3 facet sidebar: the value's own link
    if c.kind == "dropdown" and c.implementation == "select" and c.column is not None:
        apply = {"form": f"{page.page}-filters-apply", "change": ""}.get(how or "", f"{c.control_id}-apply")
        return c, "select", apply
    if c.kind == "search" and c.implementation == "form" and c.columns:
        return c, "input", f"{c.control_id}-apply"
    return None


def kind_chains(
    records: Sequence[ItemRecord],
    specs: Mapping[str, Spec],
    n: int,
    goal_kinds: str = V3_KINDS,
    seed: int = 0,
    tries: int = 40,
    answers: Mapping[str, Callable[..., ChainGoal | None]] | None = None,
) -> list[ChainSpec]:
    """Up to n goal chains in the mix `goal_kinds` (the v3 value: `goal_chains` as it was), each kind's in
    turn (count, top, detail, lookup, compare, act, carry); the caller shuffles them in among the walked chains."""
    mix = parse_kinds(goal_kinds)
    answered = answers if answers is not None else site_answers(specs)
    if mix is None:
        return goal_chains(records, answered, n, seed=seed, tries=tries)
    out: list[ChainSpec] = []
    for kind, k in kind_counts(mix, n).items():
        if kind in ("count", "top"):
            out += goal_chains(records, answered, k, seed=seed, tries=tries, kind=kind)
            continue
        maker = Maker(kind, records, specs, seed)
        out += take_turns(maker.sites(), k, tries, maker.attempt)
    return out


# why a kind cannot be made on a site: what its chains need of the site's data and recorded parts
NEEDS = {
    "detail": "constraints that leave one entry first (by a sort, no tie) or alone, with a field left to read",
    "lookup": "a recorded navigation to a list whose first page shows an entry with a unique name",
    "compare": "two named entries of a list's first page whose number or date field differs",
    "act": "an entry found by constraints with a copy field no other entry has, or a delete",
    "carry": "a list control it can set to a value read (a select, a facet sidebar, a search form) that narrows "
    "the list to more than the entry and less than all",
    "count": "constraints that leave some but not all of a list",
    "top": "a sort on a number or a date that leaves one entry first without a tie",
}


def coverage(
    records: Sequence[ItemRecord],
    specs: Mapping[str, Spec],
    sites: Iterable[str],
    seed: int = 0,
    tries: int = 40,
) -> dict[str, dict[str, str]]:
    """Per site, the kinds that cannot be made there, each with what it needs (an empty mapping: every kind can
    be made): each kind drawn up to `tries` times on the site with its own seeded draws."""
    out: dict[str, dict[str, str]] = {}
    for site in sorted(sites):
        missing: dict[str, str] = {}
        for kind in NEEDS:
            if kind in ("count", "top"):
                rng = random.Random(f"coverage:{seed}:{kind}")
                starts = usable_by_start(records, [site]).get(site, {})
                made = starts and any(
                    goal_of(pick_constraints(starts, rng), specs[site], kind) is not None
                    for _ in range(tries)
                )
            else:
                maker = Maker(kind, records, specs, seed)
                made = site in maker.sites() and any(maker.attempt(site) is not None for _ in range(tries))
            if not made:
                missing[kind] = f"no {kind} chain in {tries} draws: it needs {NEEDS[kind]}"
        out[site] = missing
    return out


def app_kind_chains(
    records: Sequence[ItemRecord],
    answers: Mapping[str, Callable[..., ChainGoal | None]],
    kinds: Mapping[str, AppKinds],
    n: int,
    goal_kinds: str,
    seed: int = 0,
    tries: int = 40,
) -> list[ChainSpec]:
    """Up to n goal chains on applications in the mix `goal_kinds` (not the v3 value): count and top answered
    from each app's database (`answers`), the kinds that use what is found made by the app's own `kinds`, each
    kind's chains in turn from a `random.Random` of its own (as `kind_chains` does on the generated sites)."""
    mix = parse_kinds(goal_kinds)
    if mix is None:
        raise InputError(f"goal_kinds: {goal_kinds!r} is the v3 mix: use goal_chains")
    out: list[ChainSpec] = []
    for kind, k in kind_counts(mix, n).items():
        if kind in ("count", "top"):
            out += goal_chains(records, answers, k, seed=seed, tries=tries, kind=kind)
            continue
        rng = random.Random(f"goal-kinds:{seed}:{kind}")
        seen: set[str] = set()

        def attempt(
            site: str, kind: str = kind, rng: random.Random = rng, seen: set[str] = seen
        ) -> ChainSpec | None:
            made = kinds[site](records, kind, rng)
            if made is None or made["key"] in seen:
                return None
            seen.add(made["key"])
            return made

        out += take_turns(sorted(kinds), k, tries, attempt)
    return out


def carries(chain: ChainSpec) -> bool:
    """Whether a later step of the chain needs a value only an earlier step reveals (a found entry's name, or a
    value read that a carry goal narrows its list by)."""
    return any(s["do"] == "find" or s.get("reveals") for s in chain.get("goal", {}).get("steps", []))
