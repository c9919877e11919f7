"""A toy macro written as a new macro module is: open a list page's new-entry form by its "New" link.

tests/test_macros.py registers it in a temporary registry (`plandvc.macros.registered`), standing in for the one
line of `_TABLE` a real macro adds, and records, chains and gates it end to end.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from plandvc.macros.macro import navigation
from plandvc.macros.make import TaskMaker
from plandvc.macros.script import Executor, attr
from plandvc.records import TaskDraft

PHRASES = (
    "Open the form for a new {singular}.",
    "Go to the page that adds a {singular}.",
    "Show the new {singular} form.",
)


def tasks(make: TaskMaker, rng: random.Random) -> Iterator[TaskDraft]:
    """From the list page, or from home, of every page whose table has a create form."""
    for p in make.pages:
        if not make.table(p).create:
            continue
        lp = make.list_path(p)
        for start in (lp, make.home):
            yield make.task(
                p,
                start,
                {"control_id": f"{p.page}-create", "role": "create_form", "prep": {}},
                {"kind": "visited", "path": f"{lp}/new", "last": True},
                [],
                make.words(p),
                rng,
            )


async def solve(run: Executor) -> None:
    await run.to_list()
    singular = run.table.singular
    await run.step(
        "click", attr("href", f"{run.list_url()}/new"), "New link", f"Opening the new {singular} form."
    )
    run.rec.done = f"I opened the form for a new {singular}."


OPEN_NEW_FORM = navigation("open_new_form", PHRASES, tasks, solve)
