"""filter_by_slider: set a list page's range slider to one of its steps and apply it."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

from plandvc.macros import widgets
from plandvc.macros.macro import url_state
from plandvc.macros.make import Choice, control_tasks, count, fmt
from plandvc.macros.script import Executor
from plandvc.sites.spec import Control, Page, Table

PHRASES = (
    "Show only the {plural} with {label} up to {value}.",
    "Set the {label} slider to {value}.",
    "Use the {label} slider to limit the {plural} to {value} at most.",
)


def choices(p: Page, c: Control, t: Table) -> Iterator[Choice]:
    """Each slider step that shows some rows but not all."""
    n = len(t.rows)
    lo, hi, step = float(c.min or 0), float(c.max or 0), float(c.step or 1)
    k = 1
    while lo + k * step < hi:
        v = fmt(lo + k * step)
        hits = count(p, t, [(str(c.param), v)])
        if 0 < hits < n:
            yield Choice({str(c.param): [v]}, {"label": c.label, "value": v}, {"value": v})
        k += 1


async def solve(run: Executor) -> None:
    c = await run.list_control()
    raw = run.target["value"]
    value: int | float = float(raw)
    value = int(value) if float(value).is_integer() else value
    if c.implementation == "numbers":
        await widgets.type_max(run, c, str(raw))
    else:
        await run.step(
            "set_range",
            run.control_id(c.control_id, type="range"),
            f"{c.label} slider",
            f"Setting the {c.label} slider to {raw}.",
            value,
        )
    n = await run.applied(c)
    what = f"the {c.label} slider" if c.implementation == "range" else f"{c.label} (maximum)"
    run.rec.done = f"I set {what} to {raw}; {n} {run.noun(n)} shown with {c.label} up to {raw}."


MACRO = replace(
    url_state("filter_by_slider", "Filter", PHRASES, control_tasks("slider", choices), solve),
    narrows_list=True,
    goal_constraint=True,
    delegations=(
        ("range", "Set the {L} slider to {v}."),
        ("numbers", "Enter {v} as the highest {L} and apply it."),
    ),
)
