"""Dialects of the planner's input: each writes the page, the history and the step info as one agent version
writes them, chosen by params.yaml `prompt.dialect` (run-chains / eval-specs `--dialect`, recorded in each
episode). One module per dialect and one line of `DIALECTS` each; `plandvc-v1` is the rows of dataset v1 byte
for byte. docs/STAGES.md, "Dialects of the planner's input"."""

from __future__ import annotations

from collections.abc import Callable

from plandvc.agent.dialects.base import Dialect, Look
from plandvc.agent.dialects.bu05 import BrowserUse05
from plandvc.agent.dialects.bu13 import BrowserUse13
from plandvc.agent.dialects.v1 import PlandvcV1
from plandvc.io import InputError

DEFAULT = "plandvc-v1"
DIALECTS: dict[str, Callable[[bool], Dialect]] = {
    "plandvc-v1": PlandvcV1,
    "browser-use-0.5": BrowserUse05,
    "browser-use-0.13": BrowserUse13,
}


def dialect(name: str, marks: bool = False) -> Dialect:
    """A fresh dialect `name` for one planner run; an unknown name is an InputError naming the known ones.

    `marks` (params.yaml `prompt.marks`): the screenshot carries the agent's set-of-marks where that agent
    version draws them (browser-use-0.5); browser-use-0.13 sends its screenshot clean and plandvc-v1 plain,
    so for them it changes nothing (the dialect's `marks` says what its screenshots are)."""
    try:
        make = DIALECTS[name]
    except KeyError:
        raise InputError(f"unknown dialect {name!r} (known: {', '.join(DIALECTS)})") from None
    return make(marks)


def marks_of(name: str, marks: bool) -> bool:
    """Whether dialect `name` run with `marks` sends marked screenshots (what an episode records)."""
    return dialect(name, marks).marks


__all__ = ["DEFAULT", "DIALECTS", "Dialect", "Look", "dialect", "marks_of"]
