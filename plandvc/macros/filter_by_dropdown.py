"""filter_by_dropdown: choose one value in a list page's dropdown filter and apply it."""

from __future__ import annotations

import random
from collections.abc import Iterator

from plandvc.macros.macro import url_state
from plandvc.macros.make import TaskMaker, count
from plandvc.macros.script import Executor
from plandvc.records import TaskDraft

PHRASES = (
    'Show only the {plural} whose {label} is "{value}".',
    'Filter the {plural} by {label} "{value}".',
    'Use the {label} filter to list only {plural} with {label} "{value}".',
)


def tasks(make: TaskMaker, rng: random.Random) -> Iterator[TaskDraft]:
    for p, c in make.controls("dropdown"):
        t = make.table(p)
        for v in list(t.column(str(c.column)).values):
            if count(p, t, [(str(c.param), v)]):
                words = {"label": c.label, "value": v}
                yield make.list_task(p, c, rng, {str(c.param): [v]}, words, value=v)


async def solve(run: Executor) -> None:
    c = await run.list_control()
    v = run.target["value"]
    await run.choose(c, v, f'Choosing "{v}" in the {c.label} filter.')
    run.rec.done = run.filtered(f'{c.label} "{v}"', await run.applied(c))


MACRO = url_state("filter_by_dropdown", "Filter", PHRASES, tasks, solve, mid_chain_after="navigate_to_page")
