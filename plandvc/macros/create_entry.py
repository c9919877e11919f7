"""create_entry: fill a list page's new-entry form with new values and submit it."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import replace

from plandvc.checks import Row
from plandvc.macros import widgets
from plandvc.macros.macro import form
from plandvc.macros.make import PER_MACRO, TaskMaker, fmt
from plandvc.macros.script import Executor
from plandvc.records import TaskDraft

PHRASES = (
    "Create a new {singular} with {fields}.",
    "Add a {singular} with {fields}.",
    "Use the new {singular} form to add one with {fields}.",
)


def tasks(make: TaskMaker, rng: random.Random) -> Iterator[TaskDraft]:
    for p, t in make.tables():
        if not t.create:
            continue
        for _ in range(PER_MACRO):
            fields: Row = {f: make.new_value(t, f, rng) for f in t.create}
            listed = ", ".join(f'{t.column(f).label} "{fmt(v)}"' for f, v in fields.items())
            yield make.task(
                p,
                make.list_path(p),
                {"control_id": f"{p.page}-create", "role": "create_form", "prep": {}},
                {"kind": "entry_created", "table": p.table, "fields": fields},
                [f"table:{p.table}"],
                {**make.words(p), "fields": listed},
                rng,
                {"exclusive": True},
                fields=dict(fields),
            )


async def solve(run: Executor) -> None:
    await run.to_list()
    page, singular = run.list_page.page, run.table.singular
    memory = f"Opening the new {singular} form."
    await widgets.open_form(run, "create", f"{run.list_url()}/new", singular, memory)
    fields = dict(run.target["fields"])
    await run.fill(f"{page}-create", fields)
    await widgets.to_step_of(run, f"{page}-create-apply")
    await run.step(
        "click", run.control_id(f"{page}-create-apply"), "Create button", f"Submitting the new {singular}."
    )
    said = ", ".join(f'{run.table.column(f).label} "{fmt(v)}"' for f, v in fields.items())
    run.rec.done = f"I created a new {singular} with {said}; it is now in the list."


MACRO = replace(
    form("create_entry", "entry_created", frozenset({"table"}), PHRASES, tasks, solve),
    pieces=frozenset({"form"}),
    app_order=7,
    goal_steps=frozenset({"add"}),  # an app's act that adds the entry found to a basket
)
