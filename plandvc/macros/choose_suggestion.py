"""choose_suggestion: type the start of a word into a search-as-you-type box and choose the named suggestion.

Only a search drawn with autocomplete (`impl` "autocomplete") has these tasks, so the original sites' pool is
unchanged. What the task means: the list is searched for the chosen suggestion *by choosing it from the list*
(the way a person finishes a long name after a few letters). Choosing a suggestion runs the search with
`sugg=1` beside the text (as real sites mark a search that came from their suggestions), so the check —
the list page seen with `q=<suggestion>&sugg=1` — fails when the whole text is typed and submitted without the
list, and when another suggestion is chosen. A trip home after it does not undo a search seen (`visited`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

from plandvc.macros.macro import list_search
from plandvc.macros.make import Choice, control_tasks, count
from plandvc.macros.script import Executor
from plandvc.macros.widgets import both, cid_is, text_is
from plandvc.sites.controls import suggested, suggestions
from plandvc.sites.model import SUGGEST_PARAM
from plandvc.sites.spec import Control, Page, Table

PHRASES = (
    'Type "{typed}" into the {plural} search and choose the suggestion "{text}".',
    'In the {plural} search, start typing "{typed}" and pick "{text}" from the suggestions.',
    'Search the {plural} by typing "{typed}" and choosing "{text}" in the list of suggestions.',
)
MIN_TYPED = 3  # letters typed before choosing


def typed_for(words: list[str], text: str) -> str | None:
    """The shortest start of `text` (at least MIN_TYPED letters, not all of it) whose suggestions list `text`
    among others, so there is a choice to make; None when there is none."""
    for k in range(MIN_TYPED, len(text)):
        typed = text[:k]
        if typed != typed.strip():
            continue
        hits = suggested(words, typed)
        if text in hits and len(hits) >= 2:
            return typed
    return None


def choices(p: Page, c: Control, t: Table) -> Iterator[Choice]:
    """Each suggestion of an autocomplete search that a few letters bring up among others."""
    if c.implementation != "autocomplete":
        return
    words = suggestions(t, c)
    for text in words:
        typed = typed_for(words, text)
        if typed is None or count(p, t, [(str(c.param), text)]) == 0:
            continue
        params = {str(c.param): [text], SUGGEST_PARAM: ["1"]}
        yield Choice(params, {"text": text, "typed": typed}, {"text": text, "typed": typed})


async def solve(run: Executor) -> None:
    c = await run.list_control()
    text, typed = run.target["text"], run.target["typed"]
    box = both(cid_is(c.control_id), lambda e: e.tag == "input")
    await run.step("input", box, "search box", f'Typing "{typed}" into the search box.', typed)
    pick = both(cid_is(f"{c.control_id}-suggestion"), text_is(text))
    await run.step("click", pick, f'suggestion "{text}"', f'Choosing the suggestion "{text}".')
    n = await run.shown()
    run.rec.done = f'I typed "{typed}" and chose the suggestion "{text}"; {n} {run.noun(n)} shown.'


# like a search: its check is `visited`, it stays on its list page and can start on a page left filtered
MACRO = replace(
    list_search("choose_suggestion", PHRASES, control_tasks("search", choices, "visited"), solve),
    narrows_list=True,
    delegations=(
        ("autocomplete", 'Type "{typed}" in the search of {the_p} and choose "{v}" among the suggestions.'),
        ("form", 'Type "{typed}" in the search of {the_p} and choose "{v}" among the suggestions.'),
    ),
)
