"""What a part asks for, as facts: the `Ask` of a kept task, read off its task.json and its site's spec.

The request composer (`plandvc.chains.compose`) writes a user's request and the planner's delegations from
these facts, never from the executor's instruction: the list's nouns, the control's label and implementation
(which widget this site draws), the values verbatim, the entry's name, a form's fields by their labels, the
query the part leaves on its list page, and a question's recorded answer. pool-items adds one to each item;
it is pure (a task and a spec in, an `Ask` out), so it is tested without a browser.
"""

from __future__ import annotations

from plandvc.macros import REGISTRY
from plandvc.records import Ask, Task
from plandvc.sites.model import FACET_KINDS, Control, Page, Spec, Table


def _text(v: object) -> str:
    """A value as the instructions and answers write it (numbers without a needless '.0')."""
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def entry_name(table: Table, entry_id: str) -> str:
    """The name an entry is known by (its label column), or its id when the table has no such row."""
    for row in table.rows:
        if str(row.get(table.key)) == entry_id:
            return _text(row.get(table.label, entry_id))
    return entry_id


def _page(spec: Spec, name: str) -> Page:
    page = spec.page(name)
    if page is None:
        raise KeyError(f"{spec.site}: no list page {name!r}")
    return page


def _control(page: Page, control_id: object) -> Control | None:
    return next((c for c in page.controls if c.control_id == control_id), None)


def ask_of(task: Task, spec: Spec) -> Ask:
    """The facts of one task on its site (`spec`); a KeyError names what the spec lacks."""
    target = dict(task.get("target") or {})
    page = _page(spec, str(target.get("page")))
    table = spec.table_of(page)
    ask: Ask = {
        "macro": task["macro"],
        "site": spec.name,
        "page": page.page,
        "plural": page.title.lower(),
        "singular": table.singular,
    }
    c = _control(page, target.get("control_id"))
    if c is not None:
        ask["kind"], ask["impl"] = c.kind, c.implementation
        if spec.theme.filters == "facets" and c.kind in FACET_KINDS:
            ask["impl"] = (
                "facets"  # a v3 facet sidebar: the values are links there, whatever the control's widget
            )
        if c.kind != "sort":
            ask["label"] = c.label
    if c is not None and c.column is not None:
        ask["type"] = table.column(c.column).type
    for key in ("value", "text"):
        if key in target:
            ask["values"] = [_text(target[key])]
    if "values" in target:
        ask["values"] = [_text(v) for v in target["values"]]
    if "start" in target and "end" in target:
        ask["values"] = [_text(target["start"]), _text(target["end"])]
    if "column" in target:
        col = table.column(str(target["column"]))
        ask["label"], ask["type"] = col.label, col.type
    if "dir" in target:
        ask["dir"] = str(target["dir"])
    if "field" in target:
        ask["label"] = table.column(str(target["field"])).label
    if "entry" in target:
        ask["entry"] = entry_name(table, str(target["entry"]))
    if "fields" in target:
        fields = dict(target["fields"])
        order = [c for c in table.create or table.column_names if c in fields] + sorted(
            set(fields) - set(table.create)
        )
        ask["fields"] = [[table.column(k).label, _text(fields[k])] for k in order]
    if "number" in target:
        ask["number"] = int(target["number"])
    if "tab" in target:
        ask["tab"] = str(target["tab"])
    if "typed" in target:
        ask["typed"] = str(target["typed"])
    m = REGISTRY.get(task["macro"])
    if m is not None and m.check == "clipboard" and table.copy:  # a copy: the column it copies
        ask["label"] = table.column(table.copy).label
    check = task["check"]
    params = check.get("params") if check.get("kind") in ("query", "visited") else None
    if isinstance(params, dict) and check.get("path") == f"/sites/{spec.site}/{page.page}":
        ask["query"] = [[k, str(v)] for k in sorted(params) for v in params[k]]
    if check.get("kind") == "answer":
        ask["answer"] = str(check.get("expected", ""))
    return ask
