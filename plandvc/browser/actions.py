"""The specialist actions, one table: each action's name, its parameters (their JSON schema, in reply order),
whether it targets an element, which parameter a recorded step's `value` fills, and how a session performs it.

Every user of the vocabulary reads this table: the specialist's reply schema (`plandvc.agent.schema`), the
specialist loop and the replay loop (`perform`), the replayer turning a recorded step into a reply
(`reply_action`), the scripted executor recording and doing its steps, and the run's timings
(`NAMES`); the pool's trajectory schema lists the same names. `done` ends a specialist's
step and is not a browser action: its parameters are `DONE_PARAMS`.

A reply's action is `{name: params}`; a recorded step (trajectory.json) is `{action, element, value, memory}`
with `element` an index of elements.json for an action that targets one, else null.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from plandvc.browser.protocol import ActionSession
from plandvc.records import ParamValue

JsonSchema = dict[str, object]  # one parameter's JSON schema
Params = Mapping[str, Any]


def _same(value: ParamValue) -> ParamValue:
    return value


@dataclass(frozen=True)
class Action:
    """One specialist action: `params` its reply parameters (name -> JSON schema, in order), `perform` how a
    session does it, `cast` how a recorded step's value is typed in a reply. An `index` parameter is the
    element of the current snapshot it acts on; the one other parameter, if any, is what a recorded step's
    value fills."""

    name: str
    params: Mapping[str, JsonSchema]
    perform: Callable[[ActionSession, Params], Awaitable[object]]
    cast: Callable[[ParamValue], ParamValue] = _same

    def __post_init__(self) -> None:
        if len(self.params) - self.targets_element > 1:
            raise ValueError(f"action {self.name}: a recorded step fills one parameter besides index")

    @property
    def targets_element(self) -> bool:
        """Whether it acts on an element (it has an `index` parameter)."""
        return "index" in self.params

    @property
    def value(self) -> str | None:
        """The parameter a recorded step's value fills (None: the action takes none)."""
        return next((p for p in self.params if p != "index"), None)


_INDEX: JsonSchema = {"type": "integer"}
_STRING: JsonSchema = {"type": "string"}
ACTIONS: dict[str, Action] = {
    a.name: a
    for a in (
        Action("click", {"index": _INDEX}, lambda s, p: s.click(p["index"])),
        Action("input", {"index": _INDEX, "text": _STRING}, lambda s, p: s.input(p["index"], p["text"]), str),
        Action(
            "select", {"index": _INDEX, "value": _STRING}, lambda s, p: s.select(p["index"], p["value"]), str
        ),
        Action(
            "set_range",
            {"index": _INDEX, "value": {"type": ["number", "string"]}},  # a slider's value; "40" too
            lambda s, p: s.set_range(p["index"], p["value"]),
        ),
        Action("scroll", {"dy": {"type": "number"}}, lambda s, p: s.scroll(p["dy"])),
        Action("go_to", {"url": {"type": "string", "minLength": 1}}, lambda s, p: s.go_to(p["url"])),
        Action("back", {}, lambda s, p: s.back()),
    )
}
NAMES = frozenset(ACTIONS)
DONE_PARAMS: dict[str, JsonSchema] = {
    "text": {"type": "string", "minLength": 1},
    "success": {"type": "boolean"},
    "answer": {"type": ["string", "number", "null"]},
}


def targets_element(name: str) -> bool:
    """Whether the action acts on an element (so a recorded step names one in elements.json)."""
    return ACTIONS[name].targets_element


def reply_action(name: str, value: ParamValue, index: int | None) -> dict[str, dict[str, ParamValue]]:
    """The reply action `{name: params}` for a recorded step: `index` (of the live snapshot) when the action
    targets an element, and the step's value in the action's value parameter."""
    action = ACTIONS.get(name)
    if action is None:
        raise ValueError(f"unknown action {name!r} (known: {', '.join(ACTIONS)})")
    params: dict[str, ParamValue] = {}
    if action.targets_element:
        params["index"] = index
    if action.value is not None:
        params[action.value] = action.cast(value)
    return {name: params}


async def perform(session: ActionSession, name: str, params: Params) -> None:
    """Do one action on the session; ValueError for a name the table does not hold (`done` included)."""
    action = ACTIONS.get(name)
    if action is None:
        raise ValueError(f"unknown action {name!r} (known: {', '.join([*ACTIONS, 'done'])})")
    await action.perform(session, params)
