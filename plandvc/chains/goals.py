"""Goal chains: 1–3 constraints that stay on one list page (filters, a search, a sort), then a question answered
from the state they leave there, so the answer depends on every step before it.

The ending is no pool trajectory: its expected answer is computed here by the site's own query semantics
(`plandvc.sites.query.select_rows`) over the (param, value) pairs the constraints leave on the page, and at run
time the Information specialist reads it off the page as it is (`plandvc.run.goal`); the answer's gate compares
the two, so a constraint that did not hold fails the chain. Two kinds:
- `count`: how many entries the list shows (some, but not all of the table);
- `top`: the name of the first entry after the chain's sort on a number or a date column (only when that entry
  is first by its value alone, not by a tie); a chain with a sort always asks this (a count does not depend on
  the order, so a sort before it would be a step the request does not ask for).

One `random.Random` of the seed drives the walk in one fixed order of draws; sites take turns in sorted order.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import partial
from typing import Any

from plandvc.chains.walk import chain_key
from plandvc.macros import GOAL_MACROS
from plandvc.records import ChainGoal, ChainPart, ChainSpec, ItemRecord
from plandvc.sites.model import Page, Spec, Table
from plandvc.sites.query import BadValue, select_rows

CONSTRAINTS = (1, 2, 3)
# a site's goal: (the constraints, the kind) -> the goal with its expected answer, or None (no single right one)
Answer = Callable[[Sequence[ItemRecord], str], ChainGoal | None]


def _usable(r: ItemRecord) -> bool:
    """A record a goal chain can use: a constraint recorded from a fresh start on its own list page."""
    ask = r.get("ask")
    return (
        ask is not None
        and r["macro"] in GOAL_MACROS
        and r["fresh"]
        and r["stays"]
        and "query" in ask
        and r["start"].endswith("/" + ask["page"])
    )


def _pick(cands: Sequence[ItemRecord], k: int, rng: random.Random) -> list[ItemRecord]:
    """Up to k records of different controls with disjoint scopes, in a seeded order."""
    order = list(cands)
    rng.shuffle(order)
    got: list[ItemRecord] = []
    controls: set[str | None] = set()
    scopes: set[str] = set()
    for r in order:
        if r["control"] in controls or not scopes.isdisjoint(r["scope"]):
            continue
        got.append(r)
        controls.add(r["control"])
        scopes |= set(r["scope"])
        if len(got) == k:
            break
    return got


def list_rows(parts: Sequence[ItemRecord], spec: Spec) -> tuple[Page, Table, list[dict[str, Any]]] | None:
    """The list page of these constraints, its table and the rows they leave on it (the site's query
    semantics, in their order); None when the page is unknown or a value is malformed."""
    page = spec.page(parts[0]["ask"]["page"])
    if page is None:
        return None
    table = spec.table_of(page)
    pairs = [(k, v) for r in parts for k, v in r["ask"].get("query", [])]
    try:
        return page, table, select_rows(page, table, list(table.rows), pairs)
    except BadValue:
        return None


def goal_of(parts: Sequence[ItemRecord], spec: Spec, kind: str) -> ChainGoal | None:
    """The goal `kind` of these constraints on their list page, its answer computed by the site's query
    semantics; None when it has no single right answer there."""
    got = list_rows(parts, spec)
    if got is None:
        return None
    page, table, rows = got
    path = f"/sites/{spec.site}/{page.page}"
    if kind == "count":
        if not 0 < len(rows) < len(table.rows):
            return None
        return {"kind": "count", "page": path, "expected": str(len(rows))}
    sort = next((r["ask"] for r in parts if r["macro"] == "sort_by_form"), None)
    if sort is None or sort.get("type") not in ("number", "date") or not rows:
        return None
    column = next(c for c in table.columns if c.label == sort.get("label"))
    first = rows[0][column.name]
    if len(rows) > 1 and rows[1][column.name] == first:
        return None  # a tie: the first entry is first by the table's order, not by the asked value
    value = str(int(first)) if isinstance(first, float) and first.is_integer() else str(first)
    return {"kind": "top", "page": path, "expected": str(rows[0][table.label]), "value": value}


def site_answers(specs: Mapping[str, Spec]) -> dict[str, Answer]:
    """Each generated site's goals, answered by its spec's query semantics (`goal_of`)."""
    return {site: partial(_spec_goal, spec) for site, spec in specs.items()}


def _spec_goal(spec: Spec, parts: Sequence[ItemRecord], kind: str) -> ChainGoal | None:
    return goal_of(parts, spec, kind)


def usable_by_start(
    records: Iterable[ItemRecord], sites: Iterable[str]
) -> dict[str, dict[str, list[ItemRecord]]]:
    """The constraints a goal chain can use (`_usable`), by site and by the list page they start on."""
    wanted = set(sites)
    by_start: dict[str, dict[str, list[ItemRecord]]] = defaultdict(lambda: defaultdict(list))
    for r in sorted(records, key=lambda r: r["id"]):
        if r["site"] in wanted and _usable(r):
            by_start[r["site"]][r["start"]].append(r)
    return by_start


def pick_constraints(starts: Mapping[str, Sequence[ItemRecord]], rng: random.Random) -> list[ItemRecord]:
    """1–3 constraints on one list page, drawn in the goal chains' fixed order (a page, a size, the records)."""
    page = rng.choice(sorted(starts))
    return _pick(starts[page], rng.choice(CONSTRAINTS), rng)


