"""A task's control prep through a wizard form (real server, real Chromium): run-chains reads the task from its
file, where the prep's fields are sorted by name, and a wizard shows them a few per step. The prep fills them in
the form's own order, step by step, so the prepared entry exists whatever order the file lists them in."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import cast

import pytest

from plandvc import io
from plandvc.browser import Browser
from plandvc.pool.prep import prepare
from plandvc.pool.tasks import site_tasks
from plandvc.ports import free_ports
from plandvc.records import Task
from plandvc.sites.servers import Servers
from plandvc.sites.spec import load_sites
from plandvc.world.make import make_world

SITE = "news-morning-wire"  # its letters are created through a wizard (seed 0)


@pytest.mark.slow
def test_a_wizard_prep_from_a_task_file_creates_its_entry(tmp_path: Path) -> None:
    make_world(tmp_path / "w", seed=0, domains=("news",))
    spec = load_sites(tmp_path / "w")[SITE]
    assert spec.tables["letters"].form == "wizard"
    task = next(
        t for t in site_tasks(spec)
        if t["macro"] == "edit_entry" and (t["control"].get("prep") or {}).get("create", {}).get("page") == "letters"
    )  # fmt: skip
    fields = task["control"]["prep"]["create"]["fields"]
    from_file = cast(Task, io.loads(io.dumps(task, sort_keys=True)))  # as task.json holds it
    assert list(from_file["control"]["prep"]["create"]["fields"]) == sorted(fields) != list(fields)

    async def run() -> list[dict[str, object]]:
        with Servers(free_ports(1), tmp_path / "w") as servers:
            async with Browser() as browser:
                session = await browser.new_session(servers.bases[0])
                try:
                    await prepare(session, from_file)
                    return (await session.backend_state(SITE))["changes"]
                finally:
                    await session.close()

    changes = asyncio.run(run())
    assert len(changes) == 1 and changes[0]["table"] == "letters", changes
