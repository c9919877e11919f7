"""Every application's macros recorded in real Chromium on real servers, all three apps by the same tests: each
task (two per macro) solved by the scripted executor on its own fresh session and gated on the app's own
database; each gate shown failing on its sibling task's real outcome; the pool written twice to the same bytes;
and one recording per macro replayed on a fresh session, as run-chains and the evaluation replay a part.

The apps' own tests (tests/test_apps_<app>.py) cover install, seed, serve and state."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from plandvc.apps import REGISTRY
from plandvc.apps.app import App
from plandvc.apps.record import record_tasks
from plandvc.apps.script import Recorded
from plandvc.browser import Browser
from plandvc.checks import gate

pytestmark = [
    pytest.mark.slow,
    pytest.mark.timeout(900),  # a fresh server per task: minutes on a loaded 2-core machine
    pytest.mark.asyncio(loop_scope="module"),
]


@pytest_asyncio.fixture(scope="module", loop_scope="module", params=sorted(REGISTRY))
async def recorded(
    request: pytest.FixtureRequest, browser: Browser
) -> AsyncIterator[tuple[App, list[Recorded]]]:
    """Every task of one app (two per macro), each recorded in Chromium on its own fresh session."""
    app = REGISTRY[request.param]
    yield app, await record_tasks(browser, app, 0, 40, app.tasks(0, 40, 2))


async def test_every_macro_is_solved_in_chromium_and_gated_on_the_apps_database(
    recorded: tuple[App, list[Recorded]],
) -> None:
    app, runs = recorded
    assert {r.task["macro"] for r in runs} == set(app.macros)
    for r in runs:
        assert r.ok, f"{r.task['task_id']}: {r.detail}"
        steps = r.trajectory["steps"]
        assert steps and all(s["element"] is not None and s["element"] < len(r.elements) for s in steps)
        assert "127.0.0.1" not in str(r.trajectory) + str(r.elements)
    creates = [r for r in runs if r.task["macro"] == "create_entry"]
    assert creates and all([c["op"] for c in r.state["changes"]] == ["create"] for r in creates)


async def test_each_gate_fails_on_a_siblings_real_outcome(recorded: tuple[App, list[Recorded]]) -> None:
    app, runs = recorded
    by_macro: dict[str, list[Recorded]] = {}
    for r in runs:
        by_macro.setdefault(r.task["macro"], []).append(r)
    for macro, pair in by_macro.items():
        assert len(pair) == 2, (app.name, macro)
        for mine, other in (pair, pair[::-1]):
            ok, detail = gate(mine.task["check"], mine.task["verifier"], other.state)
            assert not ok, f"{mine.task['task_id']} passed on {other.task['task_id']}'s outcome: {detail}"


async def test_the_pool_is_written_in_the_pools_layout_the_same_twice(
    recorded: tuple[App, list[Recorded]], tmp_path: Path
) -> None:
    from plandvc.apps.record import write_pool
    from plandvc.io import read_json, read_jsonl, tree_hash
    from plandvc.pool.store import Pool

    app, runs = recorded
    a, b = tmp_path / "a", tmp_path / "b"
    summary = write_pool(a, app.name, runs)
    write_pool(b, app.name, runs)
    assert tree_hash(a) == tree_hash(b)
    assert summary.kept == summary.tasks == {m: 2 for m in sorted(app.macros)}
    kept = read_jsonl(a / "kept.jsonl")
    assert len(kept) == len(runs)
    ids = (a / "pool_ids.txt").read_text().split()
    assert not any("report_information" in i or "count_entries" in i for i in ids)  # questions stay out
    store = Pool.open(a)  # the contract's app branch: every part sound
    assert (store.site_kind, store.site) == ("app", app.name)
    assert all(not store.check(k["id"]).problems for k in kept)
    one = a / store.dir_of(kept[0]["id"])
    assert read_json(one / "trajectory.json")["task_id"] == read_json(one / "task.json")["task_id"]


async def test_the_replayer_plays_a_recorded_trajectory_on_a_fresh_session(
    recorded: tuple[App, list[Recorded]], browser: Browser
) -> None:
    """What run-chains and the evaluation do with a pool part: `plandvc.replay` finds each recorded element
    again on the live page by its descriptor, on the evaluation's AppSession (a select that submits its form,
    like the shop's "Sort by", is waited for by the session itself); the replayed task passes its gate on the
    app's database."""
    from plandvc.eval.apps import AppSession
    from plandvc.replay import Replayer, replay

    app, runs = recorded
    firsts = {r.task["macro"]: r for r in reversed(runs)}  # the first task of each macro
    for r in sorted(firsts.values(), key=lambda r: r.task["task_id"]):
        with app.serve(0, 40) as s:
            raw = await browser.new_session(s.base)
            session = AppSession(raw, s.state)
            try:
                await session.goto(r.task["start"]["url"])
                done = await replay(Replayer(r.trajectory, r.elements, session), session)
                state = {**s.state(), "url": session.url, "seen": session.seen, "answer": done.get("answer")}
            finally:
                await raw.close()
        ok, detail = gate(r.task["check"], r.task["verifier"], state)
        assert ok, f"{r.task['task_id']} replayed: {detail}"
