"""Trac as a held-out domain: its tasks as walk records with composer facts, chains walked and run by the
scripted planner on a fresh tracd each (every part gated on Trac's database), and the reference planners
evaluated on them through the evaluation's own code paths (docs/APPS.md, "Held out in eval: Trac")."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from plandvc.apps import REGISTRY, trac, trac_tasks
from plandvc.apps.trac_facts import trac_ask
from plandvc.chains.compose import compose, delegation


def test_every_trac_task_has_facts_the_composer_words() -> None:
    tpl = trac.template()
    summaries = {int(str(t["id"])): str(t["summary"]) for t in trac.tickets(tpl)}
    tasks = trac_tasks.tasks(trac_tasks.offer(tpl), 0, 2)
    assert {t["macro"] for t in tasks} == set(trac_tasks.MACROS)
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
    metrics = eval_apps(AppEvalConfig(specs, pool, tmp_path / "eval", ["oracle", "always-done"]))
    assert metrics["oracle"]["teacher_forced"]["step_accuracy"] == 1.0
    assert metrics["oracle"]["closed_loop"]["success"] == 4
    assert metrics["always-done"]["closed_loop"]["success"] == 0


@pytest.mark.slow
def test_a_chain_replaying_a_wrong_value_fails_its_gate_on_trac(pool: Path) -> None:
    """A chain with a trip home (to Trac's start page) passes every gate; then the first part's specialist
    replays its sibling's trajectory (another component): the chain runs to its end, and that part's gate,
    read on the live session, fails."""
    from plandvc.browser import Browser
    from plandvc.chains.compose import compose_chains
    from plandvc.eval.apps import AppSession, app_items, app_part, site_info
    from plandvc.records import ChainSpec, Part, Via
    from plandvc.run.chain import RunParams, run_chain

    ids = sorted(p.name for p in (pool / "runs" / "trac" / "accepted").iterdir())
    filters = [i for i in ids if "filter_by_dropdown" in i]
    sort = next(i for i in ids if "sort_by_form" in i)
    create = next(i for i in ids if "create_entry" in i)
    search = next(i for i in ids if "search_by_text" in i)
    app = REGISTRY["trac"]
    items = app_items(app, pool, 0, 40)

    def chain(key: str, *parts: tuple[str, Via]) -> ChainSpec:
        spec: ChainSpec = {"key": key, "site": "trac", "parts": [{"id": i, "via": v} for i, v in parts]}
        return compose_chains([spec], items)[0]

    async def run(spec: ChainSpec, parts: list[Part]) -> tuple[bool, str]:
        async with Browser() as browser:
            with trac.serve() as s:
                session = await browser.new_session(s.base)
                try:
                    out = await run_chain(
                        spec, parts, AppSession(session, s.state), site_info(app), RunParams(), None
                    )
                finally:
                    await session.close()
        return out.result["ok"], str(out.result.get("detail") or out.result.get("error"))

    home = chain("plan-trac-home", (create, None), (search, "home"))
    ok, detail = asyncio.run(run(home, [app_part(pool, create, "trac"), app_part(pool, search, "trac")]))
    assert ok and "entry_created" in detail, detail
    listed = chain("plan-trac-test", (filters[0], None), (sort, "page"))
    right, wrong = app_part(pool, filters[0], "trac"), app_part(pool, filters[1], "trac")
    ok, detail = asyncio.run(run(listed, [right, app_part(pool, sort, "trac")]))
    assert ok, detail
    swapped: Part = {**right, "traj": wrong["traj"], "elements": wrong["elements"]}
    ok, detail = asyncio.run(run(listed, [swapped, app_part(pool, sort, "trac")]))
    assert not ok and "query: on /query expected" in detail, detail
