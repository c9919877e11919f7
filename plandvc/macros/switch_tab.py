"""switch_tab: on an entry's page that shows its sections as tabs, switch to the named tab (generated sites).

Only a site whose theme has tabs (`Theme.tabs`) has these tasks; the original sites have none, so their pool is
unchanged. A tab is a link that sets the page's `tab` parameter, so what the page shows is URL state: the check
is the entry page's query (`tab=<name>`), never the click, and a trip home after it would undo it. Most tasks
start on the entry's page; some start on its list or at home (like open_entry's), so the executor opens the
entry first; those name the list's query in their scope (no earlier part may filter the entry out of it).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import replace

from plandvc.macros.macro import url_state
from plandvc.macros.make import HOME_START_SHARE, TaskMaker, page_params
from plandvc.macros.script import Executor, ScriptError, attr, every
from plandvc.records import TaskDraft
from plandvc.sites.model import ENTRY_TABS, TAB_PARAM

LIST_START_SHARE = 0.2  # of the tasks: they start on the entry's list page (and HOME_START_SHARE at home)
PHRASES = (
    'Switch to the "{tab}" tab of the {singular} "{entry}".',
    'Open the "{tab}" tab on the page of the {singular} "{entry}".',
    'Show the "{tab}" tab of the {singular} "{entry}".',
)


def tasks(make: TaskMaker, rng: random.Random) -> Iterator[TaskDraft]:
    """A task per entry and tab other than the first (the one an entry's page opens on)."""
    if not make.spec.theme.tabs:
        return
    for p in make.pages:
        t, lp = make.table(p), make.list_path(p)
        for r in t.rows:
            rid = str(r[t.key])
            dp = make.detail_path(p, rid)
            for name, label in ENTRY_TABS[1:]:
                draw = rng.random()
                start = (
                    make.home
                    if draw < HOME_START_SHARE
                    else lp
                    if draw < HOME_START_SHARE + LIST_START_SHARE
                    else dp
                )
                listed = [f"query:{lp}:{q}" for q in page_params(p)] if start != dp else []
                yield make.task(
                    p,
                    start,
                    {"control_id": f"{p.page}-tabs", "role": "tab", "prep": {}},
                    {"kind": "query", "path": dp, "params": {TAB_PARAM: [name]}},
                    [f"entry:{p.table}/{rid}", f"query:{dp}:{TAB_PARAM}", *listed],
                    {**make.words(p), "entry": str(r[t.label]), "tab": label},
                    rng,
                    entry=rid,
                    tab=name,
                )


async def solve(run: Executor) -> None:
    rid, name = run.target["entry"], run.target["tab"]
    await run.to_entry(rid)
    label = dict(ENTRY_TABS)[name]
    href = f"{run.detail_url(rid)}?{TAB_PARAM}={name}"
    entry = run.row(rid)[run.table.label]
    await run.step(
        "click",
        every(attr("href", href), lambda e: e.text == label),
        f'"{label}" tab',
        f'Switching to the "{label}" tab.',
    )
    panel = run.session.page.locator(f'[role="tabpanel"][data-tab-panel="{name}"]')
    if await panel.count() != 1:
        raise ScriptError(f"{run.task['task_id']}: the {label!r} tab is not shown on {run.session.url}")
    run.rec.done = f'I switched to the "{label}" tab of the {run.table.singular} "{entry}"; it is shown.'


# its check reads the last page's query (a trip home undoes it); it stays on the entry's page
MACRO = replace(
    url_state("switch_tab", "Navigation", PHRASES, tasks, solve, scope=frozenset({"query", "entry"})),
    asked=False,
)
