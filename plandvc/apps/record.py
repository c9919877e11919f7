"""An app's tasks recorded into a pool folder: each task on a fresh session of the app, solved by the scripted
executor in Chromium, gated on the app's own database, kept when its gate passes.

The folder has the pool's layout (docs/POOL.md, "Layout"): `kept.jsonl`, `pool_ids.txt` and
`runs/<app>/accepted/<id>/{task.json, trajectory.json, elements.json}`, plus `gates.jsonl` (every task's
verdict and detail line, kept or not) and `pool.json` (`{"site": <app>, "site_kind": "app"}`): the task.json of
an app has no spec `control` (an app is not a spec site: `plandvc.apps.script.AppTask`) and its paths are the
app's own, so `plandvc.pool.store.Pool` reads and checks it by the contract's app branch (docs/POOL.md, "App
pools"). Everything written is a function of (app, seed, size, per_macro): no clock,
no port (the session's URLs are relative to the app's base), written sorted and atomically.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from plandvc.apps.app import App, Served, Summary, on_fresh_session
from plandvc.apps.script import AppTask, Recorded, Solution, record
from plandvc.io import claimed, owned_folder, publish_built, write_json, write_jsonl
from plandvc.macros import REGISTRY

if TYPE_CHECKING:
    from plandvc.browser import Browser, Session


async def record_app(
    app: App, seed: int, size: int, per_macro: int, macros: Sequence[str] = ()
) -> list[Recorded]:
    """Every task of the app seeded with (seed, size), or only those of `macros`, in one new Chromium."""
    from plandvc.browser import Browser

    tasks = [t for t in app.tasks(seed, size, per_macro) if not macros or t["macro"] in macros]
    async with Browser() as browser:
        return await record_tasks(browser, app, seed, size, tasks)


async def record_tasks(
    browser: Browser, app: App, seed: int, size: int, tasks: list[AppTask]
) -> list[Recorded]:
    """Each task on its own fresh session of the app, in `browser`."""
    out = []
    for task in tasks:
        solve = app.solution(task["macro"])

        async def work(
            session: Session, s: Served, task: AppTask = task, solve: Solution = solve
        ) -> Recorded:
            return await record(task, session, solve, s.state)

        out.append(await on_fresh_session(app, (seed, size), browser, f"task {task['task_id']}", work))
    return out


def write_pool(out: Path, app: str, runs: list[Recorded]) -> Summary:
    """The pool folder of `runs` at `out` (replaced atomically)."""

    def build(tmp: Path) -> Summary:
        kept = [r for r in runs if r.ok]
        for r in kept:
            folder = tmp / "runs" / app / "accepted" / r.task["task_id"]
            write_json(folder / "task.json", r.task)
            write_json(folder / "trajectory.json", r.trajectory)
            write_json(folder / "elements.json", r.elements)
        # the pool contract's app branch (plandvc.pool.store.MANIFEST; named here as kept.jsonl is, so the
        # recording's code stays the recorder's)
        write_json(tmp / "pool.json", {"site": app, "site_kind": "app"})
        ids = sorted(r.task["task_id"] for r in kept)
        by_id = {r.task["task_id"]: r for r in kept}
        write_jsonl(
            tmp / "kept.jsonl",
            [
                {"id": i, "run": app, "site": by_id[i].task["site"], "macro": by_id[i].task["macro"]}
                for i in ids
            ],
        )
        # question macros stay out of pool_ids.txt, as in every pool (pool-items adds them back)
        chainable = [i for i in ids if not REGISTRY[by_id[i].task["macro"]].question]
        (tmp / "pool_ids.txt").write_text("".join(f"{i}\n" for i in chainable))
        write_jsonl(
            tmp / "gates.jsonl",
            [
                {"id": r.task["task_id"], "ok": r.ok, "detail": r.detail}
                for r in sorted(runs, key=lambda r: r.task["task_id"])
            ],
        )
        return Summary(
            dict(sorted(Counter(r.task["macro"] for r in runs).items())),
            dict(sorted(Counter(r.task["macro"] for r in kept).items())),
        )

    return publish_built(out, build)


COMMAND = "record-apps"
# what write_pool writes; its pool.json (an app pool's manifest) is the index that recognises it
is_app_pool = owned_folder(
    ("runs", "kept.jsonl", "pool_ids.txt", "gates.jsonl", "pool.json"),
    "pool.json",
    lambda found: isinstance(found, dict) and found.get("site_kind") == "app",
)


def record_pool(
    app: App, out: Path, seed: int = 0, size: int = 40, per_macro: int = 2, macros: Sequence[str] = ()
) -> Summary:
    """Record the app's tasks (`size` rows; seed for the data and the tasks) into the pool folder `out`. OUT
    is claimed before any work (`io.claimed`, as make-pool's): one writer, never a foreign folder, writable."""
    with claimed(out, is_app_pool, COMMAND):
        runs = asyncio.run(record_app(app, seed, size, per_macro, macros))
        return write_pool(out, app.name, runs)
