"""Gates: each check kind passes on a right state and fails on a wrong value, a wrong page, a missing entry or an
extra change; bad checks are InputErrors."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from plandvc import checks
from plandvc.checks import KINDS, gate, normalise_answer
from plandvc.io import InputError

EX = {"exclusive": True}


def state(**kw: Any) -> dict[str, Any]:
    """A session after creating order 1003 and shipping order 1001, on a filtered orders page."""
    s = {
        "url": "/sites/shop/orders?status=Shipped&channel=web&channel=phone&max_total=300",
        "seen": ["/sites/shop", "/sites/shop/orders", "/sites/shop/orders?q=ada", "/sites/shop/orders/1001"],
        "entries": {
            "orders": [
                {"id": "1001", "customer": "Ada Byrne", "status": "Shipped", "total": 120},
                {"id": "1002", "customer": "Bo Chen", "status": "Pending", "total": 80},
                {"id": "1003", "customer": "Cy Dune", "status": "Pending", "total": "45.00"},
            ],
            "customers": [{"id": "7", "name": "Ada Byrne"}],
        },
        "changes": [
            {
                "seq": 1,
                "op": "create",
                "table": "orders",
                "id": "1003",
                "fields": {"customer": "Cy Dune", "status": "Pending", "total": "45.00"},
                "before": None,
            },
            {
                "seq": 2,
                "op": "update",
                "table": "customers",
                "id": "7",
                "fields": {"name": "Ada Byrne"},
                "before": {"name": "Ada B."},
            },
        ],
        "clipboard": ["1001", "  Ada Byrne "],
        "events": [],
        "answer": "1,200.50",
    }
    s.update(kw)
    return s


def ok(
    check: dict[str, Any], st: dict[str, Any] | None = None, verifier: dict[str, Any] | None = None
) -> bool:
    passed, detail = gate(check, verifier, st if st is not None else state())
    assert isinstance(detail, str) and detail and "\n" not in detail
    return passed


# ── query ─────────────────────────────────────────────────────────────────────

Q = {"kind": "query", "path": "/sites/shop/orders", "params": {"status": ["Shipped"]}}


def test_query_passes_and_ignores_unlisted_params() -> None:
    assert ok(Q)
    assert ok({**Q, "params": {"status": "Shipped", "max_total": [300]}})  # scalar value, number by value
    assert ok({**Q, "params": {"channel": ["phone", "web"]}})  # options: order-insensitive


def test_query_fails_on_wrong_value_page_or_missing_param() -> None:
    assert not ok({**Q, "params": {"status": ["Pending"]}})
    assert not ok({**Q, "params": {"channel": ["web"]}})  # one option short
    assert not ok({**Q, "params": {"sort": ["placed"]}})
    assert not ok({**Q, "path": "/sites/shop/customers"})
    assert not ok(Q, state(url="/sites/shop"))
    assert not ok(Q, state(url=None))


def test_query_reads_the_last_page_only() -> None:
    s = state(url="/sites/shop/orders", seen=["/sites/shop/orders?status=Shipped", "/sites/shop/orders"])
    assert not ok(Q, s)


def test_query_detail_names_expected_and_found() -> None:
    passed, detail = gate({**Q, "params": {"status": ["Pending"]}}, None, state())
    assert not passed and "Pending" in detail and "Shipped" in detail


# ── visited ───────────────────────────────────────────────────────────────────


def test_visited_any_page_with_params() -> None:
    assert ok({"kind": "visited", "path": "/sites/shop/orders/1001"})
    assert ok({"kind": "visited", "path": "/sites/shop/orders", "params": {"q": ["ada"]}})
    assert not ok({"kind": "visited", "path": "/sites/shop/orders", "params": {"q": ["bo"]}})
    assert not ok({"kind": "visited", "path": "/sites/shop/orders/1002"})


def test_visited_last() -> None:
    s = state(url="/sites/shop", seen=["/sites/shop/orders", "/sites/shop"])
    assert ok({"kind": "visited", "path": "/sites/shop", "last": True}, s)
    assert not ok({"kind": "visited", "path": "/sites/shop/orders", "last": True}, s)
    assert ok({"kind": "visited", "path": "/sites/shop/orders"}, s)
    assert not ok({"kind": "visited", "path": "/sites/shop", "last": True}, state(url=None, seen=[]))


# ── entry_created ─────────────────────────────────────────────────────────────

C = {"kind": "entry_created", "table": "orders", "fields": {"customer": "Cy Dune", "total": 45}}


def test_entry_created_passes_exclusive_across_tables() -> None:
    assert ok(C)
    assert ok(C, verifier=EX)  # the update is in another table


def test_entry_created_fails_on_wrong_value_and_missing_entry() -> None:
    assert not ok({**C, "fields": {"customer": "Cy Dune", "total": 46}})
    assert not ok({**C, "table": "customers"})
    s = state()
    s["entries"]["orders"] = s["entries"]["orders"][:2]  # the change is logged but the entry is gone
    assert not ok(C, s)
    assert not ok(C, state(changes=[]))


def test_entry_created_exclusive_fails_on_extra_change() -> None:
    s = state()
    s["changes"].append(
        {"seq": 3, "op": "update", "table": "orders", "id": "1002", "fields": {"status": "Shipped"}}
    )
    assert ok(C, s)
    assert not ok(C, s, EX)


# ── entry_updated ─────────────────────────────────────────────────────────────

U = {"kind": "entry_updated", "table": "customers", "id": "7", "fields": {"name": "Ada Byrne"}}


def test_entry_updated_passes() -> None:
    assert ok(U)
    assert ok(U, verifier=EX)


def test_entry_updated_fails_on_wrong_value_missing_entry_no_change() -> None:
    assert not ok({**U, "fields": {"name": "Ada B."}})
    assert not ok({**U, "id": "8"})
    s = state()
    s["entries"]["customers"] = []
    assert not ok(U, s)
    s = state()
    s["changes"] = s["changes"][:1]  # entry has the value but nobody changed it
    assert not ok(U, s)
    s = state()
    s["entries"]["customers"][0]["name"] = "Someone Else"  # changed back later
    assert not ok(U, s)


def test_entry_updated_exclusive_fails_on_extra_change() -> None:
    s = state()
    s["changes"].append({"seq": 3, "op": "create", "table": "customers", "id": "8", "fields": {"name": "X"}})
    assert ok(U, s)
    assert not ok(U, s, EX)


# ── entry_deleted ─────────────────────────────────────────────────────────────

D = {"kind": "entry_deleted", "table": "orders", "id": "1002"}


def deleted(*more: dict[str, Any], back: bool = False) -> dict[str, Any]:
    """The session after deleting order 1002 (and `more` changes); `back`: the entry is listed again."""
    s = state()
    rows = s["entries"]["orders"]
    if not back:
        s["entries"]["orders"] = [r for r in rows if r["id"] != "1002"]
    gone = {"seq": 3, "op": "delete", "table": "orders", "id": "1002", "fields": {}, "before": rows[1]}
    s["changes"] = [*s["changes"], gone, *more]
    return s


def test_entry_deleted_passes_when_that_entry_is_deleted_and_gone() -> None:
    assert ok(D, deleted())
    assert ok({**D, "id": 1002}, deleted())  # an integer id compares as its text


def test_entry_deleted_fails_without_its_delete() -> None:
    assert not ok(D)  # nothing deleted (e.g. the dialog was cancelled)
    assert not ok({**D, "id": "1001"}, deleted())  # another entry was deleted
    assert not ok(D, deleted(back=True))  # logged, but the entry is there
    passed, detail = gate({**D, "id": "1001"}, None, deleted())
    assert not passed and "found a delete of #1002" in detail


def test_entry_deleted_exclusive_fails_when_another_entry_of_its_table_changed() -> None:
    other = {"seq": 4, "op": "delete", "table": "orders", "id": "1001", "fields": {}, "before": {}}
    assert ok(D, deleted(), EX) is False  # the create of 1003 in the base state is another change of orders
    s = deleted()
    s["changes"] = [c for c in s["changes"] if c["table"] != "orders" or c["id"] == "1002"]
    assert ok(D, s, EX)
    s["changes"].append(other)
    assert not ok(D, s, EX)
    assert ok(D, s)  # without the verifier only the entry itself is checked


# ── answer ────────────────────────────────────────────────────────────────────


@pytest.mark.parametrize(
    ("expected", "got"),
    [
        ("1200.5", "1,200.50"),
        ("shipped", "Shipped "),
        ("Ada  Byrne", "ada byrne."),
        ("120", "$120"),
        ("7", "7.0"),
    ],
)
def test_answer_normalises(expected: str, got: str) -> None:
    assert ok({"kind": "answer", "expected": expected}, state(answer=got))


def test_answer_fails_on_wrong_value_or_none() -> None:
    assert not ok({"kind": "answer", "expected": "1200.51"})
    assert not ok({"kind": "answer", "expected": "12005"})
    assert not ok({"kind": "answer", "expected": "Pending"}, state(answer="Shipped"))
    assert not ok({"kind": "answer", "expected": "7"}, state(answer=None))


def test_answer_number() -> None:
    assert ok({"kind": "answer", "expected": 1200.5, "number": True})
    assert not ok({"kind": "answer", "expected": 1200, "number": True})
    assert not ok({"kind": "answer", "expected": 7, "number": True}, state(answer="seven"))


def test_normalise_keeps_dates_and_words() -> None:
    assert normalise_answer("2026-03-14") == "2026-03-14"
    assert normalise_answer(" Order  1,001. ") == "order 1001"


# ── clipboard ─────────────────────────────────────────────────────────────────


def test_clipboard() -> None:
    assert ok({"kind": "clipboard", "value": "1001"})
    assert ok({"kind": "clipboard", "value": "Ada Byrne"})
    assert not ok({"kind": "clipboard", "value": "1002"})
    assert not ok({"kind": "clipboard", "value": "1001"}, state(clipboard=[]))


# ── bad checks ────────────────────────────────────────────────────────────────


def test_unknown_kind_and_missing_keys_are_input_errors() -> None:
    with pytest.raises(InputError, match="unknown kind 'teleport'"):
        gate({"kind": "teleport"}, None, state())
    with pytest.raises(InputError, match="missing key 'params'"):
        gate({"kind": "query", "path": "/x"}, None, state())
    with pytest.raises(InputError, match="must be an object"):
        gate({"kind": "entry_created", "table": "orders", "fields": ["x"]}, None, state())
    with pytest.raises(InputError, match="check visited: 'params' must be an object"):
        gate({"kind": "visited", "path": "/x", "params": ["q"]}, None, state())
    with pytest.raises(InputError):
        gate("query", None, state())  # type: ignore[arg-type]


def test_every_kind_can_pass_and_fail() -> None:
    right = {
        "query": Q,
        "visited": {"kind": "visited", "path": "/sites/shop/orders/1001"},
        "entry_created": C,
        "entry_updated": U,
        "entry_deleted": D,
        "answer": {"kind": "answer", "expected": "1200.5"},
        "clipboard": {"kind": "clipboard", "value": "1001"},
    }
    assert set(right) == set(KINDS)
    empty = {
        "url": None,
        "seen": [],
        "entries": {},
        "changes": [],
        "clipboard": [],
        "events": [],
        "answer": None,
    }
    for check in right.values():
        assert ok(check, deleted()), check
        assert not ok(copy.deepcopy(check), empty), check


def test_every_check_kind_has_its_needs_and_its_judge() -> None:
    """A kind added to `CheckKind` without a judge (or keys it needs) fails here, not at a gate."""
    assert set(checks._JUDGES) == set(checks._NEEDS) == checks.KINDS
