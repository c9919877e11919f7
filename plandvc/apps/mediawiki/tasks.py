"""Tasks on MediaWiki 1.39 and their scripted solutions: one generator and one solution per macro its UI
supports (their facts for the walk: `facts.py`).

`offer(env)` tells the generators what the seeded wiki's pages offer (its pages with their categories and
infobox facts); `tasks(offer, seed, per_macro)` draws each macro's tasks from `random.Random(seed)` in a fixed
order, so the tasks are a function of (wiki, seed, per_macro). The macros keep the registry's names and check
kinds (`plandvc.macros`); what they do on the wiki's pages:

| macro | start | what the executor does | gate |
|---|---|---|---|
| search_by_text | main page | types a word (no page's title) in the header's search box, Go | visited `/index.php?search=` |
| go_to_page | search results for "guide" | clicks "next 10" until the page is shown | query `offset` |
| open_entry | main page | the sidebar's category link, then the page's link in the category | visited `/index.php/<Title>` (last) |
| report_information | main page | opens the page as open_entry does, reads the fact off its infobox | answer |
| count_entries | main page | the sidebar's category link, reads "out of N total" | answer (number) |
| create_entry | main page | types the title in the search box, Go, "Create the page", types the text, Save | entry_created `page` |
| edit_entry | main page | opens the page, Edit, changes the infobox line in the wikitext, Save changes | entry_updated `page` |
| delete_entry | main page | opens the page, "More", Delete, "Delete page" | entry_deleted `page` |
| navigate_to_page | main page | clicks the sidebar's link (Recent changes, All pages, Categories, a category) | visited (last) |

Not on the wiki: sort_by_form (the wiki's sortable tables sort in the browser, jquery.tablesorter: no query
parameter and no stored state changes, so no gate of the registry's kind can see it; the only server-side
sorts, Special:ListUsers' "Sort by creation date" and the TablePager lists, have one user or no rows here),
the filter macros (not yet: Special:AllPages' namespace select, a native one since the wiki is served
without its scripts, and Special:Search's namespace checkboxes are candidates), copy_value, switch_tab,
choose_suggestion and navigate_home ("Main page" is the trip home). Special:Random is drawn at random:
never a target.

Tasks of one macro have distinct expected outcomes, so each task's gate can be shown to fail on a sibling's
real outcome (tests/test_apps_mediawiki.py).
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from plandvc.apps.mediawiki import adapter
from plandvc.apps.script import AppExecutor, AppTask, Draft, Macros
from plandvc.checks import Check, Row
from plandvc.macros.script import Pick, ScriptError, attr
from plandvc.world import vocab

SITE = "mediawiki"
HOME = adapter.HOME
PAGING_WORD = "guide"  # every entry says "part of the field guide": the search results that page
NAV = (
    ("Recent changes", "/index.php/Special:RecentChanges"),
    ("All pages", "/index.php/Special:AllPages"),
    ("Categories", "/index.php/Special:Categories"),
    *tuple((c, f"/index.php/Category:{c}") for c in adapter.CATEGORIES),
)
# the infobox facts an edit changes, per category, and how a new value is drawn
EDITABLE = {
    "Cities": ("Population", "Mayor", "Country"),
    "Researchers": ("Born", "Institute"),
    "Projects": ("Status", "Started"),
    "Dishes": ("Servings", "Prep time", "Origin"),
}
NEW_TEXTS = (
    "{t} is a new entry of the field guide.",
    "{t} still needs a table of facts.",
    "A short note about {t}.",
)


@dataclass(frozen=True)
class Offer:
    """What the seeded wiki's pages offer to task generators: its entry pages (main namespace, in a category)."""

    pages: tuple[Row, ...]
    per_page: int

    def entries(self) -> list[Row]:
        return [p for p in self.pages if p["namespace"] == 0 and p["categories"]]

    def members(self, category: str) -> list[Row]:
        return [p for p in self.entries() if p["categories"] == category]


def offer(env: Path) -> Offer:
    """The offer of a seeded wiki, read from its database."""
    return Offer(tuple(adapter.pages(env)), adapter.PER_PAGE)


def path_of(title: str) -> str:
    """A page's path on the wiki (`$wgArticlePath` is `/index.php/$1`)."""
    return "/index.php/" + title.replace(" ", "_")


MACROS: Macros[Offer] = Macros(SITE)


# ── generators ────────────────────────────────────────────────────────────────


