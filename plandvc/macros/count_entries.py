"""count_entries: filter a list page by one value and answer with how many rows it shows."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import replace

from plandvc.macros.macro import question
from plandvc.macros.make import TaskMaker, count, page_params
from plandvc.macros.script import Executor
from plandvc.records import TaskDraft

PHRASES = (
    'How many {plural} have {label} "{value}"?',
    'Count the {plural} whose {label} is "{value}".',
    'Tell me how many {plural} there are with {label} "{value}".',
)


def tasks(make: TaskMaker, rng: random.Random) -> Iterator[TaskDraft]:
    for p, c in list(make.controls("dropdown")) + list(make.controls("options")):
        t, lp = make.table(p), make.list_path(p)
        for v in list(t.column(str(c.column)).values):
            n = count(p, t, [(str(c.param), v)])
            if n == 0:
                continue
            yield make.task(
                p,
                make.url_start(lp, rng),
                {"control_id": c.control_id, "role": c.kind, "prep": {}},
                {"kind": "answer", "expected": str(n), "number": True},
                [f"query:{lp}:{q}" for q in page_params(p)] + [f"table:{p.table}"],
                {**make.words(p), "label": c.label, "value": v},
                rng,
                control_id=c.control_id,
                value=v,
            )


async def solve(run: Executor) -> None:
    c = await run.list_control()
    v = run.target["value"]
    if c.kind == "dropdown":
        await run.choose(c, v, f'Choosing "{v}" in the {c.label} filter to count those rows.')
    else:
        await run.tick(c, v, f'Ticking "{v}" under {c.label} to count those rows.')
    n = await run.applied(c)
    run.rec.done = f'I filtered the {run.table.title.lower()} to {c.label} "{v}": {n} {run.noun(n)} shown, so the answer is {n}.'
    run.rec.answer = str(n)


MACRO = replace(
    question("count_entries", frozenset({"query", "table"}), PHRASES, tasks, solve),
    goal_steps=frozenset({"count"}),
    app_order=6,
)
