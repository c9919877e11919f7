"""navigate_home: one click on the site's own home link (`plandvc.macros.home`), from a list or detail page."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import replace

from plandvc.macros.home import HOME_MEMORY, recorded_home_done
from plandvc.macros.macro import navigation
from plandvc.macros.make import TaskMaker
from plandvc.macros.script import Executor, attr
from plandvc.records import TaskDraft

PHRASES = (
    "Go back to the home page of {site_name}.",
    "Return to the {site_name} home page using the site's home link.",
    "Navigate to the home page of {site_name}.",
)


def tasks(make: TaskMaker, rng: random.Random) -> Iterator[TaskDraft]:
    for p, t in make.tables():
        starts = [make.list_path(p)] + [make.detail_path(p, str(r[t.key])) for r in t.rows[:3]]
        for s in starts:
            yield make.task(
                p,
                s,
                {"control_id": "home", "role": "home", "prep": {}},
                {"kind": "visited", "path": make.home, "last": True},
                [],
                make.words(p),
                rng,
            )


async def solve(run: Executor) -> None:
    await run.step("click", attr("data-home"), "home link", HOME_MEMORY)
    run.rec.done = recorded_home_done(run.spec.name)


MACRO = replace(
    navigation("navigate_home", PHRASES, tasks, solve),
    asked=False,
)
