"""Tasks on Trac 1.6 and their scripted solutions: one generator and one solution per macro its UI supports.

`offer(env)` tells the generators what Trac's pages offer on a seeded environment (its tickets, the values of
its ticket fields, the query page's page size); `tasks(offer, seed, per_macro)` draws each macro's tasks from
`random.Random(seed)` in a fixed order, so the tasks are a function of (environment, seed, per_macro). The
macros keep the registry's names and check kinds (`plandvc.macros`); what they do on Trac's pages:

| macro | Trac page | what the executor does | gate |
|---|---|---|---|
| search_by_text | any page, `/search` | types a word into the header's search box and submits | visited `/search?q=` |
| filter_by_dropdown | `/query` | adds the Component filter ("And" select), picks the value, Update | query `component` |
| sort_by_form | `/query` | clicks a result column's header | query `order` |
| go_to_page | `/query` | clicks a page number under the results | query `page` |
| open_entry | `/query` | pages through the open tickets to the ticket's link, clicks it | visited `/ticket/N` (last) |
| report_information | `/query`, `/ticket/N` | opens the ticket, reads the field from its property table | answer |
| count_entries | `/query` | filters by component, reads "(N matches)" | answer (number) |
| create_entry | `/newticket` | NEW TICKET, fills summary, picks component and priority, Create ticket | entry_created `ticket` |
| edit_entry | `/ticket/N` | opens the ticket, Modify Ticket, picks the new value, Submit changes | entry_updated `ticket` |
| delete_entry | `/ticket/N` | opens the ticket, "– Delete", then "Delete ticket" on the confirmation page | entry_deleted `ticket` |
| filter_by_options | `/query` | ticks the status checkboxes to the wanted set, Update | query `status` |
| navigate_to_page | any page | clicks the main navigation's link (Wiki, Timeline, Roadmap, View Tickets) | visited, last |

Tasks of one macro have distinct expected outcomes, so each task's gate can be shown to fail on a sibling's
real outcome (tests/test_apps_trac.py).
"""

from __future__ import annotations

import contextlib
import random
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from plandvc.apps.script import AppExecutor, AppTask, Draft, Macros
from plandvc.apps.trac import adapter
from plandvc.checks import Check, Row
from plandvc.macros.script import attr, every

SITE = "trac"
OPEN = ("new", "assigned", "accepted", "reopened")
QUESTION_FIELDS = ("component", "priority", "milestone", "type", "status", "reporter")
NEW_PROBLEMS = (
    "rejects valid codes", "needs a dark theme", "should remember the last choice", "misses a help link",
    "shows a blank page offline", "needs keyboard shortcuts",
)  # fmt: skip
SORTABLE = ("Ticket", "Summary", "Status", "Owner", "Type", "Milestone")
NAV = (("Wiki", "/wiki"), ("Timeline", "/timeline"), ("Roadmap", "/roadmap"), ("View Tickets", "/report"))


