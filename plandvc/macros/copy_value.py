"""copy_value: click an entry's copy button, which writes one of its fields to the clipboard."""

from __future__ import annotations

import random
from collections.abc import Iterator

from plandvc.macros.macro import Macro
from plandvc.macros.make import TaskMaker, fmt
from plandvc.macros.script import Executor, attr, every
from plandvc.records import TaskDraft

PHRASES = (
    'Copy the {label} of the {singular} "{entry}" to the clipboard.',
    'On the {singular} "{entry}", use the copy button to copy its {label}.',
    'Copy the {singular} "{entry}"\'s {label} with its copy button.',
)
FROM_LIST_SHARE = 0.25  # of its tasks start on the list page, the rest on the entry's detail page


def tasks(make: TaskMaker, rng: random.Random) -> Iterator[TaskDraft]:
    for p, t in make.tables():
        if not t.copy:
            continue
        for r in list(t.rows):
            rid = str(r[t.key])
            start, scope = make.entry_start(p, rid, FROM_LIST_SHARE, rng)
            yield make.task(
                p,
                start,
                {"control_id": f"{p.page}-copy", "role": "copy", "prep": {}},
                {"kind": "clipboard", "value": fmt(r[t.copy])},
                scope,
                {**make.words(p), "entry": str(r[t.label]), "label": t.column(t.copy).label},
                rng,
                entry=rid,
            )


async def solve(run: Executor) -> None:
    rid = run.target["entry"]
    await run.to_entry(rid)
    cid = f"{run.list_page.page}-copy"
    el = await run.find(run.control_id(cid), "copy button")
    value = el.attrs.get("data-copy", "")
    col = run.table.column(str(run.table.copy))
    await run.step(
        "click",
        every(run.control_id(cid), attr("data-copy")),
        "copy button",
        f"Clicking the copy button for the {col.label}.",
    )
    label = run.row(rid)[run.table.label]
    run.rec.done = (
        f'I copied the {col.label} "{value}" of the {run.table.singular} "{label}" to the clipboard.'
    )


# it stays on the entry's page and reads nothing of the query, so it can go on from a filtered list
MACRO = Macro(
    name="copy_value",
    family="Information",
    check="clipboard",
    scope=frozenset({"query", "entry"}),
    phrases=PHRASES,
    tasks=tasks,
    solve=solve,
    continues_page=True,
    keeps_state=True,
    mid_chain_after="open_entry",
    goal_steps=frozenset({"copy"}),
    pieces=frozenset({"pagination"}),
)
