"""sort_by_form: choose a sort column and an order in a list page's sort form and apply it."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

from plandvc.macros import widgets
from plandvc.macros.macro import url_state
from plandvc.macros.make import Choice, control_tasks
from plandvc.macros.script import Executor
from plandvc.sites.spec import Control, Page, Table

PHRASES = (
    'Sort the {plural} by "{column}" in {direction} order.',
    'Order the {plural} by "{column}", {direction}.',
    'Use the sort form to sort the {plural} by "{column}" ({direction}).',
)


def choices(p: Page, c: Control, t: Table) -> Iterator[Choice]:
    """Each sortable column, each way."""
    ps, pd = c.params
    for col in c.columns:
        for d, word in (("asc", "ascending"), ("desc", "descending")):
            words = {"column": t.column(col).label, "direction": word}
            yield Choice({ps: [col], pd: [d]}, words, {"column": col, "dir": d})


async def solve(run: Executor) -> None:
    c = await run.list_control()
    ps, pd = c.params
    label = run.table.column(run.target["column"]).label
    word = "Ascending" if run.target["dir"] == "asc" else "Descending"
    memory = f'Choosing "{label}" as the sort column.'
    if c.implementation == "headers":
        await widgets.sort_by_headers(run, c, label, run.target["dir"])
    else:
        await run.on_field("select", c, ps, f"{c.label} column select", memory, label)
        await run.on_field(
            "select", c, pd, f"{c.label} order select", f"Choosing {word.lower()} order.", word
        )
        await run.apply(c.control_id, "Applying the sort.")
    run.rec.done = f'I sorted the {run.table.title.lower()} by "{label}" in {word.lower()} order.'


MACRO = replace(
    url_state(
        "sort_by_form",
        "Filter",
        PHRASES,
        control_tasks("sort", choices),
        solve,
        mid_chain_after="navigate_to_page",
    ),
    narrows_list=True,
    goal_constraint=True,
    app_order=2,
    delegations=(
        ("select", 'Sort {the_p} by "{L}", {dir}.'),
        ("headers", 'Sort {the_p} by the "{L}" column header, {dir}.'),
    ),
)
