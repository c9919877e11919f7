"""Recovery chains in filter-rows: their rows' roles checked against the episode, and their counts.

A recovery chain's episode has `failure` {part, kind, sibling?}; every turn has a `role` (`normal`, or
`after_failure` for the turn that saw the failed attempt's report and re-delegated), the failed attempt's
turn says `fails`, and every row carries its turn's role. A chain without a failure has no roles at all (its
rows are `normal`), so a run without recovery is checked and written exactly as before: every key added
here is added only when a recovery chain is there.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import TypedDict

from plandvc.records import ChainResult, Episode, FailureKind, Row

ROLES = ("normal", "after_failure")


class KindCount(TypedDict):
    """Recovery chains of one failure kind: run, ok, kept, and the kept rate."""

    chains_raw: int
    ok_raw: int
    kept: int
    kept_rate: float


class RecoveryRecord(TypedDict):
    """The manifest's `recovery` (only in a version whose run had recovery chains): chains by failure kind,
    the recovery chains kept, and the kept rows by role."""

    by_kind: dict[str, KindCount]
    chains_kept: int
    rows_by_role: dict[str, int]


def recovery_problem(episode: Episode, rows: list[Row]) -> str | None:
    """The first way a chain's roles disagree with its episode, or None: without a failure no turn or row has
    a role; with one, every turn and row has its role, exactly one turn fails (of the failure's kind) and the
    next turn re-delegates to the same family and macro as `after_failure`."""
    turns = episode["turns"]
    failure = episode.get("failure")
    for t, (turn, row) in enumerate(zip(turns, rows, strict=False)):
        if row.get("role") != turn.get("role"):
            return f"row {t}: role {row.get('role')!r} but the turn's role is {turn.get('role')!r}"
        if failure is not None and turn.get("role") not in ROLES:
            return f"episode.json: turn {t} of a recovery chain has role {turn.get('role')!r}"
    if failure is None:
        extra = [t for t, x in enumerate(turns) if "role" in x or "fails" in x]
        return f"episode.json: turn {extra[0]} has a role but the chain has no failure" if extra else None
    fails = [t for t, x in enumerate(turns) if "fails" in x]
    after = [t for t, x in enumerate(turns) if x.get("role") == "after_failure"]
    if len(fails) != 1 or after != [fails[0] + 1]:
        return f"episode.json: failed turns {fails} and recovery turns {after}, expected one each, in a row"
    bad, redo = turns[fails[0]], turns[after[0]]
    if bad["fails"] != failure.get("kind"):
        return f"episode.json: turn {fails[0]} fails as {bad['fails']!r}, the chain's failure is {failure.get('kind')!r}"
    if (redo["kind"], redo.get("family"), redo.get("macro")) != (
        "delegate",
        bad.get("family"),
        bad.get("macro"),
    ):
        return f"episode.json: turn {after[0]} does not re-delegate to the failed turn's family and macro"
    return None


class IndexFields(TypedDict, total=False):
    """What the manifest's index adds for a chain: its failure kind, only for a recovery chain."""

    failure: FailureKind


def index_fields(episode: Episode) -> IndexFields:
    """What the dataset manifest's index adds for a chain: its failure kind, only for a recovery chain."""
    failure = episode.get("failure")
    return {"failure": failure["kind"]} if failure is not None else {}


def recovery_counts(results: Iterable[ChainResult], kept: dict[str, list[Row]]) -> RecoveryRecord | None:
    """Recovery chains by failure kind (raw, ok, kept, kept rate) and the rows by role, or None when the run
    has no recovery chain. `kept`: the kept chains' rows by key."""
    results = list(results)
    recovering = [r for r in results if r.get("failure")]
    if not recovering:
        return None
    by_kind: dict[str, KindCount] = {}
    for r in recovering:
        g = by_kind.setdefault(str(r["failure"]), {"chains_raw": 0, "ok_raw": 0, "kept": 0, "kept_rate": 0.0})
        g["chains_raw"] += 1
        g["ok_raw"] += r["ok"]
        g["kept"] += r["key"] in kept
    for g in by_kind.values():
        g["kept_rate"] = round(g["kept"] / g["chains_raw"], 4)
    roles = Counter(str(row.get("role") or "normal") for rows in kept.values() for row in rows)
    return {
        "by_kind": dict(sorted(by_kind.items())),
        "chains_kept": sum(g["kept"] for g in by_kind.values()),
        "rows_by_role": {role: roles[role] for role in ROLES},
    }
