"""Per-session state over real HTTP: create and edit forms change `entries` and `changes`, reset restores,
bad form values are 400s that change nothing, and parallel sessions never see each other's state (with a
check that is shown to catch a leak)."""

from __future__ import annotations

import concurrent.futures as cf
from typing import Any

import pytest
from bundled import SPECS
from sites_http import Client, read_page

from plandvc.sites.spec import Table
from plandvc.sites.state import next_id

EDITABLE = [(s, p.page) for s, spec in sorted(SPECS.items()) for p in spec.pages if spec.table_of(p).edit]
CREATABLE = [(s, p.page) for s, spec in sorted(SPECS.items()) for p in spec.pages if spec.table_of(p).create]


def sample_value(t: Table, name: str, n: int = 0) -> str:
    """A valid form value for column `name` that differs from the first row's."""
    col = t.column(name)
    first = t.rows[0][name]
    if col.type == "enum":
        return next(v for v in col.values if v != first)
    if col.type == "number":
        return str(int(first) + 7 + n)
    if col.type == "date":
        return "2026-06-1" + str(n % 10)
    return f"Test Entry {n}"


def _table(site: str, page: str) -> Table:
    spec = SPECS[site]
    p = spec.page(page)
    assert p is not None
    return spec.table_of(p)


@pytest.mark.parametrize(("site", "page"), CREATABLE)
def test_create_form_adds_an_entry_and_a_change(base: str, site: str, page: str):
    t = _table(site, page)
    c = Client(base)
    status, html = c.get(f"/sites/{site}/{page}/new")
    assert status == 200
    r = read_page(html)
    form = next(f for f in r.forms if f["attrs"].get("data-form") == "create")
    assert form["attrs"]["method"] == "post"
    names = [a["name"] for tag, a in form["fields"] if tag in ("input", "select")]
    assert names == list(t.create)
    labels = {a["for"] for tag, a in r.attrs_seen if tag == "label" and "for" in a}
    assert all(a["id"] in labels for tag, a in form["fields"] if tag in ("input", "select"))

    fields = {n: sample_value(t, n) for n in t.create}
    status, headers, _ = c.post(f"/sites/{site}/{page}/new", fields)
    assert status == 303 and headers["Location"] == f"/sites/{site}/{page}"
    state = c.state(site)
    new_id = next_id(t, list(t.rows))
    created = state["entries"][t.name][-1]
    assert created[t.key] == new_id and len(state["entries"][t.name]) == len(t.rows) + 1
    (change,) = state["changes"]
    assert change["op"] == "create" and change["seq"] == 1 and change["id"] == new_id
    assert change["table"] == t.name and change["before"] is None
    assert set(change["fields"]) == set(t.create)
    status, html = c.get(f"/sites/{site}/{page}")
    assert read_page(html).count == f"Showing {len(t.rows) + 1} {SPECS[site].page(page).title}"
    assert c.get(f"/sites/{site}/{page}/{new_id}")[0] == 200
    # a second create gets the next id; reset restores the spec's rows
    c.post(f"/sites/{site}/{page}/new", fields)
    assert c.state(site)["changes"][-1]["id"] == next_id(t, [*t.rows, {t.key: new_id}])
    assert c.reset(site)["changes"] == []
    assert c.state(site)["entries"][t.name] == [dict(r) for r in t.rows]
    c.close()


@pytest.mark.parametrize(("site", "page"), EDITABLE)
def test_edit_form_updates_an_entry_and_logs_before(base: str, site: str, page: str):
    t = _table(site, page)
    c = Client(base)
    row = t.rows[0]
    href = f"/sites/{site}/{page}/{row[t.key]}"
    status, html = c.get(f"{href}/edit")
    assert status == 200 and b'data-form="edit"' in html
    field = t.edit[0]
    form = {n: str(row[n]) for n in t.edit} | {field: sample_value(t, field)}
    status, headers, _ = c.post(f"{href}/edit", form)
    assert status == 303 and headers["Location"] == href
    state = c.state(site)
    (change,) = state["changes"]
    assert change["op"] == "update" and change["id"] == row[t.key] and change["table"] == t.name
    assert set(change["fields"]) == {field} and change["before"] == {field: row[field]}
    updated = next(r for r in state["entries"][t.name] if r[t.key] == row[t.key])
    assert str(updated[field]) == form[field]
    # an unchanged submit logs nothing
    c.post(f"{href}/edit", form)
    assert len(c.state(site)["changes"]) == 1
    c.reset(site)
    assert c.state(site) == {"entries": {n: [dict(r) for r in tb.rows] for n, tb in SPECS[site].tables.items()},
                             "changes": []}  # fmt: skip
    c.close()


def test_detail_page_has_a_copy_button_and_an_edit_link(base: str):
    c = Client(base)
    status, html = c.get("/sites/shop/orders/ORD-1042")
    assert status == 200
    r = read_page(html)
    (button,) = [a for tag, a in r.attrs_seen if tag == "button" and "data-copy" in a]
    assert button["data-copy"] == "ORD-1042"
    assert button["onclick"] == "navigator.clipboard.writeText(this.dataset.copy)"
    assert ("a", {"href": "/sites/shop/orders/ORD-1042/edit", "data-action": "edit"}) in r.attrs_seen
    c.close()


