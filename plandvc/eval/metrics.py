"""The evaluation's outputs: every reply with its score (`replies.jsonl`), the metrics for `dvc metrics`
(`metrics/eval.json`) and the table on the terminal.

Accuracies are `correct / turns` rounded to 4 places, and every group also keeps its counts, so an exact
expectation (the oracle's 1.0, always-done's share of question-free dones) is checked on integers. Nothing
here depends on time or on the order replies came in.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from typing import NotRequired, TypedDict, final

from plandvc.eval.closed import ENDS, Episode
from plandvc.eval.specs import LIST_KINDS, WALK, HeldOut
from plandvc.eval.teacher import TurnReply
from plandvc.records import Answer


class GroupScore(TypedDict):
    """A group's counts (by family, macro, turn or role) and its accuracy."""

    turns: int
    correct: int
    accuracy: float | None


class ExpectedStep(TypedDict):
    """What a teacher-forced turn should be: its kind, the delegation's family, instruction and macro, or the
    done's answer."""

    kind: str
    family: str | None
    instruction: str | None
    macro: str | None
    answer: Answer


class ReplyScore(TypedDict):
    """A reply's score as replies.jsonl stores it (`plandvc.eval.score.Score`)."""

    correct: bool
    lenient: bool  # correct but for the strict rule (no other part's value carried)
    valid: bool
    kind: bool
    family: bool | None
    values: bool | None
    answer: bool | None
    problems: list[str]
    extra_values: list[str]


class ReplyLine(TypedDict):
    """A line of replies.jsonl."""

    key: str
    turn: int
    expected: ExpectedStep
    reply: str | None
    error: str | None
    score: ReplyScore
    reply_cut_from: NotRequired[int]


class TeacherMetrics(TypedDict):
    """metrics.json `teacher_forced`: accuracies over every turn, and by group (strict); `*_lenient` count a
    delegation that also carries other parts' values as right (`plandvc.eval.score`)."""

    turns: int
    correct: int
    step_accuracy: float | None
    correct_lenient: int
    step_accuracy_lenient: float | None
    valid: float | None
    invalid_replies: int
    no_reply: int
    kind_accuracy: float | None
    family_accuracy: float | None
    values_kept: float | None
    answer_kept: float | None
    by_family: dict[str, GroupScore]
    by_macro: dict[str, GroupScore]
    by_turn: dict[str, GroupScore]
    by_role: NotRequired[dict[str, GroupScore]]
    # only when a held-out chain has a goal kind that uses what is found (issue 45; v3's metrics keep their
    # bytes): the turns by their chain's goal kind ("walk": no goal)
    by_goal: NotRequired[dict[str, GroupScore]]
    # only when some delegation needs a report: those delegations (their accuracy), and their share of all
    after_report: NotRequired[GroupScore]
    after_report_share: NotRequired[float | None]


class EpisodeLine(TypedDict):
    """A line of episodes.jsonl: how one closed-loop episode went."""

    key: str
    end: str
    success: bool
    turns: int
    steps_done: int
    steps: int
    off_script_turn: int | None
    gates: list[bool]
    detail: str
    replies: list[str | None]


class ClosedMetrics(TypedDict):
    """metrics.json `closed_loop`: episodes that succeeded, steps carried out, how episodes ended."""

    episodes: int
    success: int
    success_rate: float | None
    steps_done: int
    steps: int
    ends: dict[str, int]
    off_script_at_turn: dict[str, int]
    by_goal: NotRequired[dict[str, GroupScore]]  # episodes (turns: episodes, correct: successes) by goal kind


@final  # so that `"skipped" in metrics` tells the two apart
class EvalMetrics(TypedDict):
    """metrics.json of eval-planner: the planner's name and the scores of the modes it ran."""

    planner: str
    chains: int
    images: bool
    teacher_forced: NotRequired[TeacherMetrics]
    closed_loop: NotRequired[ClosedMetrics]
    response_format: NotRequired[str]  # the structured-output form the server accepted
    traffic: NotRequired[dict[str, int]]
    dialect: NotRequired[str]  # the held-out rows' dialect where it is not the default (eval-apps)


@final
class SkippedMetrics(TypedDict):
    """metrics.json of an eval-planner run with no planner configured: why it was skipped."""

    skipped: str


