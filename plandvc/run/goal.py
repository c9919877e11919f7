"""A goal chain's ending, performed live: the Information specialist reads the answer off the list page as the
chain's constraints left it, and its trajectory is what it read (no action, a report and the answer).

The expected answer was computed by chain-specs from the site's query semantics (`plandvc.chains.goals`); the
reading here never sees it. The answer's gate (`goal_check`) compares the two, so a constraint that did not hold
(a filter not applied, a sort the other way) shows another count or another first entry and fails the chain.
- `count`: the number in the list's "Showing N ..." line;
- `top`: the text of the first link to an entry of the list (`<list path>/<id>`), in document order.
An app's goal says where its page shows them (`read`: a selector, and for a count the number's pattern).
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from plandvc.browser.protocol import SessionProtocol
from plandvc.checks import Check
from plandvc.records import ChainGoal, Trajectory

_SHOWING = re.compile(r"Showing\s+([\d,]+)")
MACRO = {"count": "count_entries", "top": "report_information"}  # the macro a goal step's turn is counted as


class GoalUnread(Exception):
    """The page does not show what the goal step reads (no count line, no entry link)."""


def goal_check(goal: ChainGoal) -> Check:
    """The goal's gate: the answer given, against the expected one (a number for a count)."""
    return {"kind": "answer", "expected": goal["expected"], "number": goal["kind"] == "count"}


def _is_entry(href: str, page: str) -> bool:
    path = urlsplit(href).path
    rest = path[len(page) + 1 :] if path.startswith(page + "/") else ""
    return bool(rest) and "/" not in rest and rest not in ("new", "create")


def unread_goal(
    goal: ChainGoal, site: str, answer: str | None = None, done: str = "", end: str = ""
) -> Trajectory:
    """A goal step's trajectory: before the reading, none read (`answer` None); after it, what was read."""
    return {
        "answer": answer,
        "done": done,
        "end": end,
        "history_macro": None,
        "macro": MACRO[goal["kind"]],
        "site": site,
        "start_kind": "mid_chain",
        "steps": [],
        "task_id": f"goal-{goal['kind']}",
    }


async def read_goal(session: SessionProtocol, goal: ChainGoal, site: str) -> Trajectory:
    """What the Information specialist reads for `goal` on the page as it is, as its trajectory."""
    read = goal.get("read")
    if goal["kind"] == "count":
        pattern = re.compile(read["pattern"]) if read is not None and "pattern" in read else _SHOWING
        lines = [t for _, t in await session.read(read["selector"] if read is not None else "p.count")]
        m = next((m for t in lines if (m := pattern.search(t))), None)
        if m is None:
            raise GoalUnread(f"no count ({pattern.pattern}) on {session.url}")
        answer = m.group(1).replace(",", "")
        done = f"The list shows {answer} entries now, so the answer is {answer}."
    else:
        found = await session.read(read["selector"] if read is not None else "main a[href]")
        links = [(h, t) for h, t in found if (read is not None or _is_entry(h, goal["page"])) and t]
        if not links:
            raise GoalUnread(f"no entry of {goal['page']} listed on {session.url}")
        answer = links[0][1]
        done = f"The first entry of the list as it is sorted now is {answer}."
    return unread_goal(goal, site, answer, done, session.url)
