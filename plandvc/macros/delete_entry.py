"""delete_entry: delete an entry from its page, through the confirmation dialog (generated sites); on a v3
list with row actions, from the list with the row's own "Delete" and its dialog.

Only a table whose entries can be deleted (`Table.delete`) has these tasks; the original sites have none. The
entry's page has a "Delete <singular>" button that opens a dialog; only its "Delete" button posts the delete,
"Cancel" closes it and changes nothing. The check is the backend's: a delete of exactly that entry is logged and
it is gone, and (exclusive) nothing else in its table changed. A delete changes the rows its list page shows,
so its scope names that page's query too (as the parts that read the list's rows do: open an entry from it,
count it, page it): none of them shares a chain with it.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import replace

from plandvc.macros.macro import form
from plandvc.macros.make import TaskMaker, page_params
from plandvc.macros.script import Executor
from plandvc.macros.widgets import Pick, button, cid_is, row_action
from plandvc.records import TaskDraft

PHRASES = (
    'Delete the {singular} "{entry}".',
    'Remove the {singular} "{entry}" and confirm the deletion.',
    'Delete the {singular} "{entry}" for good.',
)


def tasks(make: TaskMaker, rng: random.Random) -> Iterator[TaskDraft]:
    """A task per entry of every table whose entries can be deleted, started on the entry's page (on the list
    where its rows have actions)."""
    for p in make.pages:
        t, lp = make.table(p), make.list_path(p)
        if not t.delete:
            continue
        for r in t.rows:
            rid = str(r[t.key])
            yield make.task(
                p,
                lp if make.spec.theme.row_actions else make.detail_path(p, rid),  # a v3 row's own Delete
                {"control_id": f"{p.page}-delete", "role": "delete", "prep": {}},
                {"kind": "entry_deleted", "table": p.table, "id": rid},
                [
                    f"table:{p.table}",
                    f"entry:{p.table}/{rid}",
                    *(f"query:{lp}:{q}" for q in page_params(p)),
                ],
                {**make.words(p), "entry": str(r[t.label])},
                rng,
                {"exclusive": True},
                entry=rid,
            )


async def solve(run: Executor) -> None:
    rid = run.target["entry"]
    singular, page = run.table.singular, run.list_page.page
    label = run.row(rid)[run.table.label]
    asking = f'Asking to delete the {singular} "{label}".'
    if await row_action(run, rid, "delete", asking):
        confirm = f"Delete “{label}” for good"  # the row's own dialog names its entry
        mine: Pick = lambda e: e.attrs.get("aria-label") == confirm  # noqa: E731
    else:
        await run.to_entry(rid)
        text = f"Delete {singular}"
        await run.step("click", button(text), f"{text} button", asking)
        mine = lambda e: True  # noqa: E731
    await run.step(
        "click",
        lambda e: cid_is(f"{page}-delete-confirm")(e) and e.text == "Delete" and mine(e),
        "Delete button of the confirmation dialog",
        "Confirming the deletion.",
    )
    run.rec.done = f'I deleted the {singular} "{label}"; it is no longer in the list.'


# it changes the backend (its check reads the entries, not the page), so it neither stays on nor continues a page
MACRO = replace(
    form("delete_entry", "entry_deleted", frozenset({"table", "entry", "query"}), PHRASES, tasks, solve),
    goal_steps=frozenset({"delete"}),
    app_order=9,
)
