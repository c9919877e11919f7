"""filter-rows' duplicate rule: two chains are the same chain when they replay the same recorded parts, and for
a goal with live steps (issue 45's detail, lookup, compare, act) when they also ask the same goal: two lookups of
other entries share their one recorded part (the trip to the list) and are different chains."""

from __future__ import annotations

from typing import Any, cast

from plandvc.rows.dataset import _identity
from plandvc.rows.validate import Chain


def chain(goal: dict[str, Any] | None) -> Chain:
    episode = {"site": "s", "parts": ["p1"]} | ({"goal": goal} if goal is not None else {})
    return Chain(key="k", episode=cast(Any, episode), rows=[])


def lookup(name: str) -> dict[str, Any]:
    return {
        "kind": "lookup",
        "page": "/sites/s/items",
        "expected": "1",
        "steps": [{"do": "open", "name": name}],
    }


def test_lookups_of_other_entries_on_the_same_part_are_different_chains() -> None:
    assert _identity(["p1"], chain(lookup("Alpha"))) != _identity(["p1"], chain(lookup("Beta")))


def test_the_same_goal_on_the_same_part_is_the_same_chain() -> None:
    assert _identity(["p1"], chain(lookup("Alpha"))) == _identity(["p1"], chain(lookup("Alpha")))


def test_v3s_goals_and_walked_chains_are_their_parts_alone() -> None:
    """count and top goals have no steps: their identity is the parts, as it was (v3's rows unchanged)."""
    count = {"kind": "count", "page": "/sites/s/items", "expected": "3"}
    top = {"kind": "top", "page": "/sites/s/items", "expected": "Alpha"}
    assert _identity(["p1"], chain(count)) == _identity(["p1"], chain(top)) == ("p1",)
    assert _identity(["p1"], chain(None)) == ("p1",)