def rate(n: int, d: int) -> float | None:
    """n / d rounded to 4 places; None when there is nothing to count (say, no chain asks a question)."""
    return round(n / d, 4) if d else None


def _group(items: list[tuple[str, bool]]) -> dict[str, GroupScore]:
    tally: dict[str, Counter[str]] = defaultdict(Counter)
    for key, ok in items:
        tally[key]["turns"] += 1
        tally[key]["correct"] += ok
    return {
        k: GroupScore(turns=c["turns"], correct=c["correct"], accuracy=rate(c["correct"], c["turns"]))
        for k, c in sorted(
            tally.items(), key=lambda kv: (kv[0].isdigit(), int(kv[0]) if kv[0].isdigit() else kv[0])
        )
    }


MAX_REPLY_CHARS = 100_000  # a reply is stored up to this many characters (a planner reply is ~1,000)


def reply_record(r: TurnReply) -> ReplyLine:
    """One line of replies.jsonl: the turn, the expected step, the reply and its score. A reply longer than
    MAX_REPLY_CHARS is stored cut, with `reply_cut_from` its length (it was scored whole)."""
    s = r.score
    cut = r.reply is not None and len(r.reply) > MAX_REPLY_CHARS
    record: ReplyLine = {
        "key": r.chain.line["key"],
        "turn": r.turn_index,
        "expected": {
            "kind": r.turn.kind,
            "family": r.turn.family,
            "instruction": r.turn.instruction,
            "macro": r.turn.macro,
            "answer": r.chain.line["answer"] if r.turn.kind == "done" else None,
        },
        "reply": r.reply[:MAX_REPLY_CHARS] if r.reply is not None else None,
        "error": r.error,
        "score": {
            "correct": s.correct,
            "lenient": s.lenient,
            "valid": s.valid,
            "kind": s.kind,
            "family": s.family,
            "values": s.values,
            "answer": s.answer,
            "problems": s.problems,
            "extra_values": s.extra,
        },
    }
    if cut:
        record["reply_cut_from"] = len(r.reply or "")
    return record


def teacher_metrics(replies: list[TurnReply]) -> TeacherMetrics:
    n = len(replies)
    correct = sum(r.score.correct for r in replies)
    lenient = sum(r.score.lenient for r in replies)
    delegations = [r for r in replies if r.turn.kind == "delegate"]
    asking = [r for r in replies if r.turn.kind == "done" and r.chain.asks]
    metrics: TeacherMetrics = {
        "turns": n,
        "correct": correct,
        "step_accuracy": rate(correct, n),
        "correct_lenient": lenient,
        "step_accuracy_lenient": rate(lenient, n),
        "valid": rate(sum(r.score.valid for r in replies), n),
        "invalid_replies": sum(not r.score.valid for r in replies),
        "no_reply": sum(r.reply is None for r in replies),
        "kind_accuracy": rate(sum(r.score.kind for r in replies), n),
        "family_accuracy": rate(sum(bool(r.score.family) for r in delegations), len(delegations)),
        "values_kept": rate(sum(bool(r.score.values) for r in delegations), len(delegations)),
        "answer_kept": rate(sum(bool(r.score.answer) for r in asking), len(asking)),
        "by_family": _group([(r.turn.group, r.score.correct) for r in replies]),
        "by_macro": _group([(r.turn.macro or "done", r.score.correct) for r in replies]),
        "by_turn": _group([(str(r.turn_index), r.score.correct) for r in replies]),
    }
    # accuracy on recovery chains' turns by role (`after_failure`: the re-delegation after a failed attempt),
    # only when the held-out chains have any
    if any(r.turn.role for r in replies):
        metrics["by_role"] = _group([(r.turn.role or "normal", r.score.correct) for r in replies])
    if {r.chain.goal_kind for r in replies} - LIST_KINDS:
        metrics["by_goal"] = _group([(r.chain.goal_kind, r.score.correct) for r in replies])
    after = [r for r in delegations if r.turn.after_report]
    if after:
        metrics["after_report"] = _group([("after_report", r.score.correct) for r in after])["after_report"]
        metrics["after_report_share"] = rate(len(after), len(delegations))
    return metrics


