"""open_entry: open one entry's detail page by its link on the list page."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import replace

from plandvc.macros.macro import navigation
from plandvc.macros.make import TaskMaker, page_params
from plandvc.macros.script import Executor
from plandvc.records import TaskDraft

PHRASES = (
    'Open the {singular} "{entry}".',
    'Go to the details of the {singular} "{entry}".',
    'Show the detail page of the {singular} "{entry}".',
)


def tasks(make: TaskMaker, rng: random.Random) -> Iterator[TaskDraft]:
    for p in make.pages:
        t, lp = make.table(p), make.list_path(p)
        for r in list(t.rows):
            rid = str(r[t.key])
            for s in (lp, lp, make.home):
                yield make.task(
                    p,
                    s,
                    {"control_id": f"{p.page}-row-{rid}", "role": "entry", "prep": {}},
                    {"kind": "visited", "path": make.detail_path(p, rid), "last": True},
                    [f"query:{lp}:{q}" for q in page_params(p)],
                    {**make.words(p), "entry": str(r[t.label])},
                    rng,
                    entry=rid,
                )


async def solve(run: Executor) -> None:
    await run.to_entry(run.target["entry"])
    label = run.row(run.target["entry"])[run.table.label]
    run.rec.done = f'I opened the {run.table.singular} "{label}"; its detail page is shown.'


MACRO = replace(
    navigation(
        "open_entry", PHRASES, tasks, solve, scope=frozenset({"query"}), mid_chain_after="filter_by_dropdown"
    ),
    goal_steps=frozenset({"open"}),
    pieces=frozenset({"pagination"}),
    app_order=4,
)
