"""Requests as users write them (plandvc.chains.compose, .goals, .ask): the words over every task of the
committed world pool, the goal chains' answers by the site's query semantics, chain-specs' bytes, and the
checks shown failing on today's executor instructions."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from run_helpers import composed_twice, plandvc

from plandvc import io
from plandvc.chains.compose import (
    compose,
    delegation,
    grammar_problems,
    widget_problems,
    widget_words,
)
from plandvc.chains.goals import goal_chains, goal_of, site_answers
from plandvc.chains.items import site_specs
from plandvc.chains.make import ChainParams, make_chains
from plandvc.chains.recovery import assign_failures
from plandvc.chains.walk import chain_specs
from plandvc.macros import UI_ONLY_MACROS
from plandvc.memory.text import keeps, values
from plandvc.records import ItemRecord
from plandvc.sites.query import select_rows

ROOT = Path(__file__).resolve().parents[1]
THEN = re.compile(r"\. Then\b")


def v2_chains(items: list[ItemRecord], world: Path, n: int = 120) -> list[dict]:
    params = ChainParams(n=n, recovery_share=0.2, request="composed", goal_share=0.4)
    return make_chains(items, params, site_specs(world))  # type: ignore[return-value]


def test_every_pool_task_has_its_facts_and_a_delegation_naming_only_its_widget(
    world_items: list[ItemRecord],
) -> None:
    """Over every usable task of the committed pool: the delegation names no widget its control lacks, has no
    broken article, and keeps the task's values verbatim (names, numbers, dates, quoted values)."""
    assert len(world_items) > 2500 and all("ask" in r for r in world_items)
    problems = []
    for r in world_items:
        ask = r["ask"]
        said = delegation(ask)
        problems += widget_problems(said, ask.get("impl", "")) + grammar_problems(said)
        for v in ask.get("values", []) + ([ask["entry"]] if "entry" in ask else []):
            if not keeps(said, v):
                problems.append(f"{r['id']}: {v!r} not kept in {said!r}")
    assert problems == []


def test_the_checks_fail_on_todays_executor_instructions(world_items: list[ItemRecord]) -> None:
    """The same checks over the executor's own instructions find what the issue counted: sliders on min-max
    fields, sort forms on headers, checkboxes on chips and radios, "a issue" and "the my ..."."""
    widget = [r for r in world_items if widget_problems(r["instruction"], r["ask"].get("impl", ""))]
    grammar = [r for r in world_items if grammar_problems(r["instruction"])]
    assert len(widget) > 100 and len(grammar) > 100
    assert widget_problems("Set the Max stars slider to 2000.", "numbers") == [
        "'slider' on a control drawn as 'numbers'"
    ]
    assert widget_problems("Set the Max stars slider to 2000.", "range") == []
    assert grammar_problems("Add a issue with Title X.") and grammar_problems("Find the my submissions.")


def test_composed_requests_name_no_widget_and_are_not_joined_steps(
    world_items: list[ItemRecord], world0: Path
) -> None:
    chains = v2_chains(world_items, world0)
    by_id = {r["id"]: r for r in world_items}
    assert len(chains) == 120 and all(c["request_by"] == "composed" for c in chains)
    for c in chains:
        assert widget_words(c["request"]) == [], c["request"]
        assert not THEN.search(c["request"]) and not grammar_problems(c["request"]), c["request"]
        assert not any(by_id[p["id"]]["macro"] in UI_ONLY_MACROS for p in c["parts"])
        assert c["final"] != "The task is done."
        # every quoted value, date and entry name of the request is one of its parts' own values
        own = {v for p in c["parts"] for v in values(p["say"])}
        assert {v for v in values(c["request"]) if '"' + v + '"' in c["request"]} <= own | {
            by_id[p["id"]]["ask"].get("entry", "") for p in c["parts"]
        }
    asking = [c for c in chains if c["request"].rstrip().endswith("?") or "goal" in c]
    assert len(asking) >= 0.35 * len(chains)


