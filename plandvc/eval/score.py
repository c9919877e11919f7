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

- (strict) a delegation is one step: it carries no value that belongs to another part of the chain alone (a
  value of another part's instruction that no instruction of this part holds), `extra`. The whole request as
  one delegation keeps the part's values and is still wrong.

`lenient` is the same rules without the last: today's step accuracy before the strict rule, reported beside
it (`step_accuracy_lenient`), so a planner that delegates the whole request shows in the gap. A part's
instructions are its turn's and, on a recovery chain, its failed attempt's and its re-delegation's. The closed
loop carries out a delegation exactly when it would be right by the strict rule's delegation checks
(`delegation_problems` finds nothing and `extra_values` is empty).
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
    """One reply scored against its turn; `correct` is the step accuracy's unit (strict: no other part's value
    carried), `lenient` the same without that rule."""

    valid: bool
    kind: bool = False
    family: bool | None = None  # None on a done turn
    values: bool | None = None  # None on a done turn
    answer: bool | None = None  # None unless the turn is the done of a chain that asks
    correct: bool = False
    lenient: bool = False
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


def part_of(turn: Turn, chain: HeldOut) -> list[Turn]:
    """The turns of `turn`'s part: itself, and on a recovery chain the failed attempt with its re-delegation
    (an `after_failure` turn belongs to the turn before it)."""
    groups: list[list[Turn]] = []
    for t in chain.turns:
        if t.role == "after_failure" and groups:
            groups[-1].append(t)
        else:
            groups.append([t])
    return next((g for g in groups if any(t is turn for t in g)), [turn])


def extra_values(instruction: str, turn: Turn, chain: HeldOut) -> list[str]:
    """Values of the chain's other parts that the instruction carries and no instruction of the turn's own part
    holds (a value two parts share is the turn's own too), sorted."""
    own = [t.instruction or "" for t in part_of(turn, chain)] + [turn.needs]
    mine = {id(t) for t in part_of(turn, chain)}
    others: set[str] = set()
    for t in chain.turns:
        if t.kind == "delegate" and id(t) not in mine:
            others |= values(t.instruction or "")
    return sorted(v for v in others if keeps(instruction, v) and not any(keeps(o, v) for o in own))


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
        if s.extra:
            s.problems.append("instruction carries other parts' " + ", ".join(repr(v) for v in s.extra))
        s.lenient = bool(s.kind and s.family and s.values)
        s.correct = s.lenient and not s.extra
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
    s.correct = s.lenient = bool(s.kind and action.success and s.answer is not False)
    return s
