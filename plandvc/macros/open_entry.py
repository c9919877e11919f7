"""open_entry: open one entry's detail page by its link on the list page."""

from __future__ import annotations

import random

from plandvc.macros.macro import Macro
from plandvc.macros.make import TaskMaker, page_params
from plandvc.macros.script import Executor
from plandvc.records import TaskDraft

PHRASES = (
    'Open the {singular} "{entry}".',
    'Go to the details of the {singular} "{entry}".',
    'Show the detail page of the {singular} "{entry}".',
)


def tasks(make: TaskMaker, rng: random.Random) -> list[TaskDraft]:
    out = []
    for p in make.pages:
        t, lp = make.table(p), make.list_path(p)
        for r in list(t.rows):
            rid = str(r[t.key])
            for s in (lp, lp, make.home):
                out.append(
                    make.task(
                        p,
                        s,
                        {"control_id": f"{p.page}-row-{rid}", "role": "entry", "prep": {}},
                        {"kind": "visited", "path": make.detail_path(p, rid), "last": True},
                        [f"query:{lp}:{q}" for q in page_params(p)],
                        {**make.words(p), "entry": str(r[t.label])},
                        rng,
                        entry=rid,
                    )
                )
    return out


async def solve(run: Executor) -> None:
    await run.to_entry(run.target["entry"])
    label = run.row(run.target["entry"])[run.table.label]
    run.rec.done = f'I opened the {run.table.singular} "{label}"; its detail page is shown.'


MACRO = Macro(
    name="open_entry",
    family="Navigation",
    check="visited",
    scope=frozenset({"query"}),
    phrases=PHRASES,
    tasks=tasks,
    solve=solve,
    mid_chain_after="filter_by_dropdown",
)
