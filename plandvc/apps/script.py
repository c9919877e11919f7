"""The scripted executor's moves on an app's own pages, and one task recorded and gated.

An app's solutions act like the generated world's (`plandvc.macros.script.Executor`): each step takes a
snapshot, finds its element the way a person names it (an id, a name, a link's path or text), records the
element's descriptor, the action, its value and a memory sentence, and acts by index through the one action
table (`plandvc.browser.actions`). A question's answer is read off the page, never taken from the task.

`record` runs one task on a fresh app session and returns its trajectory, elements and gate: the gate reads
the app's own database through the adapter's `state` (entries and changes), with the page seen and the
answer from the browser session (`plandvc.checks.gate`).
"""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable, Iterator, Mapping
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any, Generic, TypedDict, TypeVar

from plandvc.checks import Check, gate
from plandvc.macros.script import Pick, Recording, ScriptError
from plandvc.records import ElementDescriptor, ParamValue, Trajectory

if TYPE_CHECKING:
    from plandvc.browser import Element, Session


class AppStart(TypedDict):
    """Where a task starts: a path of the app, in a fresh session."""

    url: str
    kind: str


class AppTask(TypedDict):
    """One task on an app: task.json's shape for an app site (no spec control; `target` is the solution's)."""

    task_id: str
    site: str
    macro: str
    instruction: str
    start: AppStart
    check: Check
    verifier: dict[str, Any]
    scope: list[str]
    target: dict[str, Any]


class AppExecutor:
    """Drives a browser session through one app task; the solution fills `rec`."""

    def __init__(self, session: Session, task: AppTask) -> None:
        self.session, self.task, self.target = session, task, task["target"]
        self.rec = Recording()

    async def find(self, pick: Pick, what: str) -> Element:
        snap = await self.session.snapshot()
        for e in snap.elements:
            if pick(e):
                return e
        raise ScriptError(f"{self.task['task_id']}: no {what} on {snap.url}")

    async def has(self, pick: Pick) -> bool:
        snap = await self.session.snapshot()
        return any(pick(e) for e in snap.elements)

    async def step(self, action: str, pick: Pick, what: str, memory: str, value: ParamValue = None) -> None:
        """Find the element, record it and the step, then act on it by index."""
        from plandvc.browser.actions import ACTIONS, perform, reply_action

        if action not in ACTIONS or not ACTIONS[action].targets_element:
            raise ValueError(f"unknown action {action!r}")
        el = await self.find(pick, what)
        self.rec.elements.append(el.descriptor())
        self.rec.steps.append(
            {"action": action, "element": len(self.rec.elements) - 1, "value": value, "memory": memory}
        )
        await perform(self.session, action, reply_action(action, value, el.index)[action])

    async def text(self, selector: str) -> str:
        """The text of the one element `selector` matches, spaces collapsed."""
        loc = self.session.page.locator(selector)
        if await loc.count() != 1:
            raise ScriptError(f"{self.task['task_id']}: not one {selector!r} on {self.session.url}")
        return " ".join((await loc.inner_text()).split())


Solution = Callable[[AppExecutor], Awaitable[None]]
# an adapter's draft of one task: instruction, check, target, scope, start path
Draft = tuple[str, Check, dict[str, Any], list[str], str]


Offer = TypeVar("Offer")
Generator = Callable[[Offer, random.Random], Iterator[Draft]]


@dataclass(frozen=True)
class Macros(Generic[Offer]):
    """An adapter's macros, each with its generator of drafts (on what the seeded app offers) and its
    scripted solution, in the order their tasks are drawn."""

    site: str
    table: Mapping[str, tuple[Generator[Offer], Solution]]

    def names(self) -> tuple[str, ...]:
        return tuple(self.table)

    def tasks(self, offer: Offer, seed: int = 0, per_macro: int = 2) -> list[AppTask]:
        """Up to `per_macro` tasks of each macro, drawn from one `random.Random(seed)` in the table's order,
        sorted by id."""
        drafts = {m: partial(gen, offer) for m, (gen, _solve) in self.table.items()}
        return sorted(draw_tasks(self.site, drafts, seed, per_macro), key=lambda t: t["task_id"])

    def solution(self, macro: str) -> Solution:
        return self.table[macro][1]


def draw_tasks(
    site: str, drafts: Mapping[str, Callable[[random.Random], Iterator[Draft]]], seed: int, per_macro: int
) -> list[AppTask]:
    """Up to `per_macro` tasks of each macro of `drafts` (its generator of drafts), drawn from one
    `random.Random(seed)` in the mapping's order; a form's gate is exclusive (nothing else may change)."""
    rng = random.Random(seed)
    out: list[AppTask] = []
    for macro, gen in drafts.items():
        for i, (instruction, check, target, scope, start) in enumerate(gen(rng)):
            if i == per_macro:
                break
            exclusive = check["kind"] in ("entry_created", "entry_updated", "entry_deleted")
            out.append(
                {
                    "task_id": f"{site}-{macro}-{i:04d}",
                    "site": site,
                    "macro": macro,
                    "instruction": instruction,
                    "start": {"url": start, "kind": "fresh"},
                    "check": check,
                    "verifier": {"exclusive": True} if exclusive else {},
                    "scope": scope,
                    "target": target,
                }
            )
    return out


@dataclass(frozen=True)
class Recorded:
    """One task's run: its trajectory and elements, the state its gate read, and the gate's verdict."""

    task: AppTask
    trajectory: Trajectory
    elements: list[ElementDescriptor]
    state: dict[str, Any]
    ok: bool
    detail: str


async def record(
    task: AppTask, session: Session, solve: Solution, backend: Callable[[], Mapping[str, Any]]
) -> Recorded:
    """Run `solve` for `task` on `session` (already on the app's base), then gate it on `backend()`'s state."""
    await session.goto(task["start"]["url"])
    run = AppExecutor(session, task)
    await solve(run)
    rec = run.rec
    rec.end = session.url
    state = dict(backend()) | {"url": session.url, "seen": list(session.seen), "answer": rec.answer}
    ok, detail = gate(task["check"], task.get("verifier"), state)
    trajectory: Trajectory = {
        "task_id": task["task_id"],
        "site": task["site"],
        "macro": task["macro"],
        "start_kind": task["start"]["kind"],
        "history_macro": None,
        "steps": rec.steps,
        "done": rec.done,
        "answer": rec.answer,
        "end": rec.end,
    }
    return Recorded(task, trajectory, rec.elements, state, ok, detail)
