"""filter_by_options: tick one or two values of a list page's checkbox filter (one, where the site draws it as
radios) and apply it."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

from plandvc.macros.macro import url_state
from plandvc.macros.make import Choice, control_tasks, count
from plandvc.macros.script import Executor
from plandvc.sites.spec import Control, Page, Table

PHRASES = (
    "Show only the {plural} whose {label} is {values}.",
    "Filter the {plural} to {label} {values} using the checkboxes.",
    "Tick {values} under {label} to list only those {plural}.",
)


def choices(p: Page, c: Control, t: Table) -> Iterator[Choice]:
    """Each value that some row has, and each pair of them where the control takes several."""
    vals = [v for v in t.column(str(c.column)).values if count(p, t, [(str(c.param), v)])]
    pairs = [[a, b] for i, a in enumerate(vals) for b in vals[i + 1 :]] if c.multiple else []
    combos = [[v] for v in vals] + pairs  # radios hold one value
    for combo in combos:
        words = {"label": c.label, "values": " or ".join(f'"{v}"' for v in combo)}
        yield Choice({str(c.param): combo}, words, {"values": combo})


async def solve(run: Executor) -> None:
    c = await run.list_control()
    values = list(run.target["values"])
    for v in values:
        await run.tick(c, v, f'Ticking "{v}" under {c.label}.')
    said = " or ".join(f'"{v}"' for v in values)
    run.rec.done = run.filtered(f"{c.label} {said}", await run.applied(c))


MACRO = replace(
    url_state("filter_by_options", "Filter", PHRASES, control_tasks("options", choices), solve),
    narrows_list=True,
    goal_constraint=True,
    toggles=True,
    app_order=10,
    delegations=(
        ("checkboxes", "Tick {vs} under {L} and apply the filter."),
        ("chips", "Select the {vs} chip under {L}."),
        ("radios", "Select the {vs} option under {L}."),
        ("facets", "Click {vs} under {L} in the sidebar of {the_p}."),
    ),
)