def episode_record(e: Episode) -> EpisodeLine:
    return {
        "key": e.key,
        "end": e.end,
        "success": e.success,
        "turns": e.turns,
        "steps_done": e.steps_done,
        "steps": e.steps,
        "off_script_turn": e.off_script_turn,
        "gates": e.gates,
        "detail": e.detail,
        "replies": [
            x[:MAX_REPLY_CHARS] if x is not None else None for x in e.replies
        ],  # cut as in replies.jsonl
    }


def goal_kinds(chains: Iterable[HeldOut]) -> dict[str, str]:
    """Each held-out chain's goal kind by its key (`closed_metrics`' `kinds`)."""
    return {h.line["key"]: h.goal_kind for h in chains}


def closed_metrics(episodes: list[Episode], kinds: Mapping[str, str] | None = None) -> ClosedMetrics:
    """The closed loop's metrics; `kinds` (chain key -> goal kind) adds `by_goal` when a kind uses what is
    found."""
    n = len(episodes)
    ok = sum(e.success for e in episodes)
    ends = Counter(e.end for e in episodes)
    off = Counter(str(e.off_script_turn) for e in episodes if e.off_script_turn is not None)
    metrics: ClosedMetrics = {
        "episodes": n,
        "success": ok,
        "success_rate": rate(ok, n),
        "steps_done": sum(e.steps_done for e in episodes),
        "steps": sum(e.steps for e in episodes),
        "ends": {k: ends[k] for k in ENDS if ends[k]},
        "off_script_at_turn": dict(sorted(off.items(), key=lambda kv: int(kv[0]))),
    }
    if kinds is not None and set(kinds.values()) - LIST_KINDS:
        metrics["by_goal"] = _group([(kinds.get(e.key, WALK), e.success) for e in episodes])
    return metrics


def table(metrics: EvalMetrics) -> str:
    """The terminal table: overall, by family, by turn, and the closed loop."""
    lines = [f"planner {metrics['planner']}"]

    def f(x: float | None) -> str:
        return "n/a" if x is None else f"{x:.4f}"

    tf = metrics.get("teacher_forced")
    if tf:
        lines += [
            f"teacher-forced: step accuracy {f(tf['step_accuracy'])} ({tf['correct']}/{tf['turns']} turns), "
            f"lenient {f(tf['step_accuracy_lenient'])} ({tf['correct_lenient']}/{tf['turns']}), "
            f"valid {f(tf['valid'])}, kind {f(tf['kind_accuracy'])}, family {f(tf['family_accuracy'])}, "
            f"values {f(tf['values_kept'])}, answer {f(tf['answer_kept'])}, invalid {tf['invalid_replies']}",
            f"  {'group':<24}{'turns':>7}{'correct':>9}{'accuracy':>10}",
        ]
        groups = (("family", tf["by_family"]), ("turn", tf["by_turn"]), ("goal", tf.get("by_goal", {})))
        for title, by in groups:
            for k, g in by.items():
                label = f"{title} {k}"
                lines.append(f"  {label:<24}{g['turns']:>7}{g['correct']:>9}{f(g['accuracy']):>10}")
        after = tf.get("after_report")
        if after is not None:
            lines.append(
                f"  {'after a report':<24}{after['turns']:>7}{after['correct']:>9}{f(after['accuracy']):>10}"
                f"  ({f(tf.get('after_report_share'))} of the delegations)"
            )
    cl = metrics.get("closed_loop")
    if cl:
        ends = ", ".join(f"{k} {v}" for k, v in cl["ends"].items())
        off = ", ".join(f"turn {k}: {v}" for k, v in cl["off_script_at_turn"].items()) or "none"
        ends_goal = cl.get("by_goal", {})
        lines += [
            f"closed loop: success {f(cl['success_rate'])} ({cl['success']}/{cl['episodes']} episodes), "
            f"steps carried out {cl['steps_done']}/{cl['steps']}",
            f"  ends: {ends}",
            f"  off script at: {off}",
        ]
        lines += [f"  goal {k}: {g['correct']} of {g['turns']}" for k, g in ends_goal.items()]
    t = metrics.get("traffic") or {}
    if t:
        lines.append("  traffic: " + ", ".join(f"{k} {v}" for k, v in t.items()))
    return "\n".join(lines)
