"""The scoring rules of a planner reply against the known turn: pure functions, no I/O.

A reply is right when all of these hold:
- it parses as JSON and fits the planner's schema (`plandvc.agent.schema.SCHEMA`);
- its action kind is the turn's (a delegation, or `done`);
- a delegation names the turn's family, and its instruction keeps every value of the turn's instruction
  (names, labels, numbers, dates, quoted values: the same check the memory model's merge must pass,
  `plandvc.memory.text.missing_values`); on a recovery turn (`after_failure`), every value of the failed
  part's own instruction: the right values, not the wrong one its corrective instruction also names;
- a `done` says success true and, when the chain asks a question, holds the answer verbatim (a whole-word
  match, case aside, so "12" is not kept by "120").

A delegation that keeps the part's values and adds more (say, the whole request) is still right by these
rules; the values it carries from the chain's other parts are recorded as `extra` for the reader, not scored.
The closed loop carries out a delegation exactly when `delegation_problems` finds nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from plandvc.agent.messages import parse_reply, read_reply
from plandvc.agent.schema import SCHEMA
from plandvc.eval.specs import HeldOut, Turn
from plandvc.memory.text import answer_text, keeps, missing_values, values
from plandvc.records import Answer


@dataclass(frozen=True)
class Action:
    """A reply's action, read back: "delegate" (family, instruction) or "done" (text, success)."""

    kind: str
    family: str | None = None
    instruction: str | None = None
    text: str | None = None
    success: bool | None = None


@dataclass
class Score:
    """One reply scored against its turn; `correct` is the step accuracy's unit."""

    valid: bool
    kind: bool = False
    family: bool | None = None  # None on a done turn
    values: bool | None = None  # None on a done turn
    answer: bool | None = None  # None unless the turn is the done of a chain that asks
    correct: bool = False
    action: Action | None = None
    problems: list[str] = field(default_factory=list)
    extra: list[str] = field(default_factory=list)


def read_action(text: str | None) -> tuple[Action | None, list[str]]:
    """The reply's action when it parses and fits the schema, else (None, what is wrong)."""
    obj, problems = parse_reply(text or "", SCHEMA)
    if problems:
        return None, problems
    reply = read_reply(obj)
    if reply.name == "delegate":
        return Action("delegate", family=reply.text("family"), instruction=reply.text("instruction")), []
    return Action("done", text=reply.text("text"), success=reply.flag("success")), []


def delegation_problems(family: str, instruction: str, turn: Turn) -> list[str]:
    """Why a delegation is not `turn` (a delegation turn): the wrong family, or values of it left out (of a
    recovery turn: the values of its task, so the right value is needed and the wrong one is not)."""
    out = []
    if family != turn.family:
        out.append(f"family {family} is not {turn.family}")
    missing = missing_values(instruction, [turn.needs])
    if missing:
        out.append("instruction leaves out " + ", ".join(repr(v) for v in missing))
    return out


def answer_kept(text: str, answer: Answer) -> bool:
    """Whether `text` holds the answer verbatim (whole, case aside)."""
    need = answer_text(answer)
    return not need or keeps(text.casefold(), need.casefold())


def extra_values(instruction: str, turn: Turn, chain: HeldOut) -> list[str]:
    """Values of the chain's other turns that the instruction carries and the turn's own does not have."""
    own = values(turn.instruction or "")
    others: set[str] = set()
    for t in chain.turns:
        if t.kind == "delegate" and t is not turn:
            others |= values(t.instruction or "")
    return sorted(v for v in others - own if keeps(instruction, v))


def score_reply(text: str | None, turn: Turn, chain: HeldOut) -> Score:
    """Score one reply (`None`: no reply came) against the turn it answers."""
    if text is None:
        return Score(valid=False, problems=["no reply"])
    action, problems = read_action(text)
    if action is None:
        return Score(valid=False, problems=problems)
    s = Score(valid=True, action=action, kind=action.kind == turn.kind)
    if not s.kind:
        s.problems.append(f"{action.kind} where the turn is {turn.kind}")
    if turn.kind == "delegate":
        got = delegation_problems(action.family or "", action.instruction or "", turn) if s.kind else []
        s.family = s.kind and action.family == turn.family
        s.values = s.kind and not any(p.startswith("instruction") for p in got)
        s.problems += got
        if s.kind:
            s.extra = extra_values(action.instruction or "", turn, chain)
        s.correct = bool(s.kind and s.family and s.values)
        return s
    if s.kind:
        if not action.success:
            s.problems.append("done with success false")
        if chain.asks:
            s.answer = answer_kept(action.text or "", chain.line["answer"])
            if not s.answer:
                s.problems.append(f"done text lacks the answer {answer_text(chain.line['answer'])!r}")
    elif chain.asks:
        s.answer = False
    s.correct = bool(s.kind and action.success and s.answer is not False)
    return s