@MACROS.draws("search_by_text")
def _search(o: Offer, rng: random.Random) -> Iterator[Draft]:
    titles = {str(p["title"]).casefold() for p in o.pages}
    words = sorted({str(v) for p in o.entries() for k in ("Country", "Origin") if (v := p.get(k))} - titles)
    for word in rng.sample(words, len(words)):
        phrase = rng.choice(('Search the wiki for "{w}".', 'Find the pages that mention "{w}".'))
        check: Check = {"kind": "visited", "path": "/index.php", "params": {"search": [word]}}
        yield phrase.format(w=word), check, {"word": word}, ["query:/index.php:search"], HOME


@MACROS.draws("go_to_page")
def _page(o: Offer, rng: random.Random) -> Iterator[Draft]:
    hits = sum(PAGING_WORD in str(p["text"]).casefold() for p in o.pages)
    pages = list(range(2, min(-(-hits // o.per_page), 4) + 1))
    start = f"/index.php?title=Special:Search&search={PAGING_WORD}&fulltext=1"
    for n in rng.sample(pages, len(pages)):
        phrase = rng.choice(('Go to page "{n}" of the search results.', 'Show page "{n}" of the results.'))
        offset = str(o.per_page * (n - 1))
        check: Check = {"kind": "query", "path": "/index.php", "params": {"offset": [offset]}}
        yield phrase.format(n=n), check, {"page": n, "offset": offset}, ["query:/index.php:offset"], start


@MACROS.draws("open_entry")
def _open(o: Offer, rng: random.Random) -> Iterator[Draft]:
    for p in rng.sample(o.entries(), len(o.entries())):
        phrase = rng.choice(('Open the page "{t}".', 'Show me the wiki page "{t}".'))
        check: Check = {"kind": "visited", "path": path_of(str(p["title"])), "last": True}
        target = {"id": p["id"], "title": p["title"], "category": p["categories"]}
        yield phrase.format(t=p["title"]), check, target, [f"entry:page/{p['id']}"], HOME


@MACROS.draws("report_information")
def _report(o: Offer, rng: random.Random) -> Iterator[Draft]:
    seen: set[str] = set()
    for p in rng.sample(o.entries(), len(o.entries())):
        field = rng.choice(sorted(adapter.infobox(str(p["text"]))))
        value = str(p[field])
        if value in seen:
            continue
        seen.add(value)
        phrase = rng.choice(('What is the {f} in the page "{t}"?', 'Tell me the {f} of "{t}" from the wiki.'))
        check: Check = {"kind": "answer", "expected": value}
        target = {"id": p["id"], "title": p["title"], "category": p["categories"], "field": field}
        yield phrase.format(f=field.lower(), t=p["title"]), check, target, [f"entry:page/{p['id']}"], HOME


@MACROS.draws("count_entries")
def _count(o: Offer, rng: random.Random) -> Iterator[Draft]:
    seen: set[int] = set()
    for c in rng.sample(adapter.CATEGORIES, len(adapter.CATEGORIES)):
        n = len(o.members(c))
        if n in seen:
            continue
        seen.add(n)
        phrase = rng.choice(
            ('How many pages are in the category "{c}"?', 'Count the pages of the "{c}" category.')
        )
        check: Check = {"kind": "answer", "expected": str(n), "number": True}
        yield phrase.format(c=c), check, {"category": c}, [f"category:{c}"], HOME


@MACROS.draws("create_entry")
def _create(o: Offer, rng: random.Random) -> Iterator[Draft]:
    taken = {str(p["title"]).casefold() for p in o.pages}
    titles = [c for c in vocab.CITIES if c.casefold() not in taken]
    for title in rng.sample(titles, len(titles)):
        text = rng.choice(NEW_TEXTS).format(t=title)
        phrase = rng.choice(
            ('Create a wiki page "{t}" with the text "{x}"', 'Add a new page titled "{t}" that says "{x}"')
        )
        fields: Row = {"title": title, "text": text}
        check: Check = {"kind": "entry_created", "table": "page", "fields": fields}
        yield phrase.format(t=title, x=text), check, dict(fields), ["table:page"], HOME


def _new_value(p: Row, field: str, o: Offer, rng: random.Random) -> str:
    """Another value of the fact, of its kind."""
    old = str(p[field])
    for _ in range(50):
        if field == "Population":
            v = f"{rng.randrange(80, 900) * 1000 + rng.randrange(1, 10) * 100:,}"
        elif field == "Mayor":
            v = f"{rng.choice(vocab.FIRST)} {rng.choice([n for n in vocab.LAST if chr(39) not in n])}"
        elif field in ("Country", "Origin"):
            v = rng.choice(vocab.COUNTRIES)
        elif field == "Born":
            v = str(rng.randrange(1950, 1996))
        elif field == "Institute":
            v = f"{rng.choice(vocab.CITIES)} Institute"
        elif field == "Status":
            v = rng.choice(adapter.STATUSES)
        elif field == "Started":
            v = str(rng.randrange(2012, 2024))
        elif field == "Servings":
            v = str(rng.randrange(2, 9))
        else:  # Prep time
            v = f"{rng.randrange(2, 19) * 5} minutes"
        if v != old:
            return v
    raise ValueError(f"no new value for {field}")


@MACROS.draws("edit_entry")
def _edit(o: Offer, rng: random.Random) -> Iterator[Draft]:
    for p in rng.sample(o.entries(), len(o.entries())):
        field = rng.choice(EDITABLE[str(p["categories"])])
        value = _new_value(p, field, o, rng)
        phrase = rng.choice(
            ('Set the {f} in the page "{t}" to "{v}".', 'Edit the page "{t}" so its {f} is "{v}".')
        )
        check: Check = {
            "kind": "entry_updated",
            "table": "page",
            "id": str(p["id"]),
            "fields": {field: value},
        }
        target = {
            "id": p["id"],
            "title": p["title"],
            "category": p["categories"],
            "field": field,
            "value": value,
        }
        scope = [f"entry:page/{p['id']}", "table:page"]
        yield phrase.format(f=field.lower(), t=p["title"], v=value), check, target, scope, HOME


@MACROS.draws("delete_entry")
def _delete(o: Offer, rng: random.Random) -> Iterator[Draft]:
    for p in rng.sample(o.entries(), len(o.entries())):
        phrase = rng.choice(('Delete the page "{t}".', 'Remove the page "{t}" from the wiki.'))
        check: Check = {"kind": "entry_deleted", "table": "page", "id": str(p["id"])}
        target = {"id": p["id"], "title": p["title"], "category": p["categories"]}
        scope = [f"entry:page/{p['id']}", "table:page", f"category:{p['categories']}"]
        yield phrase.format(t=p["title"]), check, target, scope, HOME


@MACROS.draws("navigate_to_page")
def _navigate(o: Offer, rng: random.Random) -> Iterator[Draft]:
    for title, path in rng.sample(NAV, len(NAV)):
        phrase = rng.choice(('Go to the wiki\'s "{t}" page.', 'Open "{t}" from the sidebar.'))
        check: Check = {"kind": "visited", "path": path, "last": True}
        yield phrase.format(t=title), check, {"path": path, "title": title}, [], HOME


# ── solutions ─────────────────────────────────────────────────────────────────


def _link(href: str, text: str | None = None) -> Pick:
    return lambda e: e.tag == "a" and e.attrs.get("href") == href and (text is None or e.text == text)


@MACROS.solves("search_by_text")
async def _search_solve(run: AppExecutor) -> None:
    word = str(run.target["word"])
    await run.step("input", attr("id", "searchInput"), "search box", "Typing the search word.", word)
    # the header's "Go" button: a word that is no page's title gives the search results
    await run.step("click", attr("id", "searchButton"), "Go button", "Searching the pages.")
    run.rec.done = f'Searched the wiki for "{word}".'


@MACROS.solves("go_to_page")
async def _page_solve(run: AppExecutor) -> None:
    n = int(run.target["page"])
    for i in range(2, n + 1):
        await run.step(
            "click",
            lambda e: e.tag == "a" and e.text.startswith("next ") and "offset=" in e.attrs.get("href", ""),
            "next results link",
            f"Going on to page {i} of the results.",
        )
    run.rec.done = f"Showing page {n} of the search results."


async def _to_page(run: AppExecutor) -> None:
    """From any page, the sidebar's category link, then the page's link in the category's list."""
    cat, title = str(run.target["category"]), str(run.target["title"])
    await run.step(
        "click",
        _link(f"/index.php/Category:{cat}", cat),
        f"{cat} sidebar link",
        f'Opening the "{cat}" category.',
    )
    await run.step("click", _link(path_of(title), title), f"link to {title}", f'Opening the page "{title}".')


@MACROS.solves("open_entry")
async def _open_solve(run: AppExecutor) -> None:
    await _to_page(run)
    run.rec.done = f'Opened the page "{run.target["title"]}".'


@MACROS.solves("report_information")
async def _report_solve(run: AppExecutor) -> None:
    field = str(run.target["field"])
    await _to_page(run)
    run.rec.answer = await run.text(f'table.infobox tr:has(th:text-is("{field}")) > td')
    run.rec.done = f"The {field.lower()} is {run.rec.answer}."


@MACROS.solves("count_entries")
async def _count_solve(run: AppExecutor) -> None:
    cat = str(run.target["category"])
    await run.step(
        "click",
        _link(f"/index.php/Category:{cat}", cat),
        f"{cat} sidebar link",
        f'Opening the "{cat}" category.',
    )
    said = await run.text("#mw-pages > p")
    m = re.search(r"out of ([\d,]+) total", said) or re.search(r"following ([\d,]+) page", said)
    if not m:
        raise ScriptError(f"{run.task['task_id']}: no count in {said!r}")
    run.rec.answer = m.group(1)
    run.rec.done = f'The "{cat}" category has {run.rec.answer} pages.'


@MACROS.solves("create_entry")
async def _create_solve(run: AppExecutor) -> None:
    title, text = str(run.target["title"]), str(run.target["text"])
    await run.step("input", attr("id", "searchInput"), "search box", "Typing the new page's title.", title)
    await run.step("click", attr("id", "searchButton"), "Go button", "Going to the page of that title.")
    await run.step(
        "click",
        lambda e: e.tag == "a" and e.text == title and "redlink=1" in e.attrs.get("href", ""),
        "create-the-page link",
        f'The page does not exist; creating "{title}".',
    )
    await run.step("input", attr("id", "wpTextbox1"), "page text", "Typing the page's text.", text)
    await run.step("click", attr("id", "wpSave"), "Save page button", "Saving the new page.")
    run.rec.done = f'Created the page "{title}".'


@MACROS.solves("edit_entry")
async def _edit_solve(run: AppExecutor) -> None:
    t = run.target
    title, field, value = str(t["title"]), str(t["field"]), str(t["value"])
    await _to_page(run)
    edit = f"/index.php?title={title.replace(' ', '_')}&action=edit"
    await run.step("click", _link(edit, "Edit"), "Edit tab", "Opening the edit form.")
    box = await run.find(attr("id", "wpTextbox1"), "page text")
    old = str(box.value or "")
    new, n = re.subn(rf"^(!\s*{re.escape(field)}\s*\n\|\s*).*$", rf"\g<1>{value}", old, count=1, flags=re.M)
    if n != 1:
        raise ScriptError(f"{run.task['task_id']}: no {field} line in the page's text")
    await run.step(
        "input", attr("id", "wpTextbox1"), "page text", f"Setting the {field.lower()} to {value}.", new
    )
    await run.step("click", attr("id", "wpSave"), "Save changes button", "Saving the change.")
    run.rec.done = f'Set the {field.lower()} of "{title}" to {value}.'


@MACROS.solves("delete_entry")
async def _delete_solve(run: AppExecutor) -> None:
    title = str(run.target["title"])
    await _to_page(run)
    await run.step("click", attr("id", "p-cactions-checkbox"), "More menu", "Opening the More menu.")
    delete = f"/index.php?title={title.replace(' ', '_')}&action=delete"
    await run.step("click", _link(delete, "Delete"), "Delete link", f'Deleting "{title}".')
    await run.step("click", attr("id", "wpConfirmB"), "Delete page button", "Confirming the deletion.")
    run.rec.done = f'Deleted the page "{title}".'


@MACROS.solves("navigate_to_page")
async def _navigate_solve(run: AppExecutor) -> None:
    path, title = str(run.target["path"]), str(run.target["title"])
    await run.step("click", _link(path, title), f"{title} link", f'Opening "{title}" from the sidebar.')
    run.rec.done = f'Opened the "{title}" page.'


def app_tasks(seed: int, size: int, per_macro: int) -> list[AppTask]:
    """The tasks on the wiki seeded with (seed, size pages), drawn with the same seed (the App's `tasks`)."""
    return MACROS.tasks(offer(adapter.template(seed, size)), seed, per_macro)
