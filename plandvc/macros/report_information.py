"""report_information: read one field of an entry off its detail page and answer with it."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import replace

from plandvc.macros.macro import question
from plandvc.macros.make import TaskMaker, fmt
from plandvc.macros.script import Executor
from plandvc.records import TaskDraft

PHRASES = (
    'What is the {label} of the {singular} "{entry}"?',
    'Tell me the {label} of the {singular} "{entry}".',
    'Look up the {singular} "{entry}" and report its {label}.',
)
FROM_LIST_SHARE = 0.3  # of its tasks start on the list page, the rest on the entry's detail page


def tasks(make: TaskMaker, rng: random.Random) -> Iterator[TaskDraft]:
    for p, t in make.tables():
        cols = [c for c in t.columns if c.name not in (t.key, t.label)]
        for r in list(t.rows):
            rid = str(r[t.key])
            c = rng.choice(cols)
            start, scope = make.entry_start(p, rid, FROM_LIST_SHARE, rng)
            yield make.task(
                p,
                start,
                {"control_id": f"{p.page}-detail", "role": "table", "prep": {}},
                {"kind": "answer", "expected": fmt(r[c.name]), "number": c.type == "number"},
                scope,
                {**make.words(p), "entry": str(r[t.label]), "label": c.label},
                rng,
                entry=rid,
                column=c.name,
            )


async def solve(run: Executor) -> None:
    rid, name = run.target["entry"], run.target["column"]
    await run.to_entry(rid)
    col = run.table.column(name)
    shown = await run.field_text(name)
    answer = shown
    if col.type == "number":
        answer = shown.removeprefix(col.prefix).removesuffix(col.suffix).strip()
    label = run.row(rid)[run.table.label]
    run.rec.done = f'The {col.label} of the {run.table.singular} "{label}" is {shown}.'
    run.rec.answer = answer


MACRO = replace(
    question("report_information", frozenset({"query", "entry"}), PHRASES, tasks, solve, keeps_state=True),
    goal_steps=frozenset({"top", "find", "read"}),
    pieces=frozenset({"pagination"}),
    app_order=5,
)