def take_turns(
    sites: Sequence[str], n: int, tries: int, attempt: Callable[[str], ChainSpec | None]
) -> list[ChainSpec]:
    """Up to n chains, sites taking turns in their order, each turn up to `tries` attempts; a site whose tries
    all fail three rounds running drops out."""
    left, misses = list(sites), dict.fromkeys(sites, 0)
    out: list[ChainSpec] = []
    while len(out) < n and left:
        for site in list(left):
            if len(out) >= n:
                break
            made = next((c for _ in range(tries) if (c := attempt(site)) is not None), None)
            if made is not None:
                out.append(made)
            else:
                misses[site] += 1
                if misses[site] >= 3:
                    left.remove(site)
    return out


def goal_chains(
    records: Iterable[ItemRecord],
    answers: Mapping[str, Answer],
    n: int,
    seed: int = 0,
    tries: int = 40,
    kind: str | None = None,
) -> list[ChainSpec]:
    """Up to n goal chains `{key, site, parts, goal}` on the sites of `answers` (each site's goal answerer: its
    spec's query semantics, or an app's database), sites taking turns in sorted order; a site whose tries all
    fail three rounds running drops out. `kind` None: a chain with a sort asks `top`, one without `count`; a
    kind: only chains of that kind (`plandvc.chains.goal_kinds`' mix, drawn by its own seed)."""
    by_start = usable_by_start(records, answers)
    rng = random.Random(f"goals:{seed}" if kind is None else f"goals:{seed}:{kind}")
    seen: set[str] = set()

    def attempt(site: str) -> ChainSpec | None:
        parts = pick_constraints(by_start[site], rng)
        got = "top" if any(p["macro"] == "sort_by_form" for p in parts) else "count"
        if kind is not None and got != kind:
            return None
        goal = answers[site](parts, got) if parts else None
        key = chain_key(site, [p["id"] for p in parts] + [f"goal-{got}"])
        if goal is None or key in seen:
            return None
        seen.add(key)
        return {"key": key, "site": site, "parts": constraint_parts(parts), "goal": goal}

    return take_turns(sorted(by_start), n, tries, attempt)


def constraint_parts(parts: Sequence[ItemRecord]) -> list[ChainPart]:
    """The chain's parts for these constraints: the first starts the chain, each next one on its page."""
    return [{"id": p["id"], "via": None if i == 0 else "page"} for i, p in enumerate(parts)]
