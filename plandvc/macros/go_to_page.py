"""go_to_page: bring a paginated list page to its page N, with the page links or "Next ›" (generated sites).

Only a site whose lists page by number or by next/previous links has these tasks (the original sites show
every row on one page, so their pool is unchanged). The page's rows depend on every filter of the page, so its
scope names them all with the page number: no other part of a chain filters, sorts or searches that page.
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Iterator
from dataclasses import replace

from plandvc.macros.macro import url_state
from plandvc.macros.make import TaskMaker, page_params
from plandvc.macros.script import Executor, ScriptError, attr, every
from plandvc.records import TaskDraft
from plandvc.sites.model import PAGE_PARAM

PHRASES = (
    'Go to page "{number}" of the {plural} list.',
    'Show page "{number}" of the {plural}.',
    'Page through the {plural} to page "{number}".',
)
PAGERS = ("numbered", "nextprev")  # "Load more" keeps page 1 on screen: not a page to go to
NEXT = "Next ›"


def tasks(make: TaskMaker, rng: random.Random) -> Iterator[TaskDraft]:
    """A task per page 2..N of every list page that pages by number or by next/previous links."""
    theme = make.spec.theme
    if theme.pagination not in PAGERS or theme.page_size <= 0:
        return
    for p in make.pages:
        t, lp = make.table(p), make.list_path(p)
        pages = math.ceil(len(t.rows) / theme.page_size)
        scope = sorted({f"query:{lp}:{PAGE_PARAM}", *(f"query:{lp}:{q}" for q in page_params(p))})
        for n in range(2, pages + 1):
            yield make.task(
                p,
                make.url_start(lp, rng),
                {"control_id": f"{p.page}-pager", "role": "pager", "prep": {}},
                {"kind": "query", "path": lp, "params": {PAGE_PARAM: [str(n)]}},
                scope,
                {**make.words(p), "number": str(n)},
                rng,
                number=n,
            )


async def solve(run: Executor) -> None:
    await run.to_list()
    n, plural = int(run.target["number"]), run.table.title.lower()
    href = f"{run.list_url()}?{PAGE_PARAM}={n}"
    if run.spec.theme.pagination == "numbered":
        pick = every(attr("href", href), lambda e: e.text == str(n))
        await run.step("click", pick, f"page {n} link", f'Clicking page "{n}" of the {plural}.')
    else:
        for k in range(2, n + 1):
            link = every(attr("href", f"{run.list_url()}?{PAGE_PARAM}={k}"), lambda e: e.text == NEXT)
            await run.step("click", link, f'"{NEXT}" link', f'Going to page "{k}" with "{NEXT}".')
    count = await run.session.page.locator("p.count").inner_text()
    m = re.search(r"page\s+(\d+)\s+of\s+(\d+)", count)
    if not m or int(m.group(1)) != n:
        raise ScriptError(f"{run.task['task_id']}: the list does not say page {n} on {run.session.url}")
    run.rec.done = f'I went to page "{n}" of the {plural}; page {n} of {m.group(2)} is shown.'


# its check reads the last page's query (a trip home undoes it); it stays on its page for the next part
MACRO = replace(
    url_state("go_to_page", "Navigation", PHRASES, tasks, solve),
    asked=False,
    app_order=3,
)
