"""The words of a recovery chain, on recordings of the committed sample pool: the corrective instruction of
every failure kind and kind of control names what is wrong and what is right, and a stopped_short cut is a
seeded choice among the honest cuts. Pure: no browser (tests/test_recovery.py runs them in Chromium)."""

from __future__ import annotations

import functools
from typing import Any

import pytest
from bundled import POOL_DIR

from plandvc.pool.store import Pool
from plandvc.records import ChainFailure, Part, TrajectoryStep
from plandvc.run.corrective import cut_points, settings
from plandvc.run.recovery import FailureError, FailurePlan, cut_problems, failure_problems, plan_failure


@functools.cache
def pool() -> Pool:
    return Pool.open(POOL_DIR)


@functools.cache
def part(pid: str) -> Part:
    return pool().part(pid)


def plan(
    pid: str, kind: str, sibling: str | None = None, cut: int | None = None, key: str = "k"
) -> FailurePlan:
    failure: Any = {"part": 0, "kind": kind}
    if sibling is not None:
        failure["sibling"] = sibling
    if cut is not None:
        failure["cut"] = cut
    return plan_failure(failure, part(pid), part(sibling) if sibling else None, key)


WRONG_VALUE = [  # (part, its sibling: the wrong value's recording, the corrective instruction)
    (
        "clinic-filter_by_dropdown-0001",
        "clinic-filter_by_dropdown-0002",
        'The Doctor filter shows "Dr. Tanaka"; set it to "Dr. Lindqvist".',
    ),
    (
        "clinic-filter_by_slider-0000",
        "clinic-filter_by_slider-0001",
        "The Max visits slider is at 11; set it to 10.",
    ),
    (
        "clinic-filter_by_date_range-0000",
        "clinic-filter_by_date_range-0001",
        'The Date filter is set from "2026-04-02" to "2026-04-22"; set it from "2026-04-02" to "2026-04-05".',
    ),
    (
        "clinic-sort_by_form-0000",
        "clinic-sort_by_form-0001",
        'The list is sorted by "Duration", ascending; sort it by "Date", descending.',
    ),
    (
        "clinic-search_by_text-0001",
        "clinic-search_by_text-0002",
        'The search is for "Haddad"; search for "Fischer" instead.',
    ),
    (
        "clinic-count_entries-0000",
        "clinic-count_entries-0001",
        'That answer was made with Doctor "Dr. Tanaka" instead of "Dr. Okafor". '
        'How many appointments have Doctor "Dr. Okafor"?',
    ),
]


@pytest.mark.parametrize(("pid", "sibling", "words"), WRONG_VALUE, ids=[w[0] for w in WRONG_VALUE])
def test_a_wrong_value_is_named_with_the_right_one(pid: str, sibling: str, words: str) -> None:
    """Filter, slider, date range, sort, search and count: the control, the value it holds (the sibling's)
    and the one it needs (the part's), in the control's own words; the failed attempt replays the sibling
    and reports a finished step."""
    got = plan(pid, "wrong_value", sibling)
    assert got.instruction == words
    assert got.failed == part(sibling)["traj"] and got.report is None
    assert got.recovery == part(pid)["traj"]


def test_a_wrong_value_that_cannot_be_read_is_the_plain_instruction() -> None:
    """When the steps hold no value to compare (the same values, or value steps that do not line up), the
    planner repeats the plain instruction: the page shows the value."""
    own = part("clinic-filter_by_dropdown-0001")
    same = plan_failure({"part": 0, "kind": "wrong_value", "sibling": own["id"]}, own, own, "k")
    assert same.instruction == own["task"]["instruction"]
    clicks: Part = {
        **own,
        "traj": {**own["traj"], "steps": [s for s in own["traj"]["steps"] if s["action"] == "click"]},
    }
    sib = part("clinic-filter_by_dropdown-0002")
    got = plan_failure({"part": 0, "kind": "wrong_value", "sibling": sib["id"]}, clicks, sib, "k")
    assert got.instruction == own["task"]["instruction"]


def test_lost_work_names_the_unsaved_form_and_what_it_held() -> None:
    create = plan("clinic-create_entry-0000", "lost_work")
    task = part("clinic-create_entry-0000")["task"]["instruction"]
    assert create.instruction == (
        'Nothing was saved: the new appointment form was filled in (Patient "Hugo Varga", Doctor "Dr. Tanaka", '
        'Department "Dermatology", Status "Checked in", Duration "35", Date "2026-04-06") but left without '
        f"submitting the new appointment. Do it again: {task}"
    )
    assert create.report == (
        "I filled in the form but left it without submitting the new appointment, so nothing was saved."
    )
    assert [s["action"] for s in create.failed["steps"]][-1] == "go_to"
    edit = plan("clinic-edit_entry-0000", "lost_work")
    assert edit.instruction == (
        'Nothing was saved: the edit form of appointment was filled in (Duration "57") but left without saving '
        'the change. Do it again: Update the appointment "Björn Brennan": Duration "57".'
    )


