"""search_by_text: type a word into a list page's search box and run the search."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace

from plandvc.macros import widgets
from plandvc.macros.macro import list_search
from plandvc.macros.make import Choice, control_tasks, count
from plandvc.macros.script import Executor
from plandvc.sites.spec import Control, Page, Table

PHRASES = (
    'Search the {plural} for "{text}".',
    'Find the {plural} matching "{text}" with the search box.',
    'Use the search to look for "{text}" among the {plural}.',
)


def search_terms(p: Page, t: Table, c: Control) -> list[str]:
    """Words of the searchable columns that match some but not all rows."""
    terms: list[str] = []
    for r in t.rows:
        for col in c.columns:
            for w in re.findall(r"[A-Za-z][A-Za-z'-]{3,}", str(r[col])):
                hits = count(p, t, [(str(c.param), w)])
                if 0 < hits < len(t.rows) and w not in terms:
                    terms.append(w)
    return terms


def choices(p: Page, c: Control, t: Table) -> Iterator[Choice]:
    for w in search_terms(p, t, c):
        yield Choice({str(c.param): [w]}, {"text": w}, {"text": w})


async def solve(run: Executor) -> None:
    c = await run.list_control()
    text = run.target["text"]
    if c.implementation == "autocomplete":
        await widgets.search_suggest(run, c, text)
        n = await run.shown()
    else:
        await run.on_field(
            "input", c, str(c.param), "search box", f'Typing "{text}" into the search box.', text
        )
        n = await run.applied(c, "Running the search.")
    run.rec.done = f'I searched the {run.table.title.lower()} for "{text}"; {n} {run.noun(n)} shown.'


# its check is `visited` (any page seen with the query), so a trip home after it does not undo it
MACRO = replace(
    list_search("search_by_text", PHRASES, control_tasks("search", choices, "visited"), solve),
    narrows_list=True,
    goal_constraint=True,
    app_order=0,
    goal_steps=frozenset({"narrow:input"}),  # a carry goal's live narrowing by a search
    delegations=(
        ("form", 'Search {the_p} for "{v}".'),
        ("autocomplete", 'Search {the_p} for "{v}".'),
    ),
)
