"""The action table: every user's view of an action comes from it, a session performs exactly what it says,
an unknown action is an error, and the timed session of run-chains forwards through it."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from plandvc.agent.schema import SPECIALIST_SCHEMA, errors
from plandvc.browser.actions import ACTIONS, NAMES, Action, perform, reply_action, targets_element
from plandvc.run.timing import Clock, TimedSession

VALUES = {"input": "Ada", "select": "Shipped", "set_range": 40, "scroll": 600, "go_to": "/sites/shop"}


class Recorder:
    """A session that records each call it gets (name, args) and keeps a record like a real one."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, tuple[Any, ...]]] = []
        self.events: list[dict[str, Any]] = []
        self.seen: list[str] = ["/sites/shop"]
        self.clipboard: list[str] = []
        self.last_snapshot = None
        self.url = "/sites/shop"

    def __getattr__(self, name: str) -> Any:
        async def call(*args: Any) -> None:
            self.calls.append((name, args))

        return call


@pytest.mark.parametrize("name", sorted(NAMES))
def test_a_recorded_step_becomes_a_reply_the_schema_accepts(name: str) -> None:
    action = reply_action(name, VALUES.get(name), 3 if targets_element(name) else None)
    assert errors({"memory": "m", "action": [action]}, SPECIALIST_SCHEMA) == []
    assert ("index" in action[name]) == ACTIONS[name].targets_element


def test_a_reply_for_an_element_without_its_index_breaks_the_schema() -> None:
    """The schema check above can fail: a click with no index is not a valid reply."""
    assert errors({"memory": "m", "action": [{"click": {}}]}, SPECIALIST_SCHEMA) != []


def test_values_are_typed_as_the_table_says() -> None:
    assert reply_action("input", 120, 0) == {"input": {"index": 0, "text": "120"}}
    assert reply_action("set_range", 40, 2) == {"set_range": {"index": 2, "value": 40}}
    assert reply_action("back", None, None) == {"back": {}}


def test_perform_calls_the_session_method_with_the_params() -> None:
    session = Recorder()
    for name in sorted(NAMES):
        params = reply_action(name, VALUES.get(name), 5)[name]
        asyncio.run(perform(session, name, params))
    assert session.calls == [
        ("back", ()),
        ("click", (5,)),
        ("go_to", ("/sites/shop",)),
        ("input", (5, "Ada")),
        ("scroll", (600,)),
        ("select", (5, "Shipped")),
        ("set_range", (5, 40)),
    ]


@pytest.mark.parametrize("name", ["hover", "done"])
def test_an_unknown_action_is_an_error_naming_it(name: str) -> None:
    with pytest.raises(ValueError, match=f"unknown action '{name}'"):
        asyncio.run(perform(Recorder(), name, {}))
    with pytest.raises(ValueError, match=f"unknown action '{name}'"):
        reply_action(name, None, 0)


def test_the_timed_session_times_by_phase_and_shares_the_record() -> None:
    inner, clock = Recorder(), Clock()
    timed = TimedSession(inner, clock)
    asyncio.run(timed.click(1))
    asyncio.run(timed.goto("/sites/shop/orders"))
    asyncio.run(timed.backend_state())
    assert inner.calls == [("click", (1,)), ("goto", ("/sites/shop/orders",)), ("backend_state", (None,))]
    assert set(clock.rounded()) == {"specialist_actions", "prepare", "gates"}
    timed.seen.clear()  # prep clears the record in place: the session's own list
    assert inner.seen == [] and timed.events is inner.events and timed.url == inner.url
    inner.page = "the page"  # type: ignore[attr-defined]
    assert timed.page == "the page"  # forwarded: a dialect reads the page itself
    with pytest.raises(AttributeError):
        timed.cdp  # noqa: B018  (nothing else beyond the session protocol is forwarded)


def test_what_a_recorded_step_fills_comes_from_the_params() -> None:
    """`index` makes an action target an element; the one other parameter is what a step's value fills."""
    got = {a.name: (a.targets_element, a.value) for a in ACTIONS.values()}
    assert got == {
        "click": (True, None),
        "input": (True, "text"),
        "select": (True, "value"),
        "set_range": (True, "value"),
        "scroll": (False, "dy"),
        "go_to": (False, "url"),
        "back": (False, None),
    }
    with pytest.raises(ValueError, match="action drag: a recorded step fills one parameter besides index"):
        Action("drag", {"index": {}, "dx": {}, "dy": {}}, lambda s, p: s.back())
