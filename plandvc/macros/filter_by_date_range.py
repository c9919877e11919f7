"""filter_by_date_range: type a from and a to date into a list page's date range filter and apply it."""

from __future__ import annotations

import random
from collections.abc import Iterator

from plandvc.macros import widgets
from plandvc.macros.macro import url_state
from plandvc.macros.make import TaskMaker
from plandvc.macros.script import Executor
from plandvc.records import TaskDraft

PHRASES = (
    'Show only the {plural} with {label} from "{start}" to "{end}".',
    'Filter the {plural} to a {label} between "{start}" and "{end}".',
    'Limit the {plural} to {label} dates from "{start}" through "{end}".',
)


def tasks(make: TaskMaker, rng: random.Random) -> Iterator[TaskDraft]:
    for p, c in make.controls("date_range"):
        t = make.table(p)
        dates = sorted({str(r[str(c.column)]) for r in t.rows})
        for i in range(len(dates)):
            for j in range(i + 2, len(dates), 3):
                a, b = dates[i], dates[j]
                pa, pb = c.params
                words = {"label": c.label, "start": a, "end": b}
                yield make.list_task(p, c, rng, {pa: [a], pb: [b]}, words, start=a, end=b)


async def solve(run: Executor) -> None:
    c = await run.list_control()
    a, b = run.target["start"], run.target["end"]
    pa, pb = c.params
    if c.implementation == "calendar":
        await widgets.pick_dates(run, c, a, b)
    else:
        await run.on_field(
            "input", c, pa, f"{c.label} from date", f'Entering "{a}" as the start of {c.label}.', a
        )
        await run.on_field(
            "input", c, pb, f"{c.label} to date", f'Entering "{b}" as the end of {c.label}.', b
        )
    run.rec.done = run.filtered(f'{c.label} from "{a}" to "{b}"', await run.applied(c))


MACRO = url_state("filter_by_date_range", "Filter", PHRASES, tasks, solve)
