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
from plandvc.macros import APP_DRAW_ORDER
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


# the order every app draws its macros' tasks in, from one `random.Random(seed)`: an app registers the macros its
# UI supports (`Macros.draws` and `Macros.solves` where the functions are defined) and draws them in this order
DRAW_ORDER: tuple[str, ...] = APP_DRAW_ORDER  # each macro's `app_order` (plandvc.macros)


class Macros(Generic[Offer]):
    """An adapter's macros, each with its generator of drafts (on what the seeded app offers) and its
    scripted solution, registered by decorators where they are defined and drawn in `DRAW_ORDER`:

        MACROS: Macros[Offer] = Macros("trac")

        @MACROS.draws("open_entry")
        def _open(o: Offer, rng: random.Random) -> Iterator[Draft]: ...

        @MACROS.solves("open_entry")
        async def _open_solve(run: AppExecutor) -> None: ...
    """

    def __init__(self, site: str) -> None:
        self.site = site
        self._draws: dict[str, Generator[Offer]] = {}
        self._solves: dict[str, Solution] = {}

    def draws(self, macro: str) -> Callable[[Generator[Offer]], Generator[Offer]]:
        """Register the decorated function as the generator of `macro`'s drafts."""

        def register(gen: Generator[Offer]) -> Generator[Offer]:
            self._draws[self._new(macro, self._draws)] = gen
            return gen

        return register

    def solves(self, macro: str) -> Callable[[Solution], Solution]:
        """Register the decorated function as `macro`'s scripted solution."""

        def register(solve: Solution) -> Solution:
            self._solves[self._new(macro, self._solves)] = solve
            return solve

        return register

    def _new(self, macro: str, seen: Mapping[str, object]) -> str:
        if macro not in DRAW_ORDER:
            raise ValueError(f"{self.site}: {macro!r} is not an app macro (plandvc.apps.script.DRAW_ORDER)")
        if macro in seen:
            raise ValueError(f"{self.site}: {macro!r} is registered twice")
        return macro

    @property
    def table(self) -> dict[str, tuple[Generator[Offer], Solution]]:
        """Each macro's generator and solution, in `DRAW_ORDER`; a macro with only one of them is an error."""
        if lone := sorted(set(self._draws) ^ set(self._solves)):
            raise ValueError(
                f"{self.site}: macros without both a generator and a solution: {', '.join(lone)}"
            )
        return {m: (self._draws[m], self._solves[m]) for m in DRAW_ORDER if m in self._draws}

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
