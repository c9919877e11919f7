"""The replayer: answers a specialist's steps with a recorded trajectory on a live page.

Each recorded step names an element by its descriptor (elements.json). On the live page the element is found
again by what is stable about it — its control id, copy value, home mark, link path, name/id, tag and role,
text and label — never by its raw index, and never by its box alone (the box only breaks ties), so a replay
works on a page that an earlier part filtered or sorted. A recorded click that closed a site's banner (a
cookie notice, a newsletter pop-up) is skipped when the live page shows no such button: an earlier part of the
chain closed it already. The last answer is the recorded `done`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Protocol

from plandvc.browser.actions import ACTIONS, perform, reply_action
from plandvc.browser.protocol import SessionProtocol, SessionRecord
from plandvc.macros import home_trajectory as home_trajectory  # run-chains takes the trip home from here
from plandvc.macros.widgets import DISMISS_BUTTONS
from plandvc.records import (
    Answer,
    ElementDescriptor,
    Event,
    ParamValue,
    ReplyRecord,
    Trajectory,
    TrajectoryStep,
)
from plandvc.urls import url_path

Descriptor = ElementDescriptor


class LiveElement(Protocol):
    """An element of a live snapshot (`plandvc.browser.snapshot.Element`): its index and its descriptor."""

    @property
    def index(self) -> int: ...
    def descriptor(self) -> ElementDescriptor: ...


class LivePage(Protocol):
    """A live snapshot (`plandvc.browser.snapshot.Snapshot`): its URL and its elements in index order."""

    @property
    def url(self) -> str: ...
    @property
    def elements(self) -> Sequence[LiveElement]: ...


# attributes that, when recorded, the live element must carry with the same value (or, for data-home, at all)
_REQUIRED = {
    "data-control-id": 100,
    "data-copy": 60,
    "data-home": 60,
    "data-form": 20,
    "name": 25,
    "type": 10,
}
_MIN_EVIDENCE = 20  # an element must be identified by more than its tag, role and box


class ElementNotFound(Exception):
    """A recorded element has no match on the live page; says which step and what it looked for."""

    def __init__(self, step: int, descriptor: Descriptor | None, url: str, why: str = "") -> None:
        self.step, self.descriptor, self.url = step, descriptor, url
        want = describe(descriptor) if descriptor is not None else "a recorded element"
        super().__init__(f"step {step}: no element like {want} on {url}" + (f" ({why})" if why else ""))


def closes_banner(d: Descriptor) -> bool:
    """Whether a recorded element is a banner's close button (optional in a replay: the banner may be gone)."""
    return d.get("tag") == "button" and _norm(d.get("text")) in {_norm(t) for t in DISMISS_BUTTONS.values()}


def describe(d: Descriptor) -> str:
    """A descriptor as one short line, `<tag attr='v'>text`, for error messages."""
    attrs = " ".join(f"{k}={v!r}" for k, v in sorted((d.get("attrs") or {}).items()))
    text = d.get("text") or d.get("label") or ""
    return f"<{d.get('tag')} {attrs}>{text}".replace(" >", ">")


def _norm(s: str | None) -> str:
    return " ".join(str(s or "").split()).casefold()


def score(want: Descriptor, have: Descriptor) -> float | None:
    """How well live element `have` matches recorded `want`; None when it cannot be the same element."""
    if want.get("tag") != have.get("tag"):
        return None
    wa, ha = want.get("attrs") or {}, have.get("attrs") or {}
    evidence, total = 0.0, 0.0
    for k, weight in _REQUIRED.items():
        if k in wa:
            if k not in ha or (k != "data-home" and wa[k] != ha[k]):
                return None
            evidence += weight
    if "href" in wa:
        if "href" not in ha or url_path(wa["href"]) != url_path(ha["href"]):
            return None
        evidence += 60 + (5 if wa["href"] == ha["href"] else 0)
    if wa.get("id"):
        evidence += 25 if wa["id"] == ha.get("id") else -25
    for w, h, gain, loss in (
        (_norm(want.get("text")), _norm(have.get("text")), 30, 10),
        (_norm(want.get("label")), _norm(have.get("label")), 20, 15),
    ):
        if w:
            evidence += gain if w == h else -loss
    if "value" in wa:
        evidence += 10 if wa["value"] == ha.get("value") else -10
    if want.get("role") and want.get("role") == have.get("role"):
        total += 5
    if evidence < _MIN_EVIDENCE:
        return None
    wb, hb = want.get("box") or [0, 0, 0, 0], have.get("box") or [0, 0, 0, 0]
    distance = abs(wb[0] - hb[0]) + abs(wb[1] - hb[1])
    return evidence + total - min(distance / 200.0, 4.0)


