"""Which chains get a failure, at which part and of which kind (`assign_failures`), seeded.

A recovery chain is a chain whose part `part` fails at its first attempt, in one of three ways, and is then
done again after the planner's next turn re-delegates it (`plandvc.run.recovery` makes both). A part is chosen
for a kind only when that failure can be recognised (the part's own gate fails on the session right after
the attempt) and undone by the re-delegation (the final state carries nothing of it):

- `stopped_short` — the specialist stops at a cut before the part's last acting step and reports it could
  not finish (run-chains draws the cut among the honest ones with the chain's key: `plandvc.run.corrective`).
  Every part qualifies: the last recorded action is the one that applies, submits, opens, copies or answers,
  so without it the part's check fails, and the re-delegation does the actions left on the page as it is.
- `wrong_value` — the specialist does the same macro on the same control with another value (a `sibling`:
  a kept trajectory of the same site, macro, control and start page with another instruction) and reports
  what it did. Only parts whose value doing the step again replaces: filters and sorts (`query` checks, the
  page's query holds the value), a search (a new search replaces the text) and a count over a filter
  (a question that keeps no state). Not chosen: option checkboxes (`TOGGLES`: ticking the right option on
  top of the wrong one selects both), a created or edited entry (the site deletes nothing, so a wrong entry
  or a wrong field stays), a part on a stateful control (`stateful`: a calendar opens at the wrong date's
  month, a sort header flips the wrong direction, so the recorded steps do not redo the part), a copy (the clipboard keeps the wrong value), opening or reading an entry (the
  wrong entry's page is not where the part's own actions start) and plain navigation (it has no value).
- `lost_work` — the specialist fills the part's form and leaves the page without submitting it, and says
  so; the backend shows no change. Only parts that save a form (`entry_created`, `entry_updated` checks).

One `random.Random` seeded apart from the walk's draws picks, chain by chain in output order: whether the
chain gets a failure (`share`), then a kind of those its parts qualify for (kinds evenly, so the rarer ones
are not drowned by `stopped_short`), then a part that qualifies for it, then the sibling. The walk's
draws are untouched, so the chains are the same at every share and `share == 0` writes the chains of a run
without recovery byte for byte (a chain without a failure has no `failure` key).
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import get_args

from plandvc.io import InputError
from plandvc.macros import REGISTRY, TOGGLES
from plandvc.records import ChainFailure, ChainSpec, FailureKind, ItemRecord

KINDS: tuple[FailureKind, ...] = get_args(FailureKind)

SiblingKey = tuple[str, str, str | None, str]  # site, macro, control, start page


def redo_replaces(macro: str) -> bool:
    """Whether doing `macro` again with the right value replaces a wrong one (the `wrong_value` rule)."""
    m = REGISTRY.get(macro)
    if m is None or macro in TOGGLES:
        return False
    if m.check == "query":
        return True
    if m.check == "visited":
        return m.leaves_page  # a search: its page holds the text, a new search replaces it
    return m.check == "answer" and m.question and not m.keeps_state  # a count over a filter


def saves_form(macro: str) -> bool:
    """Whether `macro` saves a form to the backend (the `lost_work` rule)."""
    m = REGISTRY.get(macro)
    return m is not None and m.check in ("entry_created", "entry_updated")


def sibling_key(r: ItemRecord) -> SiblingKey:
    return (r["site"], r["macro"], r["control"], r["start"])


def siblings_of(items: Iterable[ItemRecord]) -> dict[SiblingKey, list[ItemRecord]]:
    """The records by (site, macro, control, start), each list in id order."""
    out: dict[SiblingKey, list[ItemRecord]] = defaultdict(list)
    for r in sorted(items, key=lambda r: r["id"]):
        out[sibling_key(r)].append(r)
    return out


def candidates(
    r: ItemRecord, siblings: dict[SiblingKey, list[ItemRecord]]
) -> list[tuple[FailureKind, list[str]]]:
    """The kinds of failure part `r` qualifies for, each with its siblings' ids (only `wrong_value` has any)."""
    out: list[tuple[FailureKind, list[str]]] = [("stopped_short", [])]
    if redo_replaces(r["macro"]) and not r.get("stateful"):
        others = [
            s["id"]
            for s in siblings.get(sibling_key(r), [])
            if s["id"] != r["id"] and s["instruction"] != r["instruction"]
        ]
        if others:
            out.append(("wrong_value", others))
    if saves_form(r["macro"]):
        out.append(("lost_work", []))
    return out


def assign_failures(
    chains: Sequence[ChainSpec],
    items: Iterable[ItemRecord],
    share: float,
    seed: int = 0,
    kinds: Sequence[str] = KINDS,
) -> list[ChainSpec]:
    """The chains, a `share` of them (drawn) with a `failure` {part, kind[, sibling]}; `kinds` limits the kinds
    drawn from. `share == 0` returns the chains unchanged and draws nothing."""
    if not 0.0 <= share <= 1.0:
        raise InputError(f"recovery_share: must be in [0, 1], got {share}")
    bad = [k for k in kinds if k not in KINDS]
    if bad:
        raise InputError(f"recovery kinds: unknown kind {bad[0]!r} (known: {', '.join(KINDS)})")
    if share == 0:
        return list(chains)
    items = list(items)
    by_id = {r["id"]: r for r in items}
    siblings = siblings_of(items)
    rng = random.Random(f"recovery:{seed}")
    out: list[ChainSpec] = []
    for chain in chains:
        if rng.random() >= share:
            out.append(chain)
            continue
        options = [
            (i, kind, sibs)
            for i, p in enumerate(chain["parts"])
            for kind, sibs in candidates(by_id[p["id"]], siblings)
            if kind in kinds
        ]
        if not options:
            out.append(chain)
            continue
        kind = rng.choice(sorted({k for _, k, _ in options}, key=KINDS.index))  # kinds evenly, then parts
        i, kind, sibs = rng.choice([o for o in options if o[1] == kind])
        failure: ChainFailure = {"part": i, "kind": kind}
        if sibs:
            failure["sibling"] = rng.choice(sibs)
        out.append({**chain, "failure": failure})
    return out


def count_failures(chains: Iterable[ChainSpec]) -> dict[str, int]:
    """Recovery chains by failure kind, for the stage's summary."""
    counts: dict[str, int] = dict.fromkeys(KINDS, 0)
    for c in chains:
        if "failure" in c:
            counts[c["failure"]["kind"]] += 1
    return counts