def test_a_goal_answer_is_the_sites_own_query_over_every_constraint(
    world_items: list[ItemRecord], world0: Path
) -> None:
    specs = site_specs(world0)
    goals = goal_chains(world_items, site_answers(specs), 40, seed=0)
    assert len(goals) == 40 and {g["goal"]["kind"] for g in goals} == {"count", "top"}
    by_id = {r["id"]: r for r in world_items}
    for g in goals:
        parts = [by_id[p["id"]] for p in g["parts"]]
        spec = specs[g["site"]]
        page = spec.page(parts[0]["ask"]["page"])
        assert page is not None
        table = spec.table_of(page)
        pairs = [(k, v) for r in parts for k, v in r["ask"]["query"]]
        rows = select_rows(page, table, list(table.rows), pairs)
        if g["goal"]["kind"] == "count":
            assert g["goal"]["expected"] == str(len(rows)) and 0 < len(rows) < len(table.rows)
            # the answer depends on every constraint: each one alone leaves more rows (or as many)
            for r in parts:
                alone = select_rows(page, table, list(table.rows), [tuple(q) for q in r["ask"]["query"]])
                assert len(alone) >= len(rows)
        else:
            assert g["goal"]["expected"] == str(rows[0][table.label])
        assert all(p["via"] == ("page" if i else None) for i, p in enumerate(g["parts"]))


def test_a_tie_at_the_top_has_no_goal(world_items: list[ItemRecord], world0: Path) -> None:
    """Sorted on a column where the first two rows tie, the first entry is first by table order, not by the
    asked value: no `top` goal is made of it."""
    specs = site_specs(world0)
    sorts = [
        r for r in world_items if r["macro"] == "sort_by_form" and r["ask"].get("type") in ("number", "date")
    ]
    ties = made = 0
    for r in sorts:
        spec = specs[r["site"]]
        page = spec.page(r["ask"]["page"])
        assert page is not None
        table = spec.table_of(page)
        rows = select_rows(page, table, list(table.rows), [tuple(q) for q in r["ask"]["query"]])
        col = next(c.name for c in table.columns if c.label == r["ask"]["label"])
        tie = len(rows) > 1 and rows[0][col] == rows[1][col]
        goal = goal_of([r], spec, "top")
        assert (goal is None) == tie
        ties, made = ties + tie, made + (not tie)
    assert ties and made


def test_joined_requests_leave_the_chains_of_v1_as_they_were(world_items: list[ItemRecord]) -> None:
    """`request: joined`, `goal_share: 0`: the walk's chains and the recovery draw, key for key (v1)."""
    walked = assign_failures(chain_specs(world_items, 60, seed=0), world_items, 0.2, seed=0)
    assert make_chains(world_items, ChainParams(n=60, recovery_share=0.2)) == walked
    assert all("request" not in c and all("say" not in p for p in c["parts"]) for c in walked)


def test_words_are_a_function_of_the_parts_and_the_seed(world_items: list[ItemRecord]) -> None:
    asks = [r["ask"] for r in world_items[:3]]
    a = compose(asks, [None, "home", "home"], "plan-x-1", seed=0)
    assert a == compose(asks, [None, "home", "home"], "plan-x-1", seed=0)
    others = {compose(asks, [None, "home", "home"], f"plan-x-{i}", seed=0).request for i in range(20)}
    assert len(others) > 1  # the registers vary by chain


def test_chain_specs_writes_composed_chains_twice_byte_for_byte(
    tmp_path: Path, world_items: list[ItemRecord], world0: Path
) -> None:
    outs = composed_twice(tmp_path, world_items, world0, "--recovery-share", "0.2")
    assert outs[0] == outs[1] and b'"goal"' in outs[0] and b'"request_by":"composed"' in outs[0]


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (["--goal-share", "0.4"], "--goal-share: goal chains need --sites"),
        (["--goal-share", "0.4", "--sites", "."], "goal_share: goal chains need composed requests"),
        (["--request", "typed"], "Invalid value for '--request'"),
    ],
)
def test_bad_chain_options_get_one_line(
    tmp_path: Path, world_items: list[ItemRecord], args: list[str], line: str
) -> None:
    items = tmp_path / "items.jsonl"
    io.write_jsonl(items, world_items[:50])
    p = plandvc("chain-specs", "--items", items, "--out", tmp_path / "c.jsonl", *args)
    assert p.returncode != 0 and line in p.stderr and not (tmp_path / "c.jsonl").exists()
