"""filter_by_dropdown: choose one value in a list page's dropdown filter and apply it."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

from plandvc.macros.macro import url_state
from plandvc.macros.make import Choice, control_tasks, count
from plandvc.macros.script import Executor
from plandvc.sites.spec import Control, Page, Table

PHRASES = (
    'Show only the {plural} whose {label} is "{value}".',
    'Filter the {plural} by {label} "{value}".',
    'Use the {label} filter to list only {plural} with {label} "{value}".',
)


def choices(p: Page, c: Control, t: Table) -> Iterator[Choice]:
    """Each value of the dropdown that some row has."""
    for v in list(t.column(str(c.column)).values):
        if count(p, t, [(str(c.param), v)]):
            yield Choice({str(c.param): [v]}, {"label": c.label, "value": v}, {"value": v})


async def solve(run: Executor) -> None:
    c = await run.list_control()
    v = run.target["value"]
    await run.choose(c, v, f'Choosing "{v}" in the {c.label} filter.')
    run.rec.done = run.filtered(f'{c.label} "{v}"', await run.applied(c))


MACRO = replace(
    url_state(
        "filter_by_dropdown",
        "Filter",
        PHRASES,
        control_tasks("dropdown", choices),
        solve,
        mid_chain_after="navigate_to_page",
    ),
    narrows_list=True,
    goal_constraint=True,
    app_order=1,
    goal_steps=frozenset({"narrow:select", "narrow:facet"}),  # a carry goal's live narrowing
    delegations=(
        ("select", 'Choose "{v}" in the {L} dropdown of {the_p}.'),
        ("listbox", 'Pick "{v}" in the {L} list of {the_p}.'),
        ("facets", 'Click "{v}" under {L} in the sidebar of {the_p}.'),
    ),
)
