"""Evaluation by goal kind (issue 45, item 5): the held-out turns that need a report, flagged by construction
from the episode's found values; the metrics' `by_goal` and `after_report` (absent on v3's held-out chains, so
their metrics keep their bytes); eval-table's column per goal kind."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, cast

from plandvc.eval.closed import Episode
from plandvc.eval.metrics import closed_metrics, goal_kinds, teacher_metrics
from plandvc.eval.score import Score
from plandvc.eval.specs import SpecLine, held_out, report_turns, spec_line
from plandvc.eval.table import collect, side_by_side
from plandvc.eval.teacher import TurnReply
from plandvc.records import Episode as EpisodeRecord
from plandvc.records import Turn as EpisodeTurn

ROOT = Path(__file__).resolve().parents[1]


def turn(kind: str, instruction: str | None = None, **kw: Any) -> EpisodeTurn:
    t = {
        "kind": kind,
        "family": "Information" if kind == "delegate" else None,
        "instruction": instruction,
        **kw,
    }
    return cast(EpisodeTurn, t)


DETAIL_TURNS = [
    turn("delegate", 'Search the recipes for "Lemon".', macro="search_by_text"),
    turn("delegate", "Read the name of the first recipe in the list.", found="Lemon Tart"),
    turn("delegate", 'Open the recipe "Lemon Tart".'),
    turn("delegate", 'Read the Calories of the recipe "Lemon Tart".'),
    turn("done", answer="420"),
]


def test_a_delegation_carrying_a_found_value_needs_the_report() -> None:
    assert report_turns(DETAIL_TURNS) == [False, False, True, True, False]
    # the same words with nothing found: no report is needed (a value the request holds is no found value)
    plain = [cast(EpisodeTurn, {k: v for k, v in t.items() if k != "found"}) for t in DETAIL_TURNS]
    assert report_turns(plain) == [False] * 5
    # a found value the user's request already holds needs no report
    assert report_turns(DETAIL_TURNS, request='What are the calories of "Lemon Tart"?') == [False] * 5


def episode(key: str, turns: list[EpisodeTurn], goal: str | None) -> EpisodeRecord:
    e: dict[str, Any] = {
        "task_id": key, "site": "s", "parts": ["p"], "via": [None], "instruction": "req", "answer": "420",
        "turns": turns,
    }  # fmt: skip
    if goal is not None:
        e["goal"] = {"kind": goal, "page": "/sites/s/recipes", "expected": "420"}
    return cast(EpisodeRecord, e)


def line_of(key: str, turns: list[EpisodeTurn], goal: str | None) -> SpecLine:
    return spec_line(episode(key, turns, goal))


def test_spec_lines_flag_only_the_turns_that_need_a_report() -> None:
    line = line_of("k1", DETAIL_TURNS, "detail")
    assert [t.get("after_report", False) for t in line["turns"]] == [False, False, True, True, False]
    v3 = line_of("k2", [turn("delegate", "Sort."), turn("done")], "top")
    assert all("after_report" not in t for t in v3["turns"])  # v3's lines keep their bytes
    held = held_out(line, Path("raw/k1"))
    assert [t.after_report for t in held.turns] == [False, False, True, True, False]
    assert held.goal_kind == "detail" and held_out(v3, Path("raw/k2")).goal_kind == "top"


def replies(lines: list[SpecLine], wrong: set[tuple[str, int]]) -> list[TurnReply]:
    out = []
    for line in lines:
        held = held_out(line, Path("raw") / line["key"])
        for i, t in enumerate(held.turns):
            ok = (line["key"], i) not in wrong
            score = Score(valid=True, kind=True, family=ok, values=ok, correct=ok, lenient=ok)
            out.append(TurnReply(held, i, t, "{}", None, score))
    return out


def test_metrics_by_goal_kind_and_after_a_report() -> None:
    detail = line_of("k1", DETAIL_TURNS, "detail")
    walk = line_of("k3", [turn("delegate", "Sort."), turn("done")], None)
    m = teacher_metrics(replies([detail, walk], wrong={("k1", 2)}))
    assert m["by_goal"] == {
        "detail": {"turns": 5, "correct": 4, "accuracy": 0.8},
        "walk": {"turns": 2, "correct": 2, "accuracy": 1.0},
    }
    assert m["after_report"] == {"turns": 2, "correct": 1, "accuracy": 0.5}  # the wrong entry opened
    assert m["after_report_share"] == round(2 / 5, 4)
    held = [held_out(x, Path("raw")) for x in (detail, walk)]
    closed = closed_metrics([Episode("k1", "done", False, 5, 2, 4), Episode("k3", "done", True, 2, 1, 1)],
                            goal_kinds(held))  # fmt: skip
    assert closed["by_goal"] == {
        "detail": {"turns": 1, "correct": 0, "accuracy": 0.0},
        "walk": {"turns": 1, "correct": 1, "accuracy": 1.0},
    }


def test_v3s_kinds_add_no_key() -> None:
    """count, top and walked chains only (v3's held-out chains): the metrics have no new key."""
    top = line_of("k2", [turn("delegate", "Sort."), turn("done")], "top")
    walk = line_of("k3", [turn("delegate", "Sort."), turn("done")], None)
    m = teacher_metrics(replies([top, walk], wrong=set()))
    assert "by_goal" not in m and "after_report" not in m and "after_report_share" not in m
    held = [held_out(x, Path("raw")) for x in (top, walk)]
    assert "by_goal" not in closed_metrics([Episode("k2", "done", True, 2, 1, 1)], goal_kinds(held))


def test_eval_table_adds_a_column_per_goal_kind(tmp_path: Path) -> None:
    def metrics(planner: str, detail: float, after: float) -> dict[str, object]:
        return {
            "planner": planner,
            "chains": 10,
            "teacher_forced": {
                "step_accuracy": 0.9,
                "step_accuracy_lenient": 0.9,
                "by_goal": {
                    "detail": {"turns": 8, "correct": 6, "accuracy": detail},
                    "walk": {"turns": 4, "correct": 4, "accuracy": 1.0},
                },
                "after_report": {"turns": 4, "correct": 2, "accuracy": after},
                "after_report_share": 0.4,
            },
            "closed_loop": {
                "success": 7,
                "episodes": 10,
                "by_goal": {"detail": {"turns": 6, "correct": 3, "accuracy": 0.5}},
            },
        }

    (tmp_path / "eval-reference-oracle.json").write_text(json.dumps(metrics("reference:oracle", 1.0, 1.0)))
    (tmp_path / "eval-reference-copy.json").write_text(json.dumps(metrics("reference:copy", 0.75, 0.5)))
    lines = side_by_side(collect(tmp_path)).splitlines()
    assert lines[0] == "| planner | generated (10 chains) |"
    assert "| generated: planner | goal detail | goal walk | after a report |" in lines
    assert "| oracle | 1.00, 3 of 6 | 1.00 | 1.00 (4 turns, 40.0 %) |" in lines
    assert "| copy | 0.75, 3 of 6 | 1.00 | 0.50 (4 turns, 40.0 %) |" in lines


def test_the_committed_v4_metrics_have_a_goal_table() -> None:
    """v4's held-out chains have the kinds that use what is found, so eval-table prints their table (v3's
    metrics had none: the hand-made v3-shaped metrics above show it left out)."""
    assert "goal " in side_by_side(collect(ROOT / "metrics"))
