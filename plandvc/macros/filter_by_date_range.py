"""filter_by_date_range: type a from and a to date into a list page's date range filter and apply it."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

from plandvc.macros import widgets
from plandvc.macros.macro import url_state
from plandvc.macros.make import Choice, control_tasks
from plandvc.macros.script import Executor
from plandvc.sites.spec import Control, Page, Table

PHRASES = (
    'Show only the {plural} with {label} from "{start}" to "{end}".',
    'Filter the {plural} to a {label} between "{start}" and "{end}".',
    'Limit the {plural} to {label} dates from "{start}" through "{end}".',
)


def choices(p: Page, c: Control, t: Table) -> Iterator[Choice]:
    """Ranges between two of the rows' dates, each start with every third later date from two on."""
    dates = sorted({str(r[str(c.column)]) for r in t.rows})
    pa, pb = c.params
    for i in range(len(dates)):
        for j in range(i + 2, len(dates), 3):
            a, b = dates[i], dates[j]
            yield Choice({pa: [a], pb: [b]}, {"label": c.label, "start": a, "end": b}, {"start": a, "end": b})


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


MACRO = replace(
    url_state("filter_by_date_range", "Filter", PHRASES, control_tasks("date_range", choices), solve),
    narrows_list=True,
    goal_constraint=True,
    delegations=(
        ("inputs", 'Set {L} from "{a}" to "{b}" and apply it.'),
        ("calendar", 'Pick "{a}" to "{b}" for {L} in its calendar.'),
    ),
)
