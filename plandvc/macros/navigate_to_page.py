"""navigate_to_page: open a list page by its navigation link, from home or another list page."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import replace

from plandvc.macros.macro import navigation
from plandvc.macros.make import TaskMaker
from plandvc.macros.script import Executor
from plandvc.records import TaskDraft

PHRASES = (
    'Go to the "{title}" page.',
    'Open the "{title}" page of the site.',
    'Navigate to the "{title}" list.',
)


def tasks(make: TaskMaker, rng: random.Random) -> Iterator[TaskDraft]:
    for p in make.pages:
        starts = [make.home] + [make.list_path(q) for q in make.pages if q is not p]
        for s in starts:
            yield make.task(
                p,
                s,
                {"control_id": f"nav-{p.page}", "role": "link", "prep": {}},
                {"kind": "visited", "path": make.list_path(p), "last": True},
                [],
                make.words(p),
                rng,
            )


async def solve(run: Executor) -> None:
    await run.to_list()
    run.rec.done = f'I opened the "{run.list_page.title}" page.'


MACRO = replace(
    navigation("navigate_to_page", PHRASES, tasks, solve),
    pieces=frozenset({"nav"}),
    app_order=11,
)
