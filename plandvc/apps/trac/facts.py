"""The facts of Trac's tasks for the chain walk and the request composer: what a task asks in a user's words
(`Ask`), what it acts on (`control`) and its scope widened where Trac's pages tie parts together.

A part's `control` is what it acts on (the query parameter of a list part; macro and ticket otherwise); its
`scope` is the task's, widened: a count also claims the status filter (it counts the list under it), and a
question (report_information) claims every query parameter, since it opens the ticket and so leaves the list
page a query part before it is gated on.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from plandvc.apps.app import Facts
from plandvc.apps.script import AppTask
from plandvc.apps.trac import adapter
from plandvc.checks import Row
from plandvc.records import Ask, ChainGoal, GoalRead, ItemRecord

SITE_NAME = "Trac"
HOME_QUERY = "/query"  # the ticket list: where goal chains' constraints stay
HOME = "/wiki"  # Trac's start page: the main navigation's "Wiki" link
TODAY = "2024-04-01"  # the seeded tracker's "today": after its last seeded ticket (docs/APPS.md)
# the query parameters of Trac's ticket list, as the tasks' scopes name them
QUERY_SCOPES = tuple(f"query:/query:{p}" for p in ("component", "status", "order", "page"))
LABELS = {"component": "Component", "priority": "Priority", "milestone": "Milestone", "type": "Type",
          "status": "Status", "reporter": "Reporter", "summary": "Summary", "owner": "Owner"}  # fmt: skip


# ── records ──────────────────────────────────────────────────────────────────


def _base(task: AppTask) -> Ask:
    return {
        "macro": task["macro"],
        "site": SITE_NAME,
        "page": "query",
        "plural": "tickets",
        "singular": "ticket",
    }


def trac_ask(task: AppTask, summaries: Mapping[int, str]) -> Ask:
    """The composer's facts of a Trac task, from its target (`summaries`: ticket id -> summary, the entry's
    name); a KeyError names a macro it does not know."""
    m, t = task["macro"], task["target"]
    ask = _base(task)
    if "id" in t:
        ask["entry"] = summaries[int(t["id"])]
    if m == "search_by_text":
        ask |= {
            "kind": "search",
            "impl": "form",
            "values": [str(t["word"])],
            "query": [["q", str(t["word"])]],
        }
    elif m in ("filter_by_dropdown", "count_entries"):
        ask |= {"label": "Component", "kind": "dropdown", "impl": "select", "type": "enum"}
        ask |= {"values": [str(t["component"])], "query": [["component", str(t["component"])]]}
    elif m == "filter_by_options":
        values = [str(v) for v in t["status"]]
        ask |= {"label": "Status", "kind": "options", "impl": "checkboxes", "type": "enum", "values": values}
        ask["query"] = [["status", v] for v in values]
    elif m == "sort_by_form":
        col = str(t["column"])
        key = "id" if col == "Ticket" else col.lower()
        label = "Ticket number" if col == "Ticket" else col  # the "Ticket" column holds the "#N" numbers
        ask |= {"label": label, "kind": "sort", "impl": "headers", "dir": "asc", "query": [["order", key]]}
        ask["type"] = "number" if col == "Ticket" else "text"
    elif m == "go_to_page":
        ask["number"] = int(t["page"])
    elif m in ("report_information", "edit_entry"):
        ask["label"] = LABELS[str(t["field"])]
        if m == "edit_entry":
            ask["values"] = [str(t["value"])]
    elif m == "create_entry":
        ask["fields"] = [[LABELS[k], str(t[k])] for k in ("summary", "component", "priority")]
    elif m == "navigate_to_page":
        ask["plural"] = str(t["title"]).lower()
    elif m not in ("open_entry", "delete_entry"):
        raise KeyError(f"{task['task_id']}: no facts for macro {m!r}")
    check = task["check"]
    if check["kind"] == "answer":
        ask["answer"] = str(check["expected"])
    return ask


def _control(task: AppTask) -> str:
    """What a task acts on: the query parameter of a list part, else its macro and ticket (or its page)."""
    params = task["check"].get("params")
    if task["check"]["kind"] == "query" and isinstance(params, dict):
        return "query:" + ",".join(sorted(params))
    if task["macro"] == "count_entries":
        return "query:component"
    t = task["target"]
    return f"{task['macro']}:{t.get('id', t.get('path', ''))}"


def _scope(task: AppTask) -> list[str]:
    """The task's scope, widened by Trac's pages: a count's answer depends on the status filter too (the list
    it counts), and a question opens the ticket, which leaves the list page a query part before it is gated
    on, so it claims every query scope (it ends a chain only after no list part)."""
    scope = set(task["scope"])
    if task["macro"] == "count_entries":
        scope.add("query:/query:status")
    if task["macro"] == "report_information":
        scope.update(QUERY_SCOPES)
    return sorted(scope)


def facts(seed: int, size: int) -> Callable[[AppTask], Facts]:
    """A task's facts on the Trac seeded with (seed, size): the entry names are its tickets' summaries."""
    summaries = {int(str(t["id"])): str(t["summary"]) for t in adapter.tickets(adapter.template(seed, size))}
    return lambda task: Facts(trac_ask(task, summaries), _control(task), _scope(task))


# ── goals ────────────────────────────────────────────────────────────────────

# where the query page shows a goal's answer: "Results (7 matches)" and the summary links of the result rows
COUNT_READ: GoalRead = {"selector": "span.numrows", "pattern": r"\((\d+) match"}
TOP_READ: GoalRead = {"selector": "table.tickets td.summary a"}


def query_rows(tickets: Sequence[Row], pairs: Sequence[tuple[str, str]]) -> list[Row]:
    """The tickets Trac's query page lists under the (param, value) pairs the constraints leave: components
    and statuses are each one of their values (the status filter's default is "not closed"), in the sort's
    order (only `order=id` is a goal's: the Ticket column, a number), else by id."""
    components = {v for k, v in pairs if k == "component"}
    statuses = {v for k, v in pairs if k == "status"}
    return [
        t
        for t in sorted(tickets, key=lambda t: int(t["id"] or 0))
        if (not components or t["component"] in components)
        and (t["status"] in statuses if statuses else t["status"] != "closed")
    ]


def goal_answer(tickets: Sequence[Row]) -> Callable[[Sequence[ItemRecord], str], ChainGoal | None]:
    """Trac's goals (`plandvc.chains.goals.Answer`), answered from its tickets: `count` the matches of the
    constraints (some, not all, of the open tickets), `top` the summary of the first ticket after a sort by the
    Ticket column (ids never tie)."""
    open_rows = query_rows(tickets, [])

    def answer(parts: Sequence[ItemRecord], kind: str) -> ChainGoal | None:
        pairs = [(str(k), str(v)) for r in parts for k, v in r["ask"].get("query", [])]
        rows = query_rows(tickets, pairs)
        if kind == "count":
            if not 0 < len(rows) < len(open_rows):
                return None
            return {"kind": "count", "page": HOME_QUERY, "expected": str(len(rows)), "read": COUNT_READ}
        if ("order", "id") not in pairs or not rows:
            return None  # only the Ticket column is a number Trac sorts by; other sorts ask no top
        first = rows[0]
        return {
            "kind": "top", "page": HOME_QUERY, "expected": str(first["summary"]), "value": str(first["id"]),
            "read": TOP_READ,
        }  # fmt: skip

    return answer


def goal(seed: int, size: int) -> Callable[[Sequence[ItemRecord], str], ChainGoal | None]:
    """The goal answerer of the Trac seeded with (seed, size tickets): the App's `goal`."""
    return goal_answer(adapter.tickets(adapter.template(seed, size)))
