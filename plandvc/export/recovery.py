"""Recovery chains in the exports: each example's role and its training weight, in each format's convention.

In a version with recovery chains (`role` in their rows) every example gets a `role` (`normal`, or
`after_failure` for the planner's re-delegation after a specialist failed) and a loss `weight`. Every planner
target is right by construction — the failure is the specialist's, and it reaches the planner only as the
report in the next prompt; even the failed attempt's own delegation asked the right thing — so the weight is
1 for every example: no target is masked, and a trainer that wants to up-weight recovery turns selects them
by `role`. The formats carry it as: hf and wds, columns `role` and `weight`; openai, the assistant message's
`weight` (its fine-tuning convention: 0 leaves a message out of the loss, 1 trains on it); llamafactory's
sharegpt has no per-example weight, so it carries neither. A version without recovery chains gets none of
these fields: its export is what it was.
"""

from __future__ import annotations

from typing import TypedDict

WEIGHT = 1.0  # every planner target is trained on (module docstring)


class RoleColumns(TypedDict, total=False):
    """The columns an example adds in hf and wds in a recovery version: its turn's role and its weight."""

    role: str
    weight: float


def meta(role: str | None) -> RoleColumns:
    """The columns an example adds in hf and wds: {role, weight}, or {} outside a recovery version."""
    return {} if role is None else {"role": role, "weight": WEIGHT}


def card_lines(roles: list[str | None]) -> list[str]:
    """The dataset card's section on recovery turns (none without them)."""
    if not any(roles):
        return []
    after = sum(r == "after_failure" for r in roles)
    return [
        "## Recovery turns",
        "",
        f"{after} of {len(roles)} examples are `after_failure` turns: in a recovery chain one delegation's",
        "specialist failed by construction (it stopped short, used a wrong value or left a form unsaved), the",
        "part's check failed on the backend right then, and the planner's next turn reads the report and the",
        "page and re-delegates. Every example has a `role` (`normal` or `after_failure`) and a `weight`:",
        "hf and wds as columns, openai as the assistant message's `weight`; llamafactory's sharegpt has no",
        "per-example weight. The weight is 1 everywhere: every target is right (the failure is the",
        "specialist's, seen only in the next prompt's report), so nothing is masked; select `after_failure`",
        "rows to up-weight recovery.",
        "",
    ]
