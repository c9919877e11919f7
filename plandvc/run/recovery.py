"""A recovery chain's failed attempt and the planner's recovery turn, made by construction.

The chain line's `failure` {part, kind, sibling?, cut?} (chosen by `plandvc.chains.recovery`) says which
part's first attempt fails and how. `plan_failure` makes, from the part's own recorded trajectory (or its
sibling's):

- the failed attempt's replay and the report its specialist gives: `stopped_short` replays the steps before
  its cut (an honest cut, `corrective.cut_points`: the part's last acting step is left undone, so its gate
  fails; drawn with the chain's key unless the line names one) and says "I could not finish the task: I
  stopped before applying the filter."; `wrong_value` replays the sibling (same macro and control, another
  value) and reports what it did, as a finished step; `lost_work` fills the form, leaves it for the page it started on without
  submitting it and says that nothing was saved;
- the recovery turn's instruction to the same family, naming what is wrong and what is right
  (`plandvc.run.corrective`: "The Doctor filter shows "Dr. Moreau"; set it to "Dr. Okafor"."), and the
  replay that recovers (the actions left on the page, or the whole trajectory).

While the chain runs, `observe_failure` reads the backend before and after the failed attempt and gates the
part right then: the failure counts only when that gate fails and the attempt changed nothing on the backend
or the clipboard (no leftover). `verdict` states why a recovery chain is dropped otherwise.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from plandvc.browser.actions import reply_action
from plandvc.browser.protocol import SessionRecord
from plandvc.checks import gate
from plandvc.records import (
    ChainFailure,
    ElementDescriptor,
    FailureKind,
    ParamValue,
    Part,
    ReplyRecord,
    Trajectory,
    TrajectoryStep,
)
from plandvc.replay import LivePage, Replayer
from plandvc.run import corrective as words

KINDS: tuple[FailureKind, ...] = ("stopped_short", "wrong_value", "lost_work")


@dataclass(frozen=True)
class FailurePlan:
    """A part's failed attempt (`failed`, replayed by a FailingReplayer when `report` is set) and its recovery
    (`instruction`, `recovery`), with the elements each replay points into."""

    kind: FailureKind
    part: int
    failed: Trajectory
    failed_elements: list[ElementDescriptor]
    report: str | None  # the failing specialist's done text; None: it reports a finished step (wrong_value)
    instruction: str
    recovery: Trajectory
    recovery_elements: list[ElementDescriptor]
    line: ChainFailure  # the chain line's failure as it was made (a stopped_short one with its `cut`)


class FailureError(Exception):
    """A planned failure that cannot be made from this part (the chain's result, never a crash)."""


# a lost_work attempt's last step goes to the page the attempt started on (`go_to` with this value): the
# recovery then replays the whole recording from where it was recorded. Not `back`: a form in a modal or a
# wizard has no page of its own, so `back` left the page the part started on (to about:blank on a first part)
LEAVE_TO_START = "<the page the attempt started on>"


class FailingReplayer(Replayer):
    """A replay whose specialist ends with `done` and no success, saying `report` (how it failed)."""

    def __init__(
        self, traj: Trajectory, elements: list[ElementDescriptor], session: SessionRecord | None, report: str
    ) -> None:
        super().__init__(traj, elements, session)
        self.report = report
        self.start_url: str | None = None  # path?query of the page the attempt started on

    def _action(self, step: TrajectoryStep, n: int, snapshot: LivePage) -> dict[str, dict[str, ParamValue]]:
        if step["action"] == "go_to" and step.get("value") == LEAVE_TO_START and self.start_url is not None:
            return reply_action("go_to", self.start_url, None)
        return super()._action(step, n, snapshot)

    def next_action(self, snapshot: LivePage) -> ReplyRecord:
        if self.start_url is None:
            u = urlsplit(snapshot.url)
            self.start_url = u.path + (f"?{u.query}" if u.query else "")
        reply = super().next_action(snapshot)
        if self.finished:
            self.answer = None
            done: dict[str, ParamValue] = {"text": self.report, "success": False, "answer": None}
            return {"memory": "I could not do the task.", "action": [{"done": done}]}
        return reply


def plan_failure(failure: ChainFailure, part: Part, sibling: Part | None, key: str) -> FailurePlan:
    """The failed attempt and the recovery of `part` as `failure` says (a `stopped_short` cut drawn from the
    chain's `key` when the line names none); FailureError when the part's recording cannot make it (no
    action to stop before, a cut that is not honest, no form to leave, no sibling)."""
    kind, traj, elements = failure["kind"], part["traj"], part["elements"]
    steps = list(traj["steps"])
    if kind == "stopped_short":
        cut = choose_cut(failure, part, key)
        return FailurePlan(
            kind,
            failure["part"],
            _trajectory(traj, steps[:cut]),
            elements,
            words.stopped_report(part, cut),
            words.stopped_instruction(part, cut),
            {**traj, "steps": steps[cut:]},
            elements,
            {**failure, "cut": cut},
        )
    if kind == "lost_work":
        if len(steps) < 2:
            raise FailureError("lost_work: the part has no form to fill before it is submitted")
        back: TrajectoryStep = {
            "action": "go_to",
            "element": None,
            "value": LEAVE_TO_START,
            "memory": "Leaving the form without submitting it.",
        }
        return FailurePlan(
            kind,
            failure["part"],
            _trajectory(traj, [*steps[:-1], back]),
            elements,
            words.lost_report(part),
            words.lost_instruction(part),
            traj,
            elements,
            failure,
        )
    if sibling is None:
        raise FailureError("wrong_value: no sibling trajectory")
    again = words.wrong_instruction(part, sibling)
    return FailurePlan(
        kind, failure["part"], sibling["traj"], sibling["elements"], None, again, traj, elements, failure
    )


def choose_cut(failure: ChainFailure, part: Part, key: str) -> int:
    """A stopped_short failure's cut: the line's own `cut` when it is an honest one, else one of the honest
    cuts (`corrective.cut_points`) drawn with the chain's key, so a chain stops at the same place every run."""
    points = words.cut_points(part["traj"]["steps"], words.answers(part))
    if not points:
        raise FailureError("stopped_short: the part has no action to stop before")
    cut = failure.get("cut")
    if cut is None:
        return random.Random(f"cut:{key}:{failure['part']}").choice(points)
    if cut not in points:
        raise FailureError(f"stopped_short: cut {cut} leaves nothing undone (honest cuts: 0..{points[-1]})")
    return cut


def _trajectory(traj: Trajectory, steps: list[TrajectoryStep]) -> Trajectory:
    """The part's trajectory with other steps and no answer (a failed attempt answers nothing)."""
    return {**traj, "steps": steps, "answer": None}


@dataclass
class FailureSeen:
    """What the failed attempt left, read right after it: its own gate and any backend or clipboard change."""

    gate_ok: bool
    gate_detail: str
    leftover: list[str]


def leftover(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """The backend changes and clipboard writes made between two backend states, one line each."""
    out = [
        f"{c.get('op')} {c.get('table')} #{c.get('id')}"
        for c in list(after.get("changes") or [])[len(before.get("changes") or []) :]
    ]
    out += [
        f"clipboard {x!r}" for x in list(after.get("clipboard") or [])[len(before.get("clipboard") or []) :]
    ]
    return out


def observe_failure(
    part: Part, state: dict[str, Any], before: dict[str, Any], after: dict[str, Any]
) -> FailureSeen:
    """Gate `part` on the session's state right after its failed attempt (`state`, as the chain's gates read
    it) and list what the attempt changed between the backend states `before` and `after`."""
    ok, detail = gate(part["task"]["check"], part["task"].get("verifier") or {}, state)
    return FailureSeen(bool(ok), str(detail), leftover(before, after))


def verdict(seen: FailureSeen | None) -> str | None:
    """Why a recovery chain is dropped though its final gates may pass, or None when its failure counts."""
    if seen is None:
        return "the failed attempt never ran"
    if seen.gate_ok:
        return f"the failure passed its gate: {seen.gate_detail}"
    if seen.leftover:
        return f"the failure left a change: {', '.join(seen.leftover)}"
    return None


def failure_problems(label: str, failure: object, n_parts: int) -> list[str]:
    """The shape problems of a chain line's `failure`; [] when it is well formed."""
    if not isinstance(failure, dict):
        return [f"{label}: failure {failure!r} is not an object {{part, kind, sibling?, cut?}}"]
    out = []
    part, kind = failure.get("part"), failure.get("kind")
    if not isinstance(part, int) or isinstance(part, bool) or not 0 <= part < n_parts:
        out.append(f"{label}: failure.part {part!r} is not a part index (0..{n_parts - 1})")
    if kind not in KINDS:
        out.append(f"{label}: failure.kind {kind!r} is not one of {', '.join(KINDS)}")
    sib = failure.get("sibling")
    if kind == "wrong_value" and not isinstance(sib, str):
        out.append(f"{label}: failure.sibling {sib!r}: a wrong_value failure names a sibling trajectory")
    if kind != "wrong_value" and sib is not None:
        out.append(f"{label}: failure.sibling is only for a wrong_value failure")
    cut = failure.get("cut")
    if cut is not None and (not isinstance(cut, int) or isinstance(cut, bool) or cut < 0):
        out.append(f"{label}: failure.cut {cut!r} is not a number of steps (0 or more)")
    if kind != "stopped_short" and cut is not None:
        out.append(f"{label}: failure.cut is only for a stopped_short failure")
    return out


def cut_problems(label: str, part: Part, cut: int) -> list[str]:
    """A stopped_short line's own `cut` must leave the part's last acting step undone."""
    points = words.cut_points(part["traj"]["steps"], words.answers(part))
    if cut in points:
        return []
    return [f"{label}: failure.cut {cut} leaves nothing undone in {part['id']!r} (honest cuts: {points})"]


def sibling_problems(label: str, part: Part, sibling: Part) -> list[str]:
    """A wrong_value sibling must be another recording of the part's macro on its control and start page."""
    a, b = part["task"], sibling["task"]
    same = (a["site"], a["macro"], a["control"].get("control_id"), a["start"]["url"]) == (
        b["site"],
        b["macro"],
        b["control"].get("control_id"),
        b["start"]["url"],
    )
    if not same:
        return [
            f"{label}: failure.sibling {sibling['id']!r} is not the same macro on the same control and page"
        ]
    if a["instruction"] == b["instruction"]:
        return [f"{label}: failure.sibling {sibling['id']!r} has the part's own instruction"]
    return []
