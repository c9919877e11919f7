"""Tasks on the django-oscar 4.2 shop and their scripted solutions: one generator and one solution per macro its
UI supports.

`offer(env)` tells the generators what the shop's pages offer on a seeded env (its products, categories, the
customer's basket, the list's page size and order); `tasks(offer, seed, per_macro)` draws each macro's tasks
from `random.Random(seed)` in a fixed order, so the tasks are a function of (env, seed, per_macro). Every task
starts on the shop's home, the catalogue (`/catalogue/`, where `/` redirects). The macros keep the
registry's names and check kinds (`plandvc.macros`); what they do on Oscar's pages:

| macro | Oscar page | what the executor does | gate |
|---|---|---|---|
| search_by_text | the header | types a word into the search box, Search | visited `/search/?q=` |
| filter_by_dropdown | the header | opens the "Browse store" menu, clicks a category | query: the category's page |
| sort_by_form | `/catalogue/` | picks an order in the "Sort by" select (its change handler submits the form) | query `sort_by` |
| go_to_page | `/catalogue/` | clicks "next" under the products until the page | query `page` |
| open_entry | `/catalogue/` | pages on ("next") until the product's link shows, clicks it | visited the product's page, last |
| report_information | the header, a product page | searches the product's title, opens it, reads a row of "Product Information" or the price | answer |
| count_entries | the header, a category page | opens the category from "Browse store", reads "N results" | answer (number) |
| create_entry | a product page | searches the product, opens it, Add to basket | entry_created `basket_line` |
| edit_entry | `/accounts/addresses/N/` | Account, Address Book, the address's Edit, types the city, Save | entry_updated `address` |
| delete_entry | `/accounts/notifications/inbox/` | Account, Notifications, ticks the notification, Delete | entry_deleted `notification` |
| navigate_to_page | the header | clicks Account, View basket, or Offers in the "Browse store" menu | visited, last |

Not on the shop: filter_by_options (Oscar's facets are checkboxes, but the Whoosh backend facets only by the
category's id and the product class, and a selected facet hides its field's other values: no multi-choice),
filter_by_slider and filter_by_date_range (no such widgets), copy_value, switch_tab, choose_suggestion.
Tasks of one macro have distinct expected outcomes, so each task's gate can be shown to fail on a sibling's
real outcome (tests/test_apps_oscar.py).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from plandvc.apps.oscar import adapter
from plandvc.apps.script import AppExecutor, AppTask, Draft, Macros
from plandvc.checks import Check, Row
from plandvc.macros.script import ScriptError, attr, every

if TYPE_CHECKING:
    from plandvc.browser import Element

SITE = "oscar"
HOME = "/catalogue/"
# the "Sort by" select's options (Oscar's SearchForm), by query value; "relevancy" is the default
SORTS = (
    ("rating", "Customer rating"), ("newest", "Newest"), ("price-desc", "Price high to low"),
    ("price-asc", "Price low to high"), ("title-asc", "Title A to Z"), ("title-desc", "Title Z to A"),
)  # fmt: skip
# the "Product Information" rows a question reads, by the product's field
QUESTION_FIELDS = {"price": "Price (incl. tax)", "colour": "Colour", "material": "Material", "upc": "UPC"}
NAV = (("Account", "/accounts/profile/"), ("Basket", "/basket/"), ("Offers", "/offers/"))


@dataclass(frozen=True)
class Offer:
    """What a seeded shop's pages offer to task generators."""

    products: tuple[Row, ...]  # in the catalogue's order (the index's)
    categories: tuple[tuple[str, str], ...]  # (name, path), by name
    basket: tuple[Row, ...]  # the customer's basket lines, by id
    addresses: tuple[Row, ...]  # the customer's address book, by id
    notifications: tuple[Row, ...]  # the customer's notifications, by id
    per_page: int

    def pages(self) -> int:
        return -(-len(self.products) // self.per_page)

    def path(self, p: Row) -> str:
        return f"/catalogue/{p['slug']}_{p['id']}/"


def offer(env: Path) -> Offer:
    """The offer of a seeded env, read from its database."""
    rows = adapter.products(env)
    cats = sorted(
        {(str(r["category"]), f"/catalogue/category/{r['category_path']}_{r['category_id']}/") for r in rows}
    )
    return Offer(
        tuple(rows),
        tuple(cats),
        tuple(adapter.basket_lines(env)),
        tuple(adapter.addresses(env)),
        tuple(adapter.notifications(env)),
        adapter.PER_PAGE,
    )


MACROS: Macros[Offer] = Macros(SITE)


# ── generators ────────────────────────────────────────────────────────────────


@MACROS.draws("search_by_text")
def _search(o: Offer, rng: random.Random) -> Iterator[Draft]:
    words = sorted({w for p in o.products for w in str(p["title"]).lower().split() if len(w) >= 5})
    for word in rng.sample(words, len(words)):
        phrase = rng.choice(('Search the shop for "{w}".', 'Find the products that match "{w}".'))
        check: Check = {"kind": "visited", "path": "/search/", "params": {"q": [word]}}
        yield phrase.format(w=word), check, {"word": word}, ["query:/search:q"], HOME


@MACROS.draws("filter_by_dropdown")
def _filter(o: Offer, rng: random.Random) -> Iterator[Draft]:
    for name, path in rng.sample(o.categories, len(o.categories)):
        phrase = rng.choice(('Show only the products in the "{c}" category.', 'Browse the "{c}" category.'))
        check: Check = {"kind": "query", "path": path, "params": {}}
        yield (
            phrase.format(c=name),
            check,
            {"category": name, "path": path},
            ["query:/catalogue:category"],
            HOME,
        )


@MACROS.draws("sort_by_form")
def _sort(o: Offer, rng: random.Random) -> Iterator[Draft]:
    for key, label in rng.sample(SORTS, len(SORTS)):
        phrase = rng.choice(('Sort the products by "{s}".', 'Order the product list "{s}".'))
        check: Check = {"kind": "query", "path": HOME, "params": {"sort_by": [key]}}
        yield phrase.format(s=label), check, {"key": key, "label": label}, ["query:/catalogue:sort_by"], HOME


@MACROS.draws("go_to_page")
def _page(o: Offer, rng: random.Random) -> Iterator[Draft]:
    pages = list(range(2, o.pages() + 1))
    for n in rng.sample(pages, len(pages)):
        phrase = rng.choice(('Go to page "{n}" of the products.', 'Show page "{n}" of the product list.'))
        check: Check = {"kind": "query", "path": HOME, "params": {"page": [str(n)]}}
        yield phrase.format(n=n), check, {"page": n}, ["query:/catalogue:page"], HOME


@MACROS.draws("open_entry")
def _open(o: Offer, rng: random.Random) -> Iterator[Draft]:
    for p in rng.sample(o.products, len(o.products)):
        phrase = rng.choice(('Open the product page of "{t}".', 'Show me the "{t}".'))
        check: Check = {"kind": "visited", "path": o.path(p), "last": True}
        target = {"id": p["id"], "title": p["title"], "path": o.path(p)}
        yield phrase.format(t=p["title"]), check, target, [f"entry:product/{p['id']}"], HOME


@MACROS.draws("report_information")
def _report(o: Offer, rng: random.Random) -> Iterator[Draft]:
    seen: set[str] = set()
    for p in rng.sample(o.products, len(o.products)):
        field = rng.choice(sorted(QUESTION_FIELDS))
        value = f"£{p['price']}" if field == "price" else str(p[field])
        if value in seen:
            continue
        seen.add(value)
        label = QUESTION_FIELDS[field].split(" (")[0].lower()
        label = "UPC" if field == "upc" else label
        phrase = rng.choice(('What is the {f} of the "{t}"?', 'Tell me the {f} of the "{t}".'))
        check: Check = {"kind": "answer", "expected": value}
        target = {"id": p["id"], "title": p["title"], "path": o.path(p), "field": field}
        yield phrase.format(f=label, t=p["title"]), check, target, [f"entry:product/{p['id']}"], HOME


@MACROS.draws("count_entries")
def _count(o: Offer, rng: random.Random) -> Iterator[Draft]:
    counts: dict[str, int] = {}
    for p in o.products:
        counts[str(p["category"])] = counts.get(str(p["category"]), 0) + 1
    seen: set[int] = set()
    for name, path in rng.sample(o.categories, len(o.categories)):
        if counts[name] in seen:
            continue
        seen.add(counts[name])
        phrase = rng.choice(('How many products are in the "{c}" category?', 'Count the products in "{c}".'))
        check: Check = {"kind": "answer", "expected": str(counts[name]), "number": True}
        yield (
            phrase.format(c=name),
            check,
            {"category": name, "path": path},
            ["query:/catalogue:category"],
            HOME,
        )


@MACROS.draws("create_entry")
def _create(o: Offer, rng: random.Random) -> Iterator[Draft]:
    in_basket = {str(line["product"]) for line in o.basket}
    for p in rng.sample(o.products, len(o.products)):
        if str(p["title"]) in in_basket or not int(p["stock"] or 0):
            continue
        phrase = rng.choice(('Add the "{t}" to the basket.', 'Put one "{t}" in my basket.'))
        fields: Row = {"product": p["title"], "quantity": 1}
        check: Check = {"kind": "entry_created", "table": "basket_line", "fields": fields}
        target = {"id": p["id"], "title": p["title"], "path": o.path(p)}
        yield phrase.format(t=p["title"]), check, target, ["table:basket_line"], HOME


@MACROS.draws("edit_entry")
def _edit(o: Offer, rng: random.Random) -> Iterator[Draft]:
    for a in rng.sample(o.addresses, len(o.addresses)):
        city = rng.choice([c for c in adapter.UK_CITIES if c != a["city"]])
        phrase = rng.choice(
            ('Change the city of my address "{s}" to "{c}".', 'My address "{s}" is in "{c}" now: update it.')
        )
        check: Check = {
            "kind": "entry_updated",
            "table": "address",
            "id": str(a["id"]),
            "fields": {"city": city},
        }
        target = {"id": a["id"], "street": a["street"], "city": city}
        yield phrase.format(s=a["street"], c=city), check, target, ["table:address"], HOME


@MACROS.draws("delete_entry")
def _delete(o: Offer, rng: random.Random) -> Iterator[Draft]:
    for n in rng.sample(o.notifications, len(o.notifications)):
        phrase = rng.choice(
            ('Delete the notification "{s}".', 'Remove the notification "{s}" from my inbox.')
        )
        check: Check = {"kind": "entry_deleted", "table": "notification", "id": str(n["id"])}
        target = {"id": n["id"], "subject": n["subject"]}
        yield phrase.format(s=n["subject"]), check, target, ["table:notification"], HOME


@MACROS.draws("navigate_to_page")
def _navigate(o: Offer, rng: random.Random) -> Iterator[Draft]:
    for title, path in rng.sample(NAV, len(NAV)):
        phrase = rng.choice(('Go to the "{t}" page.', 'Open the shop\'s "{t}" page.'))
        check: Check = {"kind": "visited", "path": path, "last": True}
        yield phrase.format(t=title), check, {"path": path, "title": title}, [], HOME


# ── solutions ─────────────────────────────────────────────────────────────────


async def _search_for(run: AppExecutor, text: str) -> None:
    await run.step("input", attr("id", "id_q"), "search box", "Typing into the shop's search box.", text)
    await run.step(
        "click", lambda e: e.tag == "button" and e.text == "Search", "Search button", "Searching the shop."
    )


@MACROS.solves("search_by_text")
async def _search_solve(run: AppExecutor) -> None:
    word = str(run.target["word"])
    await _search_for(run, word)
    run.rec.done = f'Searched the shop for "{word}".'


async def _browse(run: AppExecutor, name: str, path: str) -> None:
    """Open the header's "Browse store" menu and click the category."""
    await run.step(
        "click", attr("id", "navbarDropdown"), "Browse store menu", 'Opening the "Browse store" menu.'
    )
    await run.step(
        "click", every(attr("href", path), lambda e: e.text == name), f"{name} link", f'Choosing "{name}".'
    )


@MACROS.solves("filter_by_dropdown")
async def _filter_solve(run: AppExecutor) -> None:
    name = str(run.target["category"])
    await _browse(run, name, str(run.target["path"]))
    run.rec.done = f'Showing the products in "{name}".'


@MACROS.solves("sort_by_form")
async def _sort_solve(run: AppExecutor) -> None:
    label = str(run.target["label"])
    await run.step("select", attr("id", "id_sort_by"), "Sort by select", f'Sorting by "{label}".', label)
    run.rec.done = f'The products are sorted by "{label}".'


def _next_link(e: Element) -> bool:
    return bool(e.tag == "a" and e.text == "next" and "page=" in e.attrs.get("href", ""))


@MACROS.solves("go_to_page")
async def _page_solve(run: AppExecutor) -> None:
    n = int(run.target["page"])
    for k in range(2, n + 1):
        await run.step("click", _next_link, "next page link", f"Going to page {k}.")
    run.rec.done = f"Showing page {n} of the products."


async def _to_product(run: AppExecutor, path: str, title: str) -> None:
    """From the catalogue, follow "next" to the product's title link and open it."""
    link = every(attr("href", path), lambda e: e.text == title)
    for _ in range(20):
        if await run.has(link):
            await run.step("click", link, f"link to {title}", f'Opening "{title}".')
            return
        await run.step("click", _next_link, "next page link", "The product is not on this page; going on.")
    raise ScriptError(f"{run.task['task_id']}: {title} not found in the catalogue's pages")


async def _find_product(run: AppExecutor, path: str, title: str) -> None:
    """Search the product's title and open it from the results."""
    await _search_for(run, title)
    await run.step(
        "click",
        every(attr("href", path), lambda e: e.text == title),
        f"link to {title}",
        f'Opening "{title}".',
    )


@MACROS.solves("open_entry")
async def _open_solve(run: AppExecutor) -> None:
    await _to_product(run, str(run.target["path"]), str(run.target["title"]))
    run.rec.done = f'Opened the page of "{run.target["title"]}".'


@MACROS.solves("report_information")
async def _report_solve(run: AppExecutor) -> None:
    t = run.target
    await _find_product(run, str(t["path"]), str(t["title"]))
    row = QUESTION_FIELDS[str(t["field"])]
    run.rec.answer = await run.text(f'xpath=//table//tr[th[normalize-space()="{row}"]]/td')
    run.rec.done = f"The {row.split(' (')[0].lower()} is {run.rec.answer}."


@MACROS.solves("count_entries")
async def _count_solve(run: AppExecutor) -> None:
    name = str(run.target["category"])
    await _browse(run, name, str(run.target["path"]))
    run.rec.answer = await run.text(
        'xpath=(//div[contains(@class, "page_inner")]//form[@method="get"]//strong)[1]'
    )
    run.rec.done = f'There are {run.rec.answer} products in "{name}".'


@MACROS.solves("create_entry")
async def _create_solve(run: AppExecutor) -> None:
    t = run.target
    await _find_product(run, str(t["path"]), str(t["title"]))
    await run.step(
        "click",
        lambda e: e.tag == "button" and e.attrs.get("value") == "Add to basket",
        "Add to basket button",
        "Adding it to the basket.",
    )
    run.rec.done = f'Added the "{t["title"]}" to the basket.'


async def _to_basket(run: AppExecutor) -> None:
    await run.step(
        "click",
        lambda e: e.tag == "button" and e.text == "View basket",
        "View basket button",
        "Opening the basket.",
    )


async def _to_account(run: AppExecutor) -> None:
    await run.step(
        "click",
        every(attr("href", "/accounts/"), lambda e: e.text == "Account"),
        "Account link",
        "Opening my account.",
    )


async def _to_addresses(run: AppExecutor) -> None:
    await _to_account(run)
    await run.step(
        "click", every(attr("href", "/accounts/addresses/"), lambda e: e.text == "Address Book"), "Address Book link",
        "Opening the address book.",
    )  # fmt: skip


@MACROS.solves("edit_entry")
async def _edit_solve(run: AppExecutor) -> None:
    t = run.target
    await _to_addresses(run)
    await run.step(
        "click", every(attr("href", f"/accounts/addresses/{t['id']}/"), lambda e: e.text == "Edit"), "Edit button",
        f'Editing the address "{t["street"]}".',
    )  # fmt: skip
    await run.step("input", attr("id", "id_line4"), "City field", "Entering the new city.", str(t["city"]))
    await run.step(
        "click", lambda e: e.tag == "button" and e.text == "Save", "Save button", "Saving the address."
    )
    run.rec.done = f'The address "{t["street"]}" is in {t["city"]} now.'


@MACROS.solves("delete_entry")
async def _delete_solve(run: AppExecutor) -> None:
    t = run.target
    await _to_account(run)
    await run.step(
        "click", every(attr("href", "/accounts/notifications/inbox/"), lambda e: e.text == "Notifications"),
        "Notifications link", "Opening the notifications.",
    )  # fmt: skip
    await run.step(
        "click", every(attr("name", "selected_notification"), attr("value", str(t["id"]))), "its checkbox",
        f'Selecting "{t["subject"]}".',
    )  # fmt: skip
    await run.step(
        "click",
        every(attr("name", "action"), attr("value", "delete")),
        "Delete button",
        "Deleting the selected.",
    )
    run.rec.done = f'Deleted the notification "{t["subject"]}".'


@MACROS.solves("navigate_to_page")
async def _navigate_solve(run: AppExecutor) -> None:
    title = str(run.target["title"])
    if title == "Basket":
        await _to_basket(run)
    elif title == "Offers":
        await run.step(
            "click", attr("id", "navbarDropdown"), "Browse store menu", 'Opening the "Browse store" menu.'
        )
        await run.step(
            "click",
            every(attr("href", "/offers/"), lambda e: e.text == "Offers"),
            "Offers link",
            "Opening the offers.",
        )
    else:
        await run.step(
            "click",
            every(attr("href", "/accounts/"), lambda e: e.text == "Account"),
            "Account link",
            "Opening my account.",
        )
    run.rec.done = f'Opened the "{title}" page.'


def app_tasks(seed: int, size: int, per_macro: int) -> list[AppTask]:
    """The tasks on the shop seeded with (seed, size products), drawn with the same seed (the App's `tasks`)."""
    return MACROS.tasks(offer(adapter.template(seed, size)), seed, per_macro)