@dataclass(frozen=True)
class Offer:
    """What a seeded Trac's pages offer to task generators."""

    tickets: tuple[Row, ...]
    components: tuple[str, ...]
    milestones: tuple[str, ...]
    priorities: tuple[str, ...]
    types: tuple[str, ...]
    per_page: int

    def open_tickets(self) -> list[Row]:
        """The tickets the query page lists by default (status is not closed), in its order (priority, id)."""
        rank = {p: i for i, p in enumerate(self.priorities)}
        rows = [t for t in self.tickets if t["status"] in OPEN]
        return sorted(rows, key=lambda t: (rank.get(str(t["priority"]), 99), int(t["id"] or 0)))

    def pages(self) -> int:
        return -(-len(self.open_tickets()) // self.per_page)


def offer(env: Path) -> Offer:
    """The offer of a seeded environment, read from its database."""
    with contextlib.closing(sqlite3.connect(f"file:{env / 'db' / 'trac.db'}?mode=ro", uri=True)) as db:

        def names(sql: str) -> tuple[str, ...]:
            return tuple(r[0] for r in db.execute(sql))

        return Offer(
            tickets=tuple(adapter.tickets(env)),
            components=names("SELECT name FROM component ORDER BY name"),
            milestones=names("SELECT name FROM milestone ORDER BY due, name"),
            priorities=names("SELECT name FROM enum WHERE type='priority' ORDER BY CAST(value AS int)"),
            types=names("SELECT name FROM enum WHERE type='ticket_type' ORDER BY CAST(value AS int)"),
            per_page=int(adapter.INI["query"]["items_per_page"]),
        )


MACROS: Macros[Offer] = Macros(SITE)


# ── generators ────────────────────────────────────────────────────────────────


@MACROS.draws("search_by_text")
def _search(o: Offer, rng: random.Random) -> Iterator[Draft]:
    words = sorted({w for t in o.tickets for w in str(t["summary"]).lower().split() if len(w) >= 7})
    for word in rng.sample(words, len(words)):
        phrase = rng.choice(('Search the tracker for "{w}".', 'Find everything that mentions "{w}".'))
        yield (
            phrase.format(w=word),
            {"kind": "visited", "path": "/search", "params": {"q": [word]}},
            {"word": word},
            ["query:/search:q"],
            "/wiki",
        )


@MACROS.draws("filter_by_dropdown")
def _filter(o: Offer, rng: random.Random) -> Iterator[Draft]:
    for c in rng.sample(o.components, len(o.components)):
        phrase = rng.choice(
            (
                'Show only the open tickets in the "{c}" component.',
                'List the "{c}" tickets that are still open.',
            )
        )
        check: Check = {"kind": "query", "path": "/query", "params": {"component": [c]}}
        yield phrase.format(c=c), check, {"component": c}, ["query:/query:component"], "/query"


@MACROS.draws("sort_by_form")
def _sort(o: Offer, rng: random.Random) -> Iterator[Draft]:
    for col in rng.sample(SORTABLE, len(SORTABLE)):
        key = "id" if col == "Ticket" else col.lower()
        phrase = rng.choice(('Sort the open tickets by "{c}".', 'Order the ticket list by its "{c}" column.'))
        check: Check = {"kind": "query", "path": "/query", "params": {"order": [key]}}
        yield phrase.format(c=col), check, {"column": col}, ["query:/query:order"], "/query"


@MACROS.draws("go_to_page")
def _page(o: Offer, rng: random.Random) -> Iterator[Draft]:
    pages = list(range(2, min(o.pages(), 3) + 1))  # the numbers page 1 links to
    for n in rng.sample(pages, len(pages)):
        phrase = rng.choice(('Go to page "{n}" of the open tickets.', 'Show page "{n}" of the ticket list.'))
        check: Check = {"kind": "query", "path": "/query", "params": {"page": [str(n)]}}
        yield phrase.format(n=n), check, {"page": n}, ["query:/query:page"], "/query"


@MACROS.draws("open_entry")
def _open(o: Offer, rng: random.Random) -> Iterator[Draft]:
    for t in rng.sample(o.open_tickets(), len(o.open_tickets())):
        phrase = rng.choice(('Open the ticket "{s}".', 'Show me the ticket "{s}".'))
        check: Check = {"kind": "visited", "path": f"/ticket/{t['id']}", "last": True}
        yield phrase.format(s=t["summary"]), check, {"id": t["id"]}, [f"entry:ticket/{t['id']}"], "/query"


@MACROS.draws("report_information")
def _report(o: Offer, rng: random.Random) -> Iterator[Draft]:
    seen: set[str] = set()
    for t in rng.sample(o.open_tickets(), len(o.open_tickets())):
        field = rng.choice(QUESTION_FIELDS)
        value = str(t[field])
        if not value or value in seen:
            continue
        seen.add(value)
        phrase = rng.choice(('What is the {f} of the ticket "{s}"?', 'Tell me the {f} of the ticket "{s}".'))
        check: Check = {"kind": "answer", "expected": value}
        target = {"id": t["id"], "field": field}
        yield phrase.format(f=field, s=t["summary"]), check, target, [f"entry:ticket/{t['id']}"], "/query"


@MACROS.draws("count_entries")
def _count(o: Offer, rng: random.Random) -> Iterator[Draft]:
    counts: dict[str, int] = {}
    for t in o.open_tickets():
        counts[str(t["component"])] = counts.get(str(t["component"]), 0) + 1
    seen: set[int] = set()
    for c in rng.sample(o.components, len(o.components)):
        n = counts.get(c, 0)
        if n in seen:
            continue
        seen.add(n)
        phrase = rng.choice(
            ('How many open tickets are in the "{c}" component?', 'Count the open "{c}" tickets.')
        )
        check: Check = {"kind": "answer", "expected": str(n), "number": True}
        yield phrase.format(c=c), check, {"component": c}, ["query:/query:component"], "/query"


@MACROS.draws("create_entry")
def _create(o: Offer, rng: random.Random) -> Iterator[Draft]:
    taken = {str(t["summary"]) for t in o.tickets}
    pairs = [f"{s} {p}" for s in adapter.SUBJECTS for p in NEW_PROBLEMS if f"{s} {p}" not in taken]
    for summary in rng.sample(pairs, len(pairs)):
        c, p = rng.choice(o.components), rng.choice(o.priorities)
        phrase = rng.choice(
            (
                'File a ticket "{s}" in the "{c}" component with priority "{p}".',
                'Create a new "{p}" ticket "{s}" for the "{c}" component.',
            )
        )
        fields: Row = {"summary": summary, "component": c, "priority": p}
        check: Check = {"kind": "entry_created", "table": "ticket", "fields": fields}
        yield phrase.format(s=summary, c=c, p=p), check, dict(fields), ["table:ticket"], "/wiki"


@MACROS.draws("edit_entry")
def _edit(o: Offer, rng: random.Random) -> Iterator[Draft]:
    for t in rng.sample(o.open_tickets(), len(o.open_tickets())):
        field = rng.choice(("priority", "component", "milestone"))
        values = {"priority": o.priorities, "component": o.components, "milestone": o.milestones}[field]
        value = rng.choice([v for v in values if v != t[field]])
        phrase = rng.choice(
            ('Set the {f} of the ticket "{s}" to "{v}".', 'Change the ticket "{s}" so its {f} is "{v}".')
        )
        check: Check = {
            "kind": "entry_updated",
            "table": "ticket",
            "id": str(t["id"]),
            "fields": {field: value},
        }
        target = {"id": t["id"], "field": field, "value": value}
        scope = [f"entry:ticket/{t['id']}", "table:ticket"]
        yield phrase.format(f=field, s=t["summary"], v=value), check, target, scope, "/query"


@MACROS.draws("delete_entry")
def _delete(o: Offer, rng: random.Random) -> Iterator[Draft]:
    for t in rng.sample(o.open_tickets(), len(o.open_tickets())):
        phrase = rng.choice(('Delete the ticket "{s}".', 'Remove the ticket "{s}" from the tracker.'))
        check: Check = {"kind": "entry_deleted", "table": "ticket", "id": str(t["id"])}
        scope = [f"entry:ticket/{t['id']}", "table:ticket"]
        yield phrase.format(s=t["summary"]), check, {"id": t["id"]}, scope, "/query"


@MACROS.draws("filter_by_options")
def _options(o: Offer, rng: random.Random) -> Iterator[Draft]:
    sets = sorted({tuple(sorted(rng.sample(OPEN, rng.randint(1, 2)))) for _ in range(12)})
    for chosen in rng.sample(sets, len(sets)):
        words = " or ".join(f'"{s}"' for s in chosen)
        phrase = rng.choice(
            ("Show only the tickets whose status is {w}.", "List the tickets with status {w}.")
        )
        check: Check = {"kind": "query", "path": "/query", "params": {"status": list(chosen)}}
        yield phrase.format(w=words), check, {"status": list(chosen)}, ["query:/query:status"], "/query"


@MACROS.draws("navigate_to_page")
def _navigate(o: Offer, rng: random.Random) -> Iterator[Draft]:
    for title, path in rng.sample(NAV, len(NAV)):
        phrase = rng.choice(('Go to the "{t}" page.', 'Open the tracker\'s "{t}" page.'))
        check: Check = {"kind": "visited", "path": path, "last": True}
        yield phrase.format(t=title), check, {"path": path, "title": title}, [], "/query"


# ── solutions ─────────────────────────────────────────────────────────────────


@MACROS.solves("search_by_text")
async def _search_solve(run: AppExecutor) -> None:
    word = str(run.target["word"])
    await run.step("input", attr("id", "proj-search"), "search box", "Typing the search word.", word)
    await run.step(
        "click", every(attr("type", "submit"), attr("value", "Search")), "Search button", "Searching."
    )
    run.rec.done = f'Searched the tracker for "{word}".'


async def _filter_by_component(run: AppExecutor, component: str) -> None:
    await run.step(
        "select", attr("id", "add_filter_0"), "add-filter select", "Adding a Component filter.", "Component"
    )
    await run.step(
        "select", attr("name", "0_component"), "component filter", f'Choosing "{component}".', component
    )
    await run.step("click", attr("name", "update"), "Update button", "Applying the filters.")


@MACROS.solves("filter_by_dropdown")
async def _filter_solve(run: AppExecutor) -> None:
    c = str(run.target["component"])
    await _filter_by_component(run, c)
    run.rec.done = f'The query now shows the open tickets in "{c}".'


@MACROS.solves("sort_by_form")
async def _sort_solve(run: AppExecutor) -> None:
    col = str(run.target["column"])
    await run.step(
        "click",
        lambda e: e.tag == "a" and e.text == col and e.attrs.get("href", "").startswith("/query?"),
        f"{col} column header",
        f'Sorting by "{col}".',
    )
    run.rec.done = f'The tickets are sorted by "{col}".'


@MACROS.solves("go_to_page")
async def _page_solve(run: AppExecutor) -> None:
    n = str(run.target["page"])
    await run.step(
        "click",
        lambda e: e.tag == "a" and e.text == n and f"page={n}" in e.attrs.get("href", ""),
        f"page {n} link",
        f"Going to page {n}.",
    )
    run.rec.done = f"Showing page {n} of the tickets."


async def _to_ticket(run: AppExecutor, ticket: object) -> None:
    """From the query page, follow the pages to the ticket's summary link and open it."""
    href = f"/ticket/{ticket}"
    link = every(attr("href", href), lambda e: not e.text.startswith("#"))
    for _ in range(20):
        if await run.has(link):
            await run.step("click", link, f"link to ticket {ticket}", f"Opening ticket #{ticket}.")
            return
        await run.step(
            "click",
            lambda e: e.tag == "a" and e.text == "→" and "page=" in e.attrs.get("href", ""),
            "next page link",
            "The ticket is not on this page; going to the next one.",
        )
    raise RuntimeError(f"ticket {ticket} not found in the query pages")


@MACROS.solves("open_entry")
async def _open_solve(run: AppExecutor) -> None:
    await _to_ticket(run, run.target["id"])
    run.rec.done = f"Opened ticket #{run.target['id']}."


@MACROS.solves("report_information")
async def _report_solve(run: AppExecutor) -> None:
    field = str(run.target["field"])
    await _to_ticket(run, run.target["id"])
    # status and type stand beside the ticket's number; the other fields are rows of its property table
    where = {"status": "span.trac-status", "type": "span.trac-type"}
    run.rec.answer = await run.text(where.get(field, f'td[headers="h_{field}"]'))
    run.rec.done = f"The {field} is {run.rec.answer}."


@MACROS.solves("count_entries")
async def _count_solve(run: AppExecutor) -> None:
    c = str(run.target["component"])
    await _filter_by_component(run, c)
    run.rec.answer = (await run.text("span.numrows")).strip("()").split()[0]
    run.rec.done = f'There are {run.rec.answer} open tickets in "{c}".'


@MACROS.solves("create_entry")
async def _create_solve(run: AppExecutor) -> None:
    t = run.target
    await run.step("click", attr("href", "/newticket"), "NEW TICKET link", "Opening the new ticket form.")
    await run.step(
        "input", attr("id", "field-summary"), "summary field", "Entering the summary.", t["summary"]
    )
    await run.step(
        "select", attr("id", "field-component"), "component select", "Choosing the component.", t["component"]
    )
    await run.step(
        "select", attr("id", "field-priority"), "priority select", "Choosing the priority.", t["priority"]
    )
    await run.step("click", attr("name", "submit"), "Create ticket button", "Creating the ticket.")
    run.rec.done = f'Created the ticket "{t["summary"]}".'


@MACROS.solves("edit_entry")
async def _edit_solve(run: AppExecutor) -> None:
    t = run.target
    await _to_ticket(run, t["id"])
    await run.step("click", attr("id", "no3"), "Modify Ticket", "Opening the Modify Ticket section.")
    await run.step(
        "select",
        attr("id", f"field-{t['field']}"),
        f"{t['field']} select",
        f"Choosing {t['value']}.",
        t["value"],
    )
    await run.step("click", attr("name", "submit"), "Submit changes button", "Saving the change.")
    run.rec.done = f"Set the {t['field']} of ticket #{t['id']} to {t['value']}."


@MACROS.solves("delete_entry")
async def _delete_solve(run: AppExecutor) -> None:
    ticket = run.target["id"]
    await _to_ticket(run, ticket)
    await run.step(
        "click",
        every(attr("type", "submit"), lambda e: e.attrs.get("value", "").endswith("Delete")),
        "Delete button",
        f"Deleting ticket #{ticket}.",
    )
    await run.step(
        "click", every(attr("type", "submit"), attr("value", "Delete ticket")), "Delete ticket", "Confirming."
    )
    run.rec.done = f"Deleted ticket #{ticket}."


@MACROS.solves("filter_by_options")
async def _options_solve(run: AppExecutor) -> None:
    wanted = set(run.target["status"])
    for status in ("accepted", "assigned", "closed", "new", "reopened"):
        box = every(attr("name", "0_status"), attr("value", status))
        el = await run.find(box, f"{status} checkbox")
        if bool(el.checked) != (status in wanted):
            verb = "Ticking" if status in wanted else "Unticking"
            await run.step("click", box, f"{status} checkbox", f'{verb} "{status}".')
    await run.step("click", attr("name", "update"), "Update button", "Applying the filters.")
    run.rec.done = f"The query shows the tickets with status {' or '.join(sorted(wanted))}."


@MACROS.solves("navigate_to_page")
async def _navigate_solve(run: AppExecutor) -> None:
    path, title = str(run.target["path"]), str(run.target["title"])
    await run.step(
        "click",
        lambda e: e.tag == "a" and e.attrs.get("href") == path and e.text.casefold() == title.casefold(),
        f"{title} link",
        f'Opening "{title}" from the main navigation.',
    )
    run.rec.done = f'Opened the "{title}" page.'


def app_tasks(seed: int, size: int, per_macro: int) -> list[AppTask]:
    """The tasks on the Trac seeded with (seed, size tickets), drawn with the same seed (the App's `tasks`)."""
    return MACROS.tasks(offer(adapter.template(seed, size)), seed, per_macro)
