"""Trac as a held-out domain: its tasks as walk records with composer facts, chains walked and run by the
scripted planner on a fresh tracd each (every part gated on Trac's database), and the reference planners
evaluated on them through the evaluation's own code paths (docs/APPS.md, "Held out in eval: Trac")."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from plandvc.apps import REGISTRY
from plandvc.apps.trac import adapter as trac
from plandvc.apps.trac import tasks as trac_tasks
from plandvc.apps.trac.facts import trac_ask
from plandvc.chains.compose import compose, delegation
from plandvc.records import ChainGoal, ChainSpec, Part, Via


def test_every_trac_task_has_facts_the_composer_words() -> None:
    tpl = trac.template()
    summaries = {int(str(t["id"])): str(t["summary"]) for t in trac.tickets(tpl)}
    tasks = trac_tasks.MACROS.tasks(trac_tasks.offer(tpl), 0, 2)
    assert {t["macro"] for t in tasks} == set(trac_tasks.MACROS.names())
    for task in tasks:
        ask = trac_ask(task, summaries)
        assert ask["site"] == "Trac" and ask["singular"] == "ticket"
        said = delegation(ask)
        for v in ask.get("values", []):
            assert v in said, (task["task_id"], said)
        if "id" in task["target"]:
            assert summaries[int(task["target"]["id"])] in said
    edit = next(t for t in tasks if t["macro"] == "edit_entry")
    words = compose([trac_ask(edit, summaries)], [None], "k")
    assert str(edit["target"]["value"]) in words.request


@pytest.fixture(scope="module")
def pool(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from plandvc.apps.record import record_pool

    out = tmp_path_factory.mktemp("trac") / "pool"
    macros = ["filter_by_dropdown", "sort_by_form", "filter_by_options", "count_entries", "create_entry"]
    macros += ["search_by_text"]
    record_pool(REGISTRY["trac"], out, 0, 40, 2, macros)
    return out


@pytest.mark.slow
@pytest.mark.timeout(1200)  # a recording, two walks and runs, two evaluations: ~7 min loaded
def test_held_out_trac_chains_run_gated_and_the_oracle_scores_one(pool: Path, tmp_path: Path) -> None:
    from plandvc.eval.apps import AppSpecsConfig, app_specs
    from plandvc.eval.apps_run import AppEvalConfig, eval_apps
    from plandvc.eval.specs import load_held_out
    from plandvc.io import tree_hash

    specs = tmp_path / "specs"
    summary = app_specs(AppSpecsConfig("trac", pool, specs, n=4))
    assert summary["chains"] == 4 and summary["held_out"] == 4, summary
    again = app_specs(AppSpecsConfig("trac", pool, tmp_path / "again", n=4))
    assert again == summary and tree_hash(specs) == tree_hash(tmp_path / "again")  # the rows' images too
    chains = load_held_out(specs)
    assert all(c.line["site"] == "trac" and c.line["request"] for c in chains)
    # a served planner (the oracle behind an OpenAI-compatible server of its own, as a user's model would be)
    # beside a reference; the metrics file for dvc is OUT/metrics.json's copy
    from plandvc.eval.reference import PlannerServer, reference_planner

    with PlannerServer(reference_planner("oracle", chains, 0), "my-model") as served:
        cfg = AppEvalConfig(
            specs, pool, tmp_path / "eval", ["always-done"], planner_url=served.url, planner_model="my-model",
            name="mine", metrics=tmp_path / "eval-apps-trac.json",
        )  # fmt: skip
        metrics = eval_apps(cfg)
    assert metrics["mine"]["planner"] == "mine:my-model"
    assert metrics["mine"]["teacher_forced"]["step_accuracy"] == 1.0
    assert metrics["mine"]["closed_loop"]["success"] == 4
    assert metrics["always-done"]["closed_loop"]["success"] == 0
    assert (tmp_path / "eval-apps-trac.json").read_bytes() == (
        tmp_path / "eval" / "metrics.json"
    ).read_bytes()


async def run_on_trac(spec: ChainSpec, parts: list[Part]) -> tuple[bool, str]:
    """One chain by run-chains' scripted run on a fresh tracd: ok, and its gates' detail (or its error)."""
    from plandvc.browser import Browser
    from plandvc.eval.apps import AppSession, site_info
    from plandvc.run.chain import RunParams, run_chain

    async with Browser() as browser:
        with trac.serve() as s:
            session = await browser.new_session(s.base)
            try:
                out = await run_chain(
                    spec, parts, AppSession(session, s.state), site_info(REGISTRY["trac"]), RunParams(), None
                )
            finally:
                await session.close()
    return out.result["ok"], str(out.result.get("detail") or out.result.get("error"))


def trac_chain(pool: Path, key: str, *parts: tuple[str, Via], goal: ChainGoal | None = None) -> ChainSpec:
    """A composed Trac chain of these recorded parts (and a goal), as the held-out walk makes them."""
    from plandvc.chains.compose import compose_chains
    from plandvc.eval.apps import app_items

    spec: ChainSpec = {"key": key, "site": "trac", "parts": [{"id": i, "via": v} for i, v in parts]}
    if goal is not None:
        spec["goal"] = goal
    return compose_chains([spec], app_items(REGISTRY["trac"], pool, 0, 40))[0]


def recorded(pool: Path, macro: str) -> list[str]:
    return sorted(p.name for p in (pool / "runs" / "trac" / "accepted").iterdir() if macro in p.name)


@pytest.mark.slow
def test_a_chain_replaying_a_wrong_value_fails_its_gate_on_trac(pool: Path) -> None:
    """A chain with a trip home (to Trac's start page) passes every gate; then the first part's specialist
    replays its sibling's trajectory (another component): the chain runs to its end, and that part's gate,
    read on the live session, fails."""
    from plandvc.eval.apps import app_pool

    store = app_pool(pool, REGISTRY["trac"])
    filters = recorded(pool, "filter_by_dropdown")
    sort, create, search = (recorded(pool, m)[0] for m in ("sort_by_form", "create_entry", "search_by_text"))
    run = run_on_trac

    def chain(key: str, *parts: tuple[str, Via]) -> ChainSpec:
        return trac_chain(pool, key, *parts)

    home = chain("plan-trac-home", (create, None), (search, "home"))
    ok, detail = asyncio.run(run(home, [store.part(create), store.part(search)]))
    assert ok and "entry_created" in detail, detail
    listed = chain("plan-trac-test", (filters[0], None), (sort, "page"))
    right, wrong = store.part(filters[0]), store.part(filters[1])
    ok, detail = asyncio.run(run(listed, [right, store.part(sort)]))
    assert ok, detail
    swapped: Part = {**right, "traj": wrong["traj"], "elements": wrong["elements"]}
    ok, detail = asyncio.run(run(listed, [swapped, store.part(sort)]))
    assert not ok and "query: on /query expected" in detail, detail


@pytest.mark.slow
def test_goal_chains_on_trac_read_the_answer_live_and_a_wrong_expected_answer_fails(pool: Path) -> None:
    """Goal chains on Trac (constraints on the query page, then a question on the list they leave): the
    answers Trac's database gives are read live off its page (the count's "(N matches)", the first summary
    after the Ticket sort) and pass; the same chains expecting another answer fail on "answer"."""
    from plandvc.apps.trac.facts import goal_answer
    from plandvc.eval.apps import app_items, app_pool

    store = app_pool(pool, REGISTRY["trac"])
    items = {r["id"]: r for r in app_items(REGISTRY["trac"], pool, 0, 40)}
    answer = goal_answer(trac.tickets(trac.template()))
    component, status = recorded(pool, "filter_by_dropdown")[0], recorded(pool, "filter_by_options")[0]
    sort = next(i for i in recorded(pool, "sort_by_form") if items[i]["ask"]["query"] == [["order", "id"]])
    for parts, kind in (([component, status], "count"), ([component, sort], "top")):
        goal = answer([items[i] for i in parts], kind)
        assert goal is not None and goal["kind"] == kind, (parts, kind)
        vias: list[Via] = [None, "page"]
        spec = trac_chain(pool, f"plan-trac-goal-{kind}", *zip(parts, vias, strict=True), goal=goal)
        assert spec["goal"]["say"] and "ticket" in spec["request"], spec["request"]  # a question, composed
        ok, detail = asyncio.run(run_on_trac(spec, [store.part(i) for i in parts]))
        assert ok and "answer" in detail, (kind, detail)
        wrong: ChainGoal = {**goal, "expected": "12345" if kind == "count" else "No such ticket"}
        spec = trac_chain(pool, f"plan-trac-goal-{kind}-wrong", *zip(parts, vias, strict=True), goal=wrong)
        ok, detail = asyncio.run(run_on_trac(spec, [store.part(i) for i in parts]))
        assert not ok and "answer" in detail, (kind, detail)
