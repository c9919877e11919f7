"""The memory model's pure rules: the values a merge must keep, the cleaning of replies, the joined request."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from plandvc.memory import FINAL_ASK, MERGE_ASK, fallback_final, joined, plain, values
from plandvc.memory.text import final_prompt, keeps, length_bound, merge_prompt, missing_values
from plandvc.pool.tasks import generate
from plandvc.sites.spec import load_sites
from plandvc.world.make import make_world

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = 'Show only the orders whose Status is "Shipped".'
TOTAL = "Set Max total to 120 and apply it."
PLACED = "Show the orders placed from 2026-02-01 to 2026-02-28."
ADA = "Open the order of Ada Byrne from the list."


# ── values ──


def test_values_quoted_strings_numbers_dates_and_names() -> None:
    assert values(SHIPPED) == {"Shipped", "Status"}
    assert values(TOTAL) == {"Max", "120"}
    assert {"2026-02-01", "2026-02-28"} <= values(PLACED)
    assert values(ADA) == {"Ada Byrne"}
    assert values("Sort the loans by Due date, March 3, 2026 first.") >= {"Due", "March 3, 2026"}
    assert values("Find totals of 1,200 or 3.5 at 10:30.") >= {"1,200", "3.5", "10:30"}
    assert values("Copy the code ‘x’ of “Blue Harbor” and 'Red Rock'.") >= {"Blue Harbor", "Red Rock"}


def test_a_sentence_first_word_is_no_name_but_a_later_one_is() -> None:
    assert "Show" not in values(SHIPPED)
    assert "Open" not in values(ADA)
    assert "Then" not in values("Filter it. Then sort it.")
    assert values("Then open Northwind Shop's home page.") == {"Northwind Shop"}  # possessive trimmed
    assert values("Ada Byrne placed it.") == {"Byrne"}  # a name that starts the sentence keeps its rest


def test_names_of_any_script_are_whole_values() -> None:
    """A capitalised name with letters outside ASCII is one value, not its ASCII prefix ("Bj" of "Björn")."""
    assert values('What is the Term of the enrolment "Björn Silva"?') == {"Term", "Björn Silva"}
    assert values("Then open Müller and Ærø Straße for Zoë.") == {"Müller", "Ærø Straße", "Zoë"}
    assert values("Then ask Élodie Åberg.") == {"Élodie Åberg"}
    assert missing_values("Open Bjorn Silva.", ["Open Björn Silva."]) == ["Björn Silva"]


def test_every_pool_instruction_keeps_its_own_values() -> None:
    """A text always passes the check against itself: over every task of the default pool (646 instructions;
    six named "Björn" failed it when a name was read as ASCII only)."""
    tasks = sorted((ROOT / "data" / "pool" / "runs").rglob("task.json"))
    assert len(tasks) > 600
    own = [t for t in tasks if missing_values(i := json.loads(t.read_text())["instruction"], [i])]
    assert own == []


def test_every_world_instruction_keeps_its_own_values(tmp_path: Path) -> None:
    """The same over every task the generated world makes (its pool's tasks, no browser): option labels such
    as "1K-10K" or "<1K" hold digits that are no number of their own ("1" of "1K"), so the held-out turns of
    the world scored the oracle's own targets as leaving values out before numbers ended at a word's end."""
    make_world(tmp_path / "world", seed=0)
    specs = load_sites(tmp_path / "world")
    tasks = generate(specs, seed=0, per_macro=50)
    assert len(tasks) > 10_000
    own = [t["instruction"] for t in tasks if missing_values(t["instruction"], [t["instruction"]])]
    assert own == []
    assert values('Filter the datasets to Size "1K-10K" or "<1K".') == {"Size", "1K-10K", "<1K"}


def test_keeps_a_value_only_whole_and_exact() -> None:
    assert keeps("limit 120.", "120")
    assert not keeps("limit 1200", "120")  # a changed number
    assert not keeps("limit 12,120", "120")
    assert not keeps("limit 120.5", "120")
    assert not keeps("status shipped", "Shipped")  # case is part of the value
    assert not keeps("Shippedness", "Shipped")
    assert keeps('whose Status is "Shipped", then', "Shipped")


def test_missing_values_catches_each_kind_of_loss() -> None:
    parts = [SHIPPED, TOTAL, PLACED, ADA]
    good = (
        'Show only the orders whose Status is "Shipped", set Max total to 120, show the ones placed from '
        "2026-02-01 to 2026-02-28 and open the order of Ada Byrne."
    )
    assert missing_values(good, parts) == []
    assert missing_values(good.replace('"Shipped"', '"Pending"'), parts) == ["Shipped"]
    assert missing_values(good.replace("120", "150"), parts) == ["120"]
    assert missing_values(good.replace("2026-02-28", "2026-03-01"), parts) == ["2026-02-28"]
    assert missing_values(good.replace("Ada Byrne", "Ada"), parts) == ["Ada Byrne"]
    assert missing_values(good.replace("Max total", "the total"), parts) == ["Max"]


# ── plain ──

DONE_OBJECT = (
    '{"memory": "All done.", "action": [{"done": {"text": "I found 7 shipped orders.", "success": true}}]}'
)


@pytest.mark.parametrize(
    ("reply", "key", "want"),
    [
        ("I found 7 shipped orders.", "final", "I found 7 shipped orders."),
        ("```\nI found 7 shipped orders.\n```", "final", "I found 7 shipped orders."),
        ("```json\n" + DONE_OBJECT + "\n```", "final", "I found 7 shipped orders."),
        (DONE_OBJECT, "final", "I found 7 shipped orders."),
        (DONE_OBJECT, "memory", "All done."),
        ('{"final_message": "There are 7."}', "final", "There are 7."),
        ('{"done": {"text": "There are 7.", "success": true}}', "final", "There are 7."),
        ('Here it is: {"request": "Filter, then sort."}', "request", "Filter, then sort."),
        ('{"memory": "x", "action": [{"delegate": {"family": "Filter"}}]}', "final", ""),
        ('"I found 7 shipped orders."', "final", "I found 7 shipped orders."),
        ('Set Status to "Shipped"', "request", 'Set Status to "Shipped"'),  # a value's quote stays
        ("Assistant: I found 7.", "final", "I found 7."),
        ("Final message: I found 7.", "final", "I found 7."),
        ("I found 7.<|im_end|>\n<|im_start|>user\nWhat next?", "final", "I found 7."),
        ("I found 7.\nUser: thanks\nAssistant: welcome", "final", "I found 7."),
        ("<think>The user wants 7.</think>\nI found 7.", "final", "I found 7."),
        ("<think>never closed, all reasoning", "final", ""),
        ("I found 7. Reply with plain text only, not JSON.", "final", "I found 7."),
        ("The set {a, b} has 2 items.", "final", "The set {a, b} has 2 items."),  # braces, no object
        ("  I found\n 7   orders. ", "final", "I found 7 orders."),
        (None, "final", ""),
    ],
)
def test_plain_cleans_what_base_models_answer(reply: str | None, key: str, want: str) -> None:
    assert plain(reply, key) == want


def test_plain_keeps_text_it_has_no_reason_to_touch() -> None:
    text = "I sorted the orders by Placed; Ada Byrne's order 1001 is first, with a total of 120."
    assert plain(text, "final") == text
    assert plain(text, "request") == text


# ── joined, fallback, prompts ──


def test_joined_is_the_seed_then_join() -> None:
    assert joined(["Show the shipped orders.", "sort them by date"]) == (
        "Show the shipped orders. Then sort them by date."
    )
    assert joined(["Filter it..", "How many are shown?"]) == "Filter it. Then how many are shown?"
    assert joined(["Sort it.", "Open ORD-1042.", "ORD-1042 is next.", "Ada Byrne's order."]) == (
        "Sort it. Then open ORD-1042. Then ORD-1042 is next. Then Ada Byrne's order."
    )
    assert joined([" ", "Only one."]) == "Only one."
    assert joined([]) == ""


def test_fallback_final() -> None:
    assert fallback_final("7") == "7"
    assert fallback_final(0) == "0"
    assert fallback_final(None) == "The task is done."
    assert fallback_final("  ") == "The task is done."


def test_length_bound_is_the_seeds() -> None:
    assert length_bound(["abc", "de"]) == 5 + 160


def test_prompts_are_the_seeds() -> None:
    assert merge_prompt(["A.", " B. "]) == MERGE_ASK.format(items="1. A.\n2. B.")
    assert final_prompt("7") == FINAL_ASK.format(answer=", including the answer 7 verbatim")
    assert final_prompt(None) == FINAL_ASK.format(answer="")
    assert "what was done. Reply" in final_prompt(None)
