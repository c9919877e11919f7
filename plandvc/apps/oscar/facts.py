"""The facts of the shop's tasks for the chain walk and the request composer: what a task asks in a user's
words (`Ask`), what it acts on (`control`) and its scope widened where Oscar's pages tie parts together.

Every task starts on the shop's home, the catalogue, so a part after a trip home can be any task, the
questions included. A part's `control` is what it acts on (the catalogue's query parameter or the category of
a list part; macro and entry otherwise). Its `scope` is the task's, widened where a part would undo an earlier
list part's query before that part is gated on (the catalogue's query is read on the chain's last page): a
question (report_information, count_entries), a category (filter_by_dropdown) and a search leave the
catalogue page and its query, so they claim every list scope; a sort drops the page number (the "Sort by"
form sends only `q` and `sort_by`), so it claims `page` (a page after a sort would keep it, but scopes are
symmetric). So no part continues on the catalogue after a list part: a chain is forms, searches, opens and
navigations joined by trips home, ending on a list part or a question.
"""

from __future__ import annotations

from collections.abc import Callable

from plandvc.apps.app import Facts
from plandvc.apps.oscar import adapter
from plandvc.apps.script import AppTask
from plandvc.records import Ask

SITE_NAME = "Oscar Shop"
HOME = "/catalogue/"  # the shop's home: its name in the header links there
TODAY = "2024-04-01"  # the seeded shop's today: its clock in a session (adapter.NOW)
LIST_SCOPES = tuple(f"query:/catalogue:{p}" for p in ("category", "sort_by", "page"))
SORT_COLUMNS = {"price": "Price", "title": "Title", "rating": "Customer rating", "newest": "Date added"}
LABELS = {"price": "Price", "colour": "Colour", "material": "Material", "upc": "UPC", "city": "City"}


def oscar_ask(task: AppTask) -> Ask:
    """The composer's facts of a shop task, from its target; a KeyError names a macro it does not know."""
    m, t = task["macro"], task["target"]
    ask: Ask = {
        "macro": m,
        "site": SITE_NAME,
        "page": "catalogue",
        "plural": "products",
        "singular": "product",
    }
    if "title" in t:
        ask["entry"] = str(t["title"])
    if m == "search_by_text":
        ask |= {
            "kind": "search",
            "impl": "form",
            "values": [str(t["word"])],
            "query": [["q", str(t["word"])]],
        }
    elif m in ("filter_by_dropdown", "count_entries"):
        # the header's "Browse store" menu is a dropdown of the categories (a Bootstrap menu of links)
        label = "Browse store" if m == "filter_by_dropdown" else "category"
        ask |= {"label": label, "kind": "dropdown", "impl": "select", "type": "enum"}
        ask |= {"values": [str(t["category"])], "query": [["category", str(t["category"])]]}
    elif m == "sort_by_form":
        key = str(t["key"])
        # the column a user names ("the lowest price"), not the option's text ("Price low to high")
        label = SORT_COLUMNS.get(key.split("-")[0], str(t["label"]))
        ask |= {"label": label, "kind": "sort", "impl": "select", "query": [["sort_by", key]]}
        ask |= {"dir": "desc" if key.endswith("desc") or key in ("rating", "newest") else "asc"}
        ask["type"] = (
            "number" if key.startswith("price") or key == "rating" else "date" if key == "newest" else "text"
        )
    elif m == "go_to_page":
        ask["number"] = int(t["page"])
    elif m == "report_information":
        ask["label"] = LABELS[str(t["field"])]
    elif m == "edit_entry":
        ask |= {"page": "address book", "plural": "addresses", "singular": "address"}
        ask |= {"entry": str(t["street"]), "label": "City", "values": [str(t["city"])]}
    elif m == "delete_entry":
        ask |= {"page": "notifications", "plural": "notifications", "singular": "notification"}
        ask["entry"] = str(t["subject"])
    elif m == "create_entry":
        ask |= {"page": "basket", "plural": "basket lines", "singular": "basket line"}
        ask["fields"] = [["Product", str(t["title"])], ["Quantity", "1"]]
    elif m == "navigate_to_page":
        ask["plural"] = str(t["title"]).lower()
    elif m != "open_entry":
        raise KeyError(f"{task['task_id']}: no facts for macro {m!r}")
    check = task["check"]
    if check["kind"] == "answer":
        ask["answer"] = str(check["expected"])
    return ask


def _control(task: AppTask) -> str:
    """What a task acts on: the catalogue's query parameter (or category) of a list part, else macro and entry."""
    m, t = task["macro"], task["target"]
    if m in ("filter_by_dropdown", "count_entries"):
        return "query:category"
    params = task["check"].get("params")
    if task["check"]["kind"] == "query" and isinstance(params, dict):
        return "query:" + ",".join(sorted(params))
    return f"{m}:{t.get('id', t.get('path', ''))}"


def _scope(task: AppTask) -> list[str]:
    """The task's scope, widened where a part would undo an earlier list part's query (the module docstring):
    a question, a category and a search leave the catalogue page and its query; a sort drops the page number
    (the "Sort by" form sends `q` and `sort_by` only), so it claims `page` too."""
    scope = set(task["scope"])
    if task["macro"] in ("report_information", "count_entries", "filter_by_dropdown", "search_by_text"):
        scope.update(LIST_SCOPES)
    if task["macro"] == "sort_by_form":
        scope.add("query:/catalogue:page")
    return sorted(scope)


def facts(seed: int, size: int) -> Callable[[AppTask], Facts]:
    """A task's facts on the shop seeded with (seed, size): the App's `facts` (the targets name their entries)."""
    adapter.template(seed, size)
    return lambda task: Facts(oscar_ask(task), _control(task), _scope(task))
