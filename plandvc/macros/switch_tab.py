"""switch_tab: on an entry's page that shows its sections as tabs, switch to the named tab (generated sites).

Only a site whose theme has tabs (`Theme.tabs`) has these tasks; the original sites have none, so their pool is
unchanged. A tab is a link that sets the page's `tab` parameter, so what the page shows is URL state: the check
is the entry page's query (`tab=<name>`), never the click, and a trip home after it would undo it.
"""

from __future__ import annotations

import random

from plandvc.macros.macro import Macro
from plandvc.macros.make import TaskMaker
from plandvc.macros.script import Executor, ScriptError, attr, every
from plandvc.records import TaskDraft
from plandvc.sites.model import ENTRY_TABS, TAB_PARAM

PHRASES = (
    'Switch to the "{tab}" tab of the {singular} "{entry}".',
    'Open the "{tab}" tab on the page of the {singular} "{entry}".',
    'Show the "{tab}" tab of the {singular} "{entry}".',
)


def tasks(make: TaskMaker, rng: random.Random) -> list[TaskDraft]:
    """A task per entry and tab other than the first (the one an entry's page opens on)."""
    if not make.spec.theme.tabs:
        return []
    out = []
    for p in make.pages:
        t = make.table(p)
        for r in t.rows:
            rid = str(r[t.key])
            dp = make.detail_path(p, rid)
            for name, label in ENTRY_TABS[1:]:
                out.append(
                    make.task(
                        p,
                        dp,
                        {"control_id": f"{p.page}-tabs", "role": "tab", "prep": {}},
                        {"kind": "query", "path": dp, "params": {TAB_PARAM: [name]}},
                        [f"entry:{p.table}/{rid}", f"query:{dp}:{TAB_PARAM}"],
                        {**make.words(p), "entry": str(r[t.label]), "tab": label},
                        rng,
                        entry=rid,
                        tab=name,
                    )
                )
    return out


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
MACRO = Macro(
    name="switch_tab",
    family="Navigation",
    check="query",
    scope=frozenset({"query", "entry"}),
    phrases=PHRASES,
    tasks=tasks,
    solve=solve,
    url_state=True,
    leaves_page=True,
    continues_page=True,
)
