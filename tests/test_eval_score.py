"""The evaluation's pure rules: scoring a reply against its turn, the reference planners' replies, the metrics.
Each rule is shown to pass what it should and to fail what it should."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from plandvc.eval.metrics import teacher_metrics
from plandvc.eval.reference import RandomFamily, always_done, request_and_turn
from plandvc.eval.score import delegation_problems, score_reply
from plandvc.eval.specs import HeldOut, SpecLine, Turn
from plandvc.eval.teacher import TurnReply

FILTER = Turn(
    "delegate", "Filter", 'Show only the courses whose Department is "Physics".', "filter_by_dropdown"
)
LIMIT = Turn("delegate", "Filter", "Limit the courses to a Max credits of 12.", "filter_by_slider")
DONE = Turn("done", None, None, None)


def chain(answer: object = None, turns: tuple[Turn, ...] = (FILTER, LIMIT, DONE)) -> HeldOut:
    line: SpecLine = {
        "key": "plan-school-x",
        "site": "school",
        "parts": ["a", "b"],
        "via": [None, "page"],
        "request": "req",
        "answer": answer,
        "turns": [vars(t) for t in turns],  # the turns as written (the chain holds them read)
    }
    return HeldOut(line, list(turns), Path("x"))


def delegate(family: str, instruction: str, memory: str = "m") -> str:
    return json.dumps(
        {"memory": memory, "action": [{"delegate": {"family": family, "instruction": instruction}}]}
    )


def done(text: str, success: bool = True) -> str:
    return json.dumps({"memory": "", "action": [{"done": {"text": text, "success": success}}]})


def test_a_right_delegation_in_other_words_is_correct() -> None:
    s = score_reply(delegate("Filter", 'Filter the courses to Department "Physics" only'), FILTER, chain())
    assert (s.valid, s.kind, s.family, s.values, s.correct) == (True, True, True, True, True)


def test_wrong_family_and_dropped_value_fail() -> None:
    s = score_reply(delegate("Navigation", 'Department "Physics"'), FILTER, chain())
    assert s.valid and s.kind and not s.family and s.values and not s.correct
    s = score_reply(delegate("Filter", "Filter the courses by department"), FILTER, chain())
    assert s.family and not s.values and not s.correct
    assert any("Physics" in p for p in s.problems)
    # a number is kept only whole: 120 does not keep 12
    assert not score_reply(delegate("Filter", "Max credits 120"), LIMIT, chain()).correct
    assert score_reply(delegate("Filter", "Max credits 12"), LIMIT, chain()).correct


def test_a_delegation_carrying_another_parts_values_is_wrong_strictly_right_leniently() -> None:
    s = score_reply(delegate("Filter", 'Department "Physics", then Max credits 12'), FILTER, chain())
    assert s.lenient and not s.correct and s.extra == ["12", "Max"]
    assert s.problems == ["instruction carries other parts' '12', 'Max'"]
    # the whole request as one delegation, at either of its turns
    whole = f"{FILTER.instruction} Then limit the courses to a Max credits of 12."
    for turn in (FILTER, LIMIT):
        s = score_reply(delegate("Filter", whole), turn, chain())
        assert (s.family, s.values, s.lenient, s.correct) == (True, True, True, False)
    # the part's own words are right in both, and so is a value two parts share (it is the turn's own too)
    for turn in (FILTER, LIMIT):
        s = score_reply(delegate("Filter", turn.instruction or ""), turn, chain())
        assert s.correct and s.lenient and s.extra == []
    shared = Turn("delegate", "Filter", 'Sort the courses by "Physics" first.', "sort_by_form")
    s = score_reply(
        delegate("Filter", 'Sort by "Physics" first'), shared, chain(turns=(FILTER, shared, DONE))
    )
    assert s.correct and s.extra == []
    # a word that starts the turn's own sentence is its own, though it is a name (a value) in the other's
    own = Turn("delegate", "Filter", "Max credits of 12 only, please.", "filter_by_slider")
    s = score_reply(delegate("Filter", "Set Max credits to 12"), own, chain(turns=(own, LIMIT, DONE)))
    assert s.correct and s.extra == []


def test_garbage_is_invalid_never_an_exception() -> None:
    for text in (None, "", "Filter please", "{", '{"memory": "x"}', "[1, 2]", delegate("Sales", "x")):
        s = score_reply(text, FILTER, chain())
        assert not s.valid and not s.correct and s.problems


def test_done_rules() -> None:
    plain = chain()
    assert score_reply(done("All done."), DONE, plain).correct
    assert not score_reply(done("All done.", success=False), DONE, plain).correct
    s = score_reply(delegate("Filter", "x"), DONE, plain)
    assert s.valid and not s.kind and not s.correct
    asks = chain(answer="Ada Byrne")
    assert not score_reply(done("The task is done."), DONE, asks).correct
    assert score_reply(done("The teacher is ada byrne."), DONE, asks).correct
    asks12 = chain(answer=12)
    assert not score_reply(done("There are 120 courses."), DONE, asks12).correct
    assert score_reply(done("There are 12 courses."), DONE, asks12).correct
    assert not score_reply(done("x"), FILTER, plain).kind


def test_delegation_problems_name_what_is_wrong() -> None:
    assert delegation_problems("Filter", 'the Department "Physics" ones', FILTER) == []
    assert delegation_problems("Form", "Department Physics", FILTER) == ["family Form is not Filter"]
    assert delegation_problems("Filter", "Department physics", FILTER) == ["instruction leaves out 'Physics'"]


def planner_turn(request: str, step: int, feedback: bool = False) -> list[dict]:
    text = f"<user_request>\n{request}\n</user_request>\n<agent_history>\nNo steps yet.\n</agent_history>\n<step_info>\nStep {step} of 25\nToday: x\n</step_info>"
    msgs = [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": [{"type": "text", "text": text}]},
    ]
    if feedback:
        msgs += [
            {"role": "assistant", "content": "bad"},
            {"role": "user", "content": "Your last reply was not valid"},
        ]
    return msgs


def test_reference_planners_read_the_turn() -> None:
    assert request_and_turn(planner_turn("Do A. Then B.", 3)) == ("Do A. Then B.", 2)
    assert request_and_turn(planner_turn("Do A.", 1, feedback=True)) == ("Do A.", 0)
    with pytest.raises(ValueError):
        request_and_turn([{"role": "user", "content": "hello"}])
    assert json.loads(always_done(planner_turn("x", 1)))["action"][0]["done"]["success"] is True
    rf = RandomFamily(0)
    picks = [rf(planner_turn(f"Request {i}.", 1 + i % 3)) for i in range(60)]
    assert picks == [RandomFamily(0)(planner_turn(f"Request {i}.", 1 + i % 3)) for i in range(60)]
    assert picks != [RandomFamily(1)(planner_turn(f"Request {i}.", 1 + i % 3)) for i in range(60)]
    kinds = {next(iter(json.loads(p)["action"][0].values())).get("family", "done") for p in picks}
    assert kinds == {"Navigation", "Filter", "Form", "Information", "done"}


def test_teacher_metrics_count_by_group() -> None:
    c = chain()
    replies = [
        TurnReply(
            c, 0, FILTER, "r", None, score_reply(delegate("Filter", 'Department "Physics"'), FILTER, c)
        ),
        TurnReply(c, 1, LIMIT, "r", None, score_reply("garbage", LIMIT, c)),
        TurnReply(c, 2, DONE, "r", None, score_reply(done("ok"), DONE, c)),
    ]
    m = teacher_metrics(replies)
    assert (m["turns"], m["correct"], m["step_accuracy"], m["invalid_replies"]) == (3, 2, 0.6667, 1)
    assert (m["correct_lenient"], m["step_accuracy_lenient"]) == (2, 0.6667)
    assert m["by_family"] == {
        "Filter": {"turns": 2, "correct": 1, "accuracy": 0.5},
        "done": {"turns": 1, "correct": 1, "accuracy": 1.0},
    }
    assert list(m["by_turn"]) == ["0", "1", "2"]
    assert m["by_macro"]["filter_by_slider"]["correct"] == 0
    # the first turn delegated with the second's value too: right only by the lenient rule
    whole = delegate("Filter", 'Department "Physics", then Max credits 12')
    replies[0] = TurnReply(c, 0, FILTER, "r", None, score_reply(whole, FILTER, c))
    m = teacher_metrics(replies)
    assert (m["correct"], m["step_accuracy"], m["correct_lenient"], m["step_accuracy_lenient"]) == (
        1,
        0.3333,
        2,
        0.6667,
    )


def test_a_recovery_turn_needs_the_right_value_not_the_wrong_one(tmp_path: Path) -> None:
    """An after_failure turn (as load_held_out reads it: its task is the failed turn's instruction) is right
    when the delegation keeps the task's values: the corrective's wrong value need not be repeated, and a
    delegation that names only the wrong value, or leaves out the right one, is wrong."""
    from plandvc.eval.specs import load_held_out

    line = {
        "key": "plan-school-r",
        "site": "school",
        "parts": ["a"],
        "via": [None],
        "request": FILTER.instruction,
        "answer": None,
        "failure": {"part": 0, "kind": "wrong_value", "sibling": "b"},
        "turns": [
            {**FILTER.__dict__, "role": "normal", "fails": "wrong_value"},
            {
                **FILTER.__dict__,
                "role": "after_failure",
                "instruction": 'The Department filter shows "Chemistry"; set it to "Physics".',
            },
            {"kind": "done", "family": None, "instruction": None, "macro": None, "role": "normal"},
        ],
    }
    (tmp_path / "specs.jsonl").write_text(json.dumps(line) + "\n")
    held = load_held_out(tmp_path)[0]
    redo = held.turns[1]
    assert redo.task == FILTER.instruction and held.turns[0].task is None
    assert score_reply(delegate("Filter", 'Set the Department filter to "Physics".'), redo, held).correct
    said = 'The Department filter shows "Chemistry"; set it to "Physics".'
    assert score_reply(delegate("Filter", said), redo, held).correct  # the oracle's own words
    wrong = score_reply(delegate("Filter", 'Set the Department filter to "Chemistry".'), redo, held)
    assert not wrong.correct and wrong.problems == ["instruction leaves out 'Physics'"]
    assert delegation_problems("Filter", said, FILTER, held) == []  # "Chemistry" is the chain's own
    # off the chain, "Chemistry" is a value the turn never names
    assert delegation_problems("Filter", said, FILTER) == ["meaning: names another value 'Chemistry'"]


def test_sentences_split_a_request_in_either_voice() -> None:
    from plandvc.eval.reference import sentences

    v1 = 'Show only the courses whose Department is "Physics". Then sort them by "Credits". Then how many are there?'
    assert sentences(v1) == [
        'Show only the courses whose Department is "Physics".',
        'Then sort them by "Credits".',
        "Then how many are there?",
    ]
    voice = "I'm looking for gluten-free recipes under 450 kcal, best rated first. How many are there?"
    assert sentences(voice) == [
        "I'm looking for gluten-free recipes under 450 kcal, best rated first.",
        "How many are there?",
    ]
    # no break inside a quoted value, after an abbreviation or a number's point, or before a lower-case word
    kept = [
        'Add a note with Text "Call back. Ask for Dr. Byrne." and Status "Open".',
        "Ask Dr. Ada Byrne about the 4.5 rating e.g. the best one.",
        "Show only bookings from Jan. 5 on.",
        "Rate it 4. then stop.",
    ]
    for text in kept:
        assert sentences(text) == [text]
    assert sentences("Open the Letters page.\nHow many letters are there") == [
        "Open the Letters page.",
        "How many letters are there",
    ]
    assert sentences("Answer no. Then open it.") == ["Answer no.", "Then open it."]
    assert sentences("") == []


def test_copy_guesses_the_family_from_the_words() -> None:
    from plandvc.eval.reference import delegated, family_of

    cases = {
        'Show only the products whose Category is "Office".': "Filter",
        'Sort the datasets by "Published" in ascending order.': "Filter",
        'Use the search to look for "Moussaka" among the recipes.': "Filter",
        "I'm looking for gluten-free recipes under 450 kcal, best rated first.": "Filter",
        'Add a query with Input "x", Category "Places".': "Form",
        'Edit the order "Emma Hoffmann" and set its Items to "11".': "Form",
        'Delete the letter "Gustav Duarte".': "Form",
        'How many recipes have Diet "Vegetarian"?': "Information",
        'Tell me the Comments of the issue "Flaky test".': "Information",
        "How many are there?": "Information",
        'Go to the details of the hotel "Maison Juniper Palace".': "Navigation",
        'Open the "Search tips" page of the site.': "Navigation",  # a quoted value's words are not read
        'Open the letter "Sofia Park".': "Navigation",
        "Are they all here?": "Information",  # no keyword: a question asks for information
    }
    assert {s: family_of(s) for s in cases} == cases
    assert delegated("Then sort them by rating.") == "Sort them by rating."
    assert delegated("After that, open the first one.") == "Open the first one."
    assert delegated("Theodor's order: open it.") == "Theodor's order: open it."


def test_copy_delegates_sentence_k_at_turn_k_then_done() -> None:
    from plandvc.eval.reference import copy_planner

    request = 'Show only the courses whose Department is "Physics". Then how many courses are there?'

    def action(step: int) -> dict:
        return json.loads(copy_planner(planner_turn(request, step)))["action"][0]

    assert action(1) == {
        "delegate": {
            "family": "Filter",
            "instruction": 'Show only the courses whose Department is "Physics".',
        }
    }
    assert action(2) == {"delegate": {"family": "Information", "instruction": "How many courses are there?"}}
    assert action(3) == action(9) == {"done": {"text": "How many courses are there?", "success": True}}
    plain = json.loads(copy_planner(planner_turn("Open the Letters page.", 2)))["action"][0]
    assert plain == {"done": {"text": "The task is done.", "success": True}}
    assert copy_planner(planner_turn(request, 2)) == copy_planner(planner_turn(request, 2, feedback=True))


SORT = Turn("delegate", "Filter", 'Sort the issues by "Opened", newest first.', "sort_by_form")
SLIDER = Turn("delegate", "Filter", "Set the Max stars slider to 2000.", "filter_by_slider")
RANGE = Turn(
    "delegate", "Filter", 'Set Opened from "2024-01-01" to "2024-03-31" and apply it.', "filter_by_date_range"
)
OPEN = Turn("delegate", "Navigation", 'Open the repository "rust-ml".', "open_entry")
DROPDOWN = Turn(
    "delegate",
    "Filter",
    'Choose "Python" in the Language dropdown of the repositories.',
    "filter_by_dropdown",
)


@pytest.mark.parametrize(
    ("turn", "right", "wrong", "why"),
    [
        (SORT, 'Sort by "Opened" with the most recent on top', 'Sort the issues by "Opened", oldest first.',
         "meaning: sorts asc where the turn sorts desc"),
        (SORT, 'Order issues by "Opened" descending', 'Sort the issues by "Opened".',
         "meaning: sorts no direction where the turn sorts desc"),
        (SLIDER, "Show repositories with Max stars of at most 2000", "Show repositories with at least 2000 Max stars",
         "meaning: bound max and min where the turn's is max"),
        (RANGE, 'Only issues Opened between "2024-01-01" and "2024-03-31"',
         'Only issues Opened after "2024-01-01", not "2024-03-31"', "meaning: bound min where the turn's is between"),
        (OPEN, 'Go to the "rust-ml" repository', 'Open "rust-ml", next to "rust-ai"',
         "meaning: names another entry 'rust-ai'"),
        (DROPDOWN, 'Pick "Python" in the Language dropdown', 'Set the Language slider to "Python"',
         "meaning: names the slider where the turn's control is a dropdown"),
    ],
)  # fmt: skip
def test_a_step_is_right_only_when_it_means_what_the_turn_means(
    turn: Turn, right: str, wrong: str, why: str
) -> None:
    """A flipped direction, a missing one, a flipped bound, a range said as one side, another entry, another
    widget: each keeps the turn's values and is still wrong (strictly and leniently); the same step in other
    words is right."""
    c = chain(turns=(turn, DONE))
    family = turn.family or ""
    ok = score_reply(delegate(family, right), turn, c)
    assert ok.correct and ok.meaning, ok.problems
    bad = score_reply(delegate(family, wrong), turn, c)
    assert bad.values and bad.family and not bad.meaning and not bad.correct and not bad.lenient
    assert bad.problems == [why]
    assert score_reply(delegate(family, turn.instruction or ""), turn, c).correct  # the oracle's own words


def test_direction_and_bound_words() -> None:
    from plandvc.eval.score import bounds, directions

    assert directions('Sort the models by "Published" in ascending order.') == {"asc"}
    assert directions('Use the sort form to sort the words by "Most used" (descending).') == {"desc"}
    assert directions("Sort the recipes by rating, highest first") == {"desc"}
    assert directions("Sort by title, A to Z") == {"asc"}
    assert directions("Sort by price, highest first, then lowest") == {"asc", "desc"}
    assert bounds("Use the Max weeks slider to limit the courses to 10 at most.", "filter_by_slider") == {
        "max"
    }
    assert bounds("Enter 4 as the lowest Rating and apply it.", "filter_by_slider") == {"min"}
    assert bounds('Filter the issues to a Opened between "a" and "b".', "filter_by_date_range") == {"between"}
    assert bounds('Issues opened after "a" and before "b".', "filter_by_date_range") == {"between"}
