"""The scoring rules of a planner reply against the known turn: pure functions, no I/O.

A reply is right when all of these hold:
- it parses as JSON and fits the planner's schema (`plandvc.agent.schema.SCHEMA`);
- its action kind is the turn's (a delegation, or `done`);
- a delegation names the turn's family, and its instruction keeps every value of the turn's instruction
  (names, labels, numbers, dates, quoted values: the same check the memory model's merge must pass,
  `plandvc.memory.text.missing_values`); on a recovery turn (`after_failure`), every value of the failed
  part's own instruction: the right values, not the wrong one its corrective instruction also names;
- (meaning) a delegation means what the turn means (`meaning_problems`): a sort's direction is the turn's
  (highest/lowest, newest/oldest, A to Z: ascending or descending, by `DIRECTION_WORDS`), a bound's side is
  the turn's (at most / at least / between, by `BOUND_WORDS`), a widget the turn names is the one it names
  (no slider where the turn's control is a dropdown), and every quoted value (an entry, an option) is one the
  turn's own instruction holds (no other entry). A value kept in flipped words is a wrong step;
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

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from plandvc.agent.messages import parse_reply, read_reply
from plandvc.agent.schema import SCHEMA
from plandvc.chains.compose import widget_words
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
    meaning: bool | None = None  # None on a done turn: direction, bound, widget and entry as the turn's
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


# ── what a step means: direction, bound, widget, entry ───────────────────────

# a sort's direction in any words a planner says it (whole words, case aside, quoted values left out):
# "asc" is lowest / oldest / A to Z first, "desc" highest / newest / Z to A first
DIRECTION_WORDS: dict[str, tuple[str, ...]] = {
    "asc": ("ascending", "asc", "lowest", "low to high", "smallest", "fewest", "least", "cheapest", "oldest",
            "earliest", "a to z", "a-z", "alphabetical", "alphabetically", "increasing"),
    "desc": ("descending", "desc", "highest", "high to low", "largest", "biggest", "most", "priciest",
             "newest", "latest", "most recent", "z to a", "z-a", "reverse alphabetical", "decreasing", "best"),
}  # fmt: skip
# a bound's side: "max" (at most), "min" (at least); a date range's "between" wins over either
BOUND_WORDS: dict[str, tuple[str, ...]] = {
    "max": ("max", "maximum", "at most", "up to", "no more than", "no higher than", "no greater than",
            "not more than", "not above", "or less", "or fewer", "or lower", "under", "below", "less than",
            "lower than", "fewer than", "highest", "before", "until", "till"),
    "min": ("min", "minimum", "at least", "no less than", "no lower than", "no fewer than", "not below",
            "or more", "or higher", "or above", "over", "above", "more than", "greater than", "higher than",
            "lowest", "after", "since", "on or after", "onwards", "onward"),
}  # fmt: skip
# a date range said as a range: "between a and b", "from a to b", "a – b"
_BETWEEN = re.compile(r"(?<!\w)between(?!\w)|(?<!\w)from(?!\w).*(?<!\w)(?:to|until|till|through)(?!\w)|–")
_QUOTE = re.compile(r"\"[^\"\n]*\"|“[^”\n]*”")
_ENTRY_MACROS = frozenset(
    {"open_entry", "edit_entry", "delete_entry", "copy_value", "report_information", "switch_tab"}
)


def _said(words: tuple[str, ...], text: str) -> bool:
    return any(re.search(rf"(?<![\w-]){re.escape(w)}(?![\w-])", text) for w in words)


def _plain(text: str) -> str:
    """`text` without its quoted values, case folded: the words a meaning is read from."""
    return _QUOTE.sub('""', text).casefold()


def directions(text: str) -> set[str]:
    """The sort directions `text` says ("asc", "desc"; both: it contradicts itself; none: it says none)."""
    t = _plain(text)
    return {d for d, w in DIRECTION_WORDS.items() if _said(w, t)}


def bounds(text: str, macro: str | None) -> set[str]:
    """The sides of a bound `text` says, "max" and "min"; of a date range, "between" when it says a range or
    both sides ("after a and before b")."""
    t = _plain(text)
    sides = {b for b, w in BOUND_WORDS.items() if _said(w, t)}
    if macro == "filter_by_date_range" and (_BETWEEN.search(t) or sides == {"max", "min"}):
        return {"between"}
    return sides


def quoted_values(text: str) -> list[str]:
    """The quoted values of `text`, in order."""
    return [m.group(0)[1:-1].strip() for m in _QUOTE.finditer(text or "")]


def meaning_problems(instruction: str, turn: Turn, others: Sequence[str] = ()) -> list[str]:
    """Why a delegation does not mean what `turn` means, though it may keep its values: a flipped or missing
    sort direction, a flipped bound, another widget than the one the turn names, or a quoted value (an entry,
    an option) that neither the turn nor `others` (the chain's other instructions: carrying one of theirs is
    `extra_values`' strict rule) holds. Empty: the same meaning."""
    need = turn.needs
    own = [t.casefold() for t in (need, turn.instruction or "", *others)]
    out = []
    if turn.macro == "sort_by_form":
        want, got = directions(need), directions(instruction)
        if len(want) == 1 and got != want:
            said = " and ".join(sorted(got)) or "no direction"
            out.append(f"meaning: sorts {said} where the turn sorts {next(iter(want))}")
    if turn.macro in ("filter_by_slider", "filter_by_date_range"):
        want, got = bounds(need, turn.macro), bounds(instruction, turn.macro)
        if len(want) == 1 and got and got != want:
            out.append(f"meaning: bound {' and '.join(sorted(got))} where the turn's is {next(iter(want))}")
    named = set(widget_words(need))
    if named and not set(widget_words(instruction)) <= named:
        other = sorted(set(widget_words(instruction)) - named)
        out.append(
            f"meaning: names the {', '.join(other)} where the turn's control is a {', '.join(sorted(named))}"
        )
    foreign = [v for v in quoted_values(instruction) if v and not any(keeps(t, v.casefold()) for t in own)]
    if foreign:
        what = "entry" if turn.macro in _ENTRY_MACROS else "value"
        out.append(f"meaning: names another {what} " + ", ".join(repr(v) for v in foreign))
    return out


def delegation_problems(family: str, instruction: str, turn: Turn, chain: HeldOut | None = None) -> list[str]:
    """Why a delegation is not `turn` (a delegation turn) of `chain`: the wrong family, values of it left out
    (of a recovery turn: the values of its task, so the right value is needed and the wrong one is not), or
    another meaning (`meaning_problems`)."""
    out = []
    if family != turn.family:
        out.append(f"family {family} is not {turn.family}")
    missing = missing_values(instruction, [turn.needs])
    if missing:
        out.append("instruction leaves out " + ", ".join(repr(v) for v in missing))
    others = [t.instruction or "" for t in chain.turns if t is not turn] if chain is not None else []
    return out + meaning_problems(instruction, turn, others)


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
        got = (
            delegation_problems(action.family or "", action.instruction or "", turn, chain) if s.kind else []
        )
        s.family = s.kind and action.family == turn.family
        s.values = s.kind and not any(p.startswith("instruction") for p in got)
        s.meaning = s.kind and not any(p.startswith("meaning") for p in got)
        s.problems += got
        if s.kind:
            s.extra = extra_values(action.instruction or "", turn, chain)
        if s.extra:
            s.problems.append("instruction carries other parts' " + ", ".join(repr(v) for v in s.extra))
        s.lenient = bool(s.kind and s.family and s.values and s.meaning)
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
