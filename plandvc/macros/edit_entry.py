"""edit_entry: open an entry's edit form, change one field and save it (some entries are created first, by
the task's control prep). On a v3 list with row actions the task starts on the list and uses the row's "Edit"."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import replace

from plandvc.checks import Row, Value
from plandvc.macros import widgets
from plandvc.macros.macro import form
from plandvc.macros.make import TaskMaker, fmt
from plandvc.macros.script import Executor
from plandvc.records import TaskDraft
from plandvc.sites.spec import Page, Table
from plandvc.sites.state import next_id

PHRASES = (
    'Change the {label} of the {singular} "{entry}" to "{value}".',
    'Edit the {singular} "{entry}" and set its {label} to "{value}".',
    'Update the {singular} "{entry}": {label} "{value}".',
)
EDITED = 6  # entries of the table edited per page
PREPARED = 2  # entries the control prep creates first, per page with a create form


def edit(
    make: TaskMaker,
    p: Page,
    t: Table,
    entry: tuple[str, str],
    change: tuple[str, Value],
    prep: dict[str, object],
    rng: random.Random,
) -> TaskDraft:
    """The task that sets field `change[0]` of entry `(id, label)` to `change[1]`, after `prep`."""
    (rid, label), (f, v) = entry, change
    # a v3 list has Edit on each row: the task starts there
    start = make.list_path(p) if make.spec.theme.row_actions else make.detail_path(p, rid)
    scope = [f"table:{p.table}", f"entry:{p.table}/{rid}"]
    return make.task(
        p,
        start,
        {"control_id": f"{p.page}-edit", "role": "prepared" if prep else "edit_form", "prep": prep},
        {"kind": "entry_updated", "table": p.table, "id": rid, "fields": {f: v}},
        scope,
        {**make.words(p), "entry": label, "label": t.column(f).label, "value": fmt(v)},
        rng,
        {"exclusive": True},
        entry=rid,
        field=f,
        value=v,
    )


def tasks(make: TaskMaker, rng: random.Random) -> Iterator[TaskDraft]:
    for p, t in make.tables():
        if not t.edit:
            continue
        for r in list(t.rows)[:EDITED]:
            rid = str(r[t.key])
            f = rng.choice(t.edit)
            v = make.new_value(t, f, rng, avoid=r[f])
            yield edit(make, p, t, (rid, str(r[t.label])), (f, v), {}, rng)
        if t.create:
            for _ in range(PREPARED):
                fields: Row = {f: make.new_value(t, f, rng) for f in t.create}
                rid = next_id(t, list(t.rows))
                f = rng.choice(t.edit)
                v = make.new_value(t, f, rng, avoid=fields.get(f))
                label = str(fields.get(t.label, rid))
                prep: dict[str, object] = {"create": {"table": p.table, "page": p.page, "fields": fields}}
                yield edit(make, p, t, (rid, label), (f, v), prep, rng)


async def solve(run: Executor) -> None:
    rid = run.target["entry"]
    page, singular = run.list_page.page, run.table.singular
    name = run.row(rid)[run.table.label]
    if not await widgets.row_action(
        run, rid, "edit", f'Clicking "Edit" on the row of the {singular} "{name}".'
    ):
        await run.to_entry(rid)
        memory = f"Opening the edit form of {singular}."
        await widgets.open_form(run, "edit", f"{run.detail_url(rid)}/edit", singular, memory)
    f, v = run.target["field"], run.target["value"]
    await run.fill(f"{page}-edit", {f: v})
    await widgets.to_step_of(run, f"{page}-edit-apply")
    await run.step("click", run.control_id(f"{page}-edit-apply"), "Save button", "Saving the change.")
    label = run.row(rid)[run.table.label] if f != run.table.label else v
    run.rec.done = (
        f'I changed the {run.table.column(f).label} of the {singular} "{label}" to "{fmt(v)}" and saved it.'
    )


MACRO = replace(
    form("edit_entry", "entry_updated", frozenset({"table", "entry"}), PHRASES, tasks, solve),
    pieces=frozenset({"form", "pagination"}),
    app_order=8,
    goal_steps=frozenset({"edit"}),  # an app's act that edits the entry found
)