def test_stopped_short_names_every_step_left_undone() -> None:
    pid = "clinic-filter_by_dropdown-0001"  # opening the page, choosing the doctor, applying the filter
    task = part(pid)["task"]["instruction"]
    last = plan(pid, "stopped_short", cut=2)
    assert last.report == "I could not finish the task: I stopped before applying the filter."
    assert last.instruction == f"The previous attempt stopped before applying the filter; finish it: {task}"
    mid = plan(pid, "stopped_short", cut=1)
    assert mid.report == (
        'I could not finish the task: I stopped before choosing "Dr. Lindqvist" in the Doctor filter.'
    )
    assert mid.instruction == (
        'The previous attempt stopped before choosing "Dr. Lindqvist" in the Doctor filter and applying the '
        f"filter; finish it: {task}"
    )
    assert (len(mid.failed["steps"]), len(mid.recovery["steps"])) == (1, 2)
    form = plan(
        "clinic-create_entry-0000", "stopped_short", cut=1
    )  # the form opened, six fields and submit left
    assert form.instruction.startswith(
        'The previous attempt stopped before setting Patient to "Hugo Varga", setting Doctor to "Dr. Tanaka", '
        "4 more steps and submitting the new appointment; finish it: Create a new appointment"
    )


def step(action: str) -> TrajectoryStep:
    return {"action": action, "element": 0 if action != "scroll" else None, "value": None, "memory": "x."}


def test_the_honest_cuts_leave_the_last_acting_step_undone() -> None:
    """A cut after `k` steps is honest when the part's last acting step is still to do: every k before it,
    none after it (a trailing scroll is not acting: stopping before it leaves the part done)."""
    assert cut_points([step("click"), step("select"), step("click")]) == [0, 1, 2]
    assert cut_points([step("click"), step("click"), step("scroll")]) == [0, 1]
    assert cut_points([step("click")]) == [0]
    assert cut_points([]) == [] and cut_points([step("scroll")]) == []
    # a question fails until it answers: after every step too, and with no step at all
    assert cut_points([step("select"), step("click")], answers=True) == [0, 1, 2]
    assert cut_points([], answers=True) == [0]


def test_the_cut_is_drawn_with_the_chain_key_and_recorded() -> None:
    """Without a cut in the line, the cut is drawn among the honest ones with the chain's key: the same key
    the same cut, keys spread over every honest cut; the plan's line records it (the episode's failure)."""
    pid = "clinic-create_entry-0000"
    honest = cut_points(part(pid)["traj"]["steps"])
    cuts = {key: plan(pid, "stopped_short", key=key).line["cut"] for key in (f"plan-{n}" for n in range(200))}
    assert set(cuts.values()) == set(honest)
    assert all(plan(pid, "stopped_short", key=k).line["cut"] == c for k, c in list(cuts.items())[:5])
    line: ChainFailure = plan(pid, "stopped_short", key="plan-0").line
    assert line == {"part": 0, "kind": "stopped_short", "cut": cuts["plan-0"]}
    assert "cut" not in plan(pid, "lost_work").line


def test_a_cut_that_leaves_nothing_undone_is_refused() -> None:
    pid = "clinic-filter_by_dropdown-0001"
    with pytest.raises(
        FailureError, match=r"^stopped_short: cut 3 leaves nothing undone \(honest cuts: 0\.\.2\)$"
    ):
        plan(pid, "stopped_short", cut=3)
    assert cut_problems("c:1", part(pid), 3) == [
        f"c:1: failure.cut 3 leaves nothing undone in {pid!r} (honest cuts: [0, 1, 2])"
    ]
    assert cut_problems("c:1", part(pid), 2) == []
    assert failure_problems("c:1", {"part": 0, "kind": "lost_work", "cut": 1}, 1) == [
        "c:1: failure.cut is only for a stopped_short failure"
    ]
    assert failure_problems("c:1", {"part": 0, "kind": "stopped_short", "cut": -1}, 1) == [
        "c:1: failure.cut -1 is not a number of steps (0 or more)"
    ]


def test_every_corrective_instruction_of_the_pool_keeps_the_tasks_values() -> None:
    """Every part of the sample pool (training and test sites), every kind it qualifies for and every
    sibling: the corrective instruction keeps every value of the part's own instruction (so a specialist
    gets the whole task, and the evaluation's value check passes the oracle), and a wrong value's names the
    sibling's value as well."""
    from bundled import SITES_DIR, pool_items_once

    from plandvc.chains.recovery import candidates, siblings_of
    from plandvc.memory.text import missing_values

    items = pool_items_once(POOL_DIR, SITES_DIR)[0] + pool_items_once(POOL_DIR, SITES_DIR, held_out=True)[0]
    sibs = siblings_of(items)
    seen = 0
    for r in items:
        for kind, others in candidates(r, sibs):
            for sib in others or [None]:
                got = plan(r["id"], kind, sib)
                assert missing_values(got.instruction, [r["instruction"]]) == [], (r["id"], kind, sib)
                if sib is not None and got.instruction != r["instruction"]:
                    wrong = [s.value for s in settings(part(sib))]
                    said = got.instruction.casefold()
                    assert all(v.casefold() in said for v in wrong), (r["id"], sib, got.instruction)
                seen += 1
    assert seen > 500