BAD_FORMS = [
    ("missing field", lambda f: f.pop("customer")),
    ("empty field", lambda f: f.update(customer="  ")),
    ("unknown enum value", lambda f: f.update(status="Lost")),
    ("non-number", lambda f: f.update(total="12,50")),
    ("not finite", lambda f: f.update(total="nan")),
    ("bad date", lambda f: f.update(placed="2026-02-30")),
    ("repeated field", lambda f: f.update(status=["Paid", "Shipped"])),
]


@pytest.mark.parametrize(("what", "breaks"), BAD_FORMS, ids=[b[0] for b in BAD_FORMS])
def test_bad_form_values_are_400s_and_change_nothing(base: str, what: str, breaks: Any):
    c = Client(base)
    good = {"customer": "Nia Clarke", "status": "Paid", "channel": "Web", "total": "42.50", "items": "2",
            "placed": "2026-03-01"}  # fmt: skip
    form = dict(good)
    breaks(form)
    status, _, html = c.post("/sites/shop/orders/new", form)
    assert status == 400 and b"400 Bad request" in html
    assert c.state("shop")["changes"] == []
    if "status" in form and "total" in form:  # the edit form (status, total) rejects the same values
        status, _, _ = c.post(
            "/sites/shop/orders/ORD-1031/edit", {"status": form["status"], "total": form["total"]}
        )
        assert status == (303 if form["status"] == "Paid" and form["total"] == "42.50" else 400)
        c.reset("shop")
    assert c.get("/_health") == (200, b"ok")
    status, _, _ = c.post("/sites/shop/orders/new", good)  # the same form, unbroken, is accepted
    assert status == 303 and len(c.state("shop")["changes"]) == 1
    c.close()


def test_wrong_methods_and_bodies(base: str):
    c = Client(base)
    assert c.post("/sites/shop/orders", {"a": "b"})[0] == 405
    assert c.request("GET", "/_state/shop/reset")[0] == 405
    assert c.post("/sites/shop/orders/ORD-9999/edit", {"status": "Paid", "total": "3"})[0] == 404
    assert c.post("/sites/hotel/rooms/new", {"room": "x"})[0] == 404
    status, headers, body = c.request("HEAD", "/sites/shop/orders")
    assert status == 200 and body == b"" and int(headers["Content-Length"]) > 1000
    assert c.request("PUT", "/sites/shop/orders")[0] == 501  # the stdlib's answer; the server keeps serving
    assert c.get("/_health") == (200, b"ok")
    c.close()


# ── isolation ────────────────────────────────────────────────────────────────


def session_work(base: str, session: str | None, k: int) -> dict[str, Any]:
    """One session creates k orders with its own customer name and edits one order; returns its state."""
    c = Client(base, session)
    c.get("/sites/shop")
    for i in range(k):
        fields = {"customer": f"Worker {k} Buyer {i}", "status": "Paid", "channel": "Web", "total": str(10 + k),
                  "items": "1", "placed": "2026-03-02"}  # fmt: skip
        assert c.post("/sites/shop/orders/new", fields)[0] == 303
    c.post("/sites/shop/orders/ORD-1031/edit", {"status": "Shipped", "total": str(100 + k)})
    state = c.state("shop")
    html = c.get("/sites/shop/orders")[1]
    c.close()
    return {"k": k, "state": state, "count": read_page(html).count}


def isolation_problems(results: list[dict[str, Any]]) -> list[str]:
    """What a session saw that it did not make itself (empty when sessions are isolated)."""
    problems = []
    base_n = len(SPECS["shop"].tables["orders"].rows)
    for r in results:
        k, state = r["k"], r["state"]
        names = [o["customer"] for o in state["entries"]["orders"][base_n:]]
        if names != [f"Worker {k} Buyer {i}" for i in range(k)]:
            problems.append(f"session {k} sees created entries {names}")
        if len(state["changes"]) != k + 1 or [c["seq"] for c in state["changes"]] != list(range(1, k + 2)):
            problems.append(f"session {k} has {len(state['changes'])} changes")
        edited = next(o for o in state["entries"]["orders"] if o["id"] == "ORD-1031")
        if edited["total"] != 100 + k:
            problems.append(f"session {k} sees ORD-1031 total {edited['total']}")
        if r["count"] != f"Showing {base_n + k} Orders":
            problems.append(f"session {k} lists {r['count']}")
    return problems


def test_four_parallel_sessions_see_only_their_own_state(base: str):
    with cf.ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda k: session_work(base, None, k), [1, 2, 3, 4]))
    t = SPECS["shop"].tables["orders"]
    first_new = next_id(t, list(t.rows))
    assert [r["state"]["entries"]["orders"][len(t.rows)]["id"] for r in results] == [
        first_new
    ] * 4  # own counters
    assert isolation_problems(results) == []
    fresh = Client(base)
    assert fresh.state("shop")["changes"] == []  # a new session starts from the spec
    fresh.close()


def test_the_isolation_check_catches_a_shared_session(base: str):
    """The same work under one shared session id leaks: the check above must then report problems."""
    with cf.ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda k: session_work(base, "shared-by-all", k), [1, 2, 3, 4]))
    problems = isolation_problems(results)
    assert len(problems) >= 4, problems
    Client(base, "shared-by-all").reset("shop")
