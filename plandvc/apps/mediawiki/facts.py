"""The facts of the wiki's tasks for the chain walk and the request composer: what a task asks in a user's
words (`Ask`), what it acts on (`control`) and its scope (the task's own: every part starts from the main page
but the paging).
"""

from __future__ import annotations

from collections.abc import Callable

from plandvc.apps.app import Facts
from plandvc.apps.mediawiki import adapter
from plandvc.apps.script import AppTask
from plandvc.records import Ask

SITE_NAME = adapter.SITE_NAME
HOME = adapter.HOME  # the main page: the sidebar's "Main page" is the trip home
TODAY = "2024-04-01"  # MediaWiki's clock while serving (adapter.NOW)


def wiki_ask(task: AppTask) -> Ask:
    """The composer's facts of a wiki task, from its target; a KeyError names a macro it does not know."""
    m, t = task["macro"], task["target"]
    ask: Ask = {"macro": m, "site": SITE_NAME, "page": "pages", "plural": "pages", "singular": "page"}
    if "title" in t and m != "create_entry":
        ask["entry"] = str(t["title"])
    if m == "search_by_text":
        word = str(t["word"])
        ask |= {"kind": "search", "impl": "form", "values": [word], "query": [["search", word]]}
    elif m == "go_to_page":
        ask |= {"plural": "search results", "number": int(t["page"])}
    elif m == "count_entries":
        ask |= {"label": "Category", "values": [str(t["category"])]}
    elif m in ("report_information", "edit_entry"):
        ask["label"] = str(t["field"])
        if m == "edit_entry":
            ask["values"] = [str(t["value"])]
    elif m == "create_entry":
        ask["fields"] = [["Title", str(t["title"])], ["Text", str(t["text"])]]
    elif m == "navigate_to_page":
        ask["plural"] = str(t["title"]).lower()
    elif m not in ("open_entry", "delete_entry"):
        raise KeyError(f"{task['task_id']}: no facts for macro {m!r}")
    if task["check"]["kind"] == "answer":
        ask["answer"] = str(task["check"]["expected"])
    return ask


def _control(task: AppTask) -> str:
    """What a task acts on: the query parameter of a list part, else its macro and page (or path)."""
    params = task["check"].get("params")
    if task["check"]["kind"] in ("query", "visited") and isinstance(params, dict):
        return "query:" + ",".join(sorted(params))
    t = task["target"]
    return f"{task['macro']}:{t.get('id', t.get('path', t.get('category', '')))}"


def facts(seed: int, size: int) -> Callable[[AppTask], Facts]:
    """A task's facts on the wiki seeded with (seed, size). The scopes are the tasks' own: every part starts
    from the main page except the paging, so a question (a page's fact, a category's count) is reached by a
    trip home after any part that leaves no list state; a delete claims its page's category (the count)."""
    return lambda task: Facts(wiki_ask(task), _control(task), sorted(task["scope"]))