def find(want: Descriptor, live: Sequence[Descriptor]) -> int | None:
    """The index in `live` of the best match for `want` (first in page order on a tie), or None."""
    best, best_i = None, None
    for i, have in enumerate(live):
        s = score(want, have)
        if s is not None and (best is None or s > best):
            best, best_i = s, i
    return best_i


# ── the replayer ──────────────────────────────────────────────────────────────


def _live(snapshot: LivePage) -> list[Descriptor]:
    return [e.descriptor() for e in snapshot.elements]


class Replayer:
    """Answers each specialist step with the next recorded one, its element re-found on the live snapshot.

    `cursor` counts the answers given; `finished` is set once the recorded `done` was answered; `events` and
    `seen` are what the session recorded from the first answer to the done (what this replay caused).
    """

    def __init__(self, traj: Trajectory, elements: list[Descriptor], session: SessionRecord | None = None):
        self.traj, self.elements, self.session = traj, elements, session
        self.steps: list[TrajectoryStep] = list(traj.get("steps") or [])
        self.cursor = 0
        self.skipped = 0  # banner-closing steps skipped (their banner was gone)
        self.finished = False
        self.answer: Answer = None
        self._marks: tuple[int, int] | None = None
        self._ends: tuple[int, int] | None = None

    @property
    def events(self) -> list[Event]:
        if self.session is None or self._marks is None:
            return []
        return self.session.events[self._marks[0] : self._ends[0] if self._ends else None]

    @property
    def seen(self) -> list[str]:
        if self.session is None or self._marks is None:
            return []
        return self.session.seen[self._marks[1] : self._ends[1] if self._ends else None]

    def _mark(self) -> tuple[int, int]:
        s = self.session
        return (len(s.events), len(s.seen)) if s is not None else (0, 0)

    def next_action(self, snapshot: LivePage) -> ReplyRecord:
        """The next step as the specialist's reply `{memory, action: [{name: params}]}`."""
        if self._marks is None:
            self._marks = self._mark()
        if self.finished:
            raise RuntimeError(f"replay of {self.traj.get('task_id')} asked for a step after its done")
        if self.cursor >= len(self.steps):
            self.cursor += 1
            self.finished = True
            self.answer = self.traj.get("answer")
            self._ends = self._mark()
            done: dict[str, ParamValue] = {
                "text": str(self.traj.get("done") or "Done."),
                "success": True,
                "answer": self.answer,
            }
            return {"memory": "The task is done.", "action": [{"done": done}]}
        step = self.steps[self.cursor]
        try:
            action = self._action(step, self.cursor + 1, snapshot)
        except ElementNotFound as e:
            if e.descriptor is None or not closes_banner(e.descriptor):
                raise
            self.cursor += 1  # the banner this step closed is gone: the next step answers instead
            self.skipped += 1
            return self.next_action(snapshot)
        self.cursor += 1
        return {"memory": str(step.get("memory") or ""), "action": [action]}

    def _action(self, step: TrajectoryStep, n: int, snapshot: LivePage) -> dict[str, dict[str, ParamValue]]:
        name, value = step["action"], step.get("value")
        if name not in ACTIONS:
            raise ValueError(f"step {n}: unknown recorded action {name!r}")
        if not ACTIONS[name].targets_element:
            return reply_action(name, value, None)
        k = step.get("element")
        if not isinstance(k, int) or not 0 <= k < len(self.elements):
            raise ElementNotFound(n, None, snapshot.url, f"no recorded element {k!r}")
        want = self.elements[k]
        i = find(want, _live(snapshot))
        if i is None:
            raise ElementNotFound(n, want, snapshot.url)
        index = snapshot.elements[i].index
        return reply_action(name, value, index)


class ReplayModel:
    """The specialist's model during a replay: each reply is the replayer's next step on the last snapshot."""

    wants_screenshot = False

    def __init__(self, replayer: Replayer, session: SessionRecord) -> None:
        self.replayer, self.session = replayer, session

    async def respond(
        self, messages: Sequence[Mapping[str, object]], response_format: Mapping[str, object]
    ) -> str:
        snap = self.session.last_snapshot
        if snap is None:
            raise RuntimeError("replay: the specialist has taken no snapshot")
        return json.dumps(self.replayer.next_action(snap), ensure_ascii=False)


async def replay(replayer: Replayer, session: SessionProtocol, max_steps: int = 40) -> dict[str, ParamValue]:
    """Drive `session` with the replayer alone (no agent): snapshot, next step, act — until its done.
    Returns the done params. For checking a trajectory on a live page; the agent's specialist does the same
    loop with a ReplayModel."""
    for _ in range(max_steps):
        snap = await session.snapshot()
        ((name, params),) = replayer.next_action(snap)["action"][0].items()
        if name == "done":
            return dict(params)
        await perform(session, name, params)
    raise RuntimeError(f"replay of {replayer.traj.get('task_id')} did not finish in {max_steps} steps")
