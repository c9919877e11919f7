"""The recorder on the real sites server with real Chromium: every check kind passes on a right session, a
task whose scripted steps do not meet its check is filed under rejected with the reason, make-pool gives
and re-recording committed tasks gives their bytes."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from bundled import NAMES, POOL_DIR, SPECS, sample

from plandvc.pool.recorder import Outcome, record, write_outcome
from plandvc.pool.tasks import generate

pytestmark = pytest.mark.asyncio(loop_scope="module")

TASKS = {t["task_id"]: t for t in generate(SPECS, 0, NAMES)}


def first(macro: str, pred: Any = lambda t: True) -> dict[str, Any]:
    return copy.deepcopy(next(t for t in TASKS.values() if t["macro"] == macro and pred(t)))


async def run(browser: Any, base: str, task: dict[str, Any]) -> Outcome:
    session = await browser.new_session(base)
    try:
        return await record(session, SPECS[task["site"]], task)
    finally:
        await session.close()


# one task per check kind (and the prepared edit), all of which must pass
RIGHT = {
    "query": first("filter_by_options", lambda t: len(t["target"]["values"]) == 2),
    "visited": first("open_entry", lambda t: t["start"]["url"].endswith("s")),
    "visited params": first("search_by_text"),
    "entry_created": first("create_entry"),
    "entry_updated": first("edit_entry", lambda t: not t["control"]["prep"]),
    "entry_updated prepared": first("edit_entry", lambda t: bool(t["control"]["prep"])),
    "answer": first("count_entries"),
    "answer text": first("report_information", lambda t: not t["check"]["number"]),
    "clipboard": first("copy_value"),
}


@pytest.mark.parametrize("name", sorted(RIGHT))
async def test_every_check_kind_passes_on_a_right_session(browser: Any, base: str, name: str) -> None:
    out = await run(browser, base, RIGHT[name])
    assert out.accepted, out.reason
    assert out.trajectory is not None and out.trajectory["steps"] and out.trajectory["done"]
    assert len(out.elements or []) == sum(1 for s in out.trajectory["steps"] if s["element"] is not None)


def _break(name: str) -> dict[str, Any]:
    t = copy.deepcopy(RIGHT[name.split(":")[0]])
    how = name.split(":")[1]
    c = t["check"]
    if how == "value":
        if c["kind"] == "query":
            c["params"] = {k: ["Nowhere"] for k in c["params"]}
        elif c["kind"] == "entry_created":
            k = next(iter(c["fields"]))
            c["fields"][k] = "Not what was typed"
        elif c["kind"] == "answer":
            c["expected"] = str(int(c["expected"]) + 1)
        elif c["kind"] == "clipboard":
            c["value"] = "NOT-COPIED"
    elif how == "page":
        c["path"] = c["path"] + "-elsewhere"
    elif how == "entry":
        c["id"] = "NO-SUCH-ID"
    elif how == "extra":  # another entry of the same table is created first: no longer exclusive
        page = t["target"]["page"]
        t["control"]["prep"] = {"create": {"table": c["table"], "page": page, "fields": dict(c["fields"])}}
    return t


BROKEN = ["query:value", "visited:page", "entry_created:value", "entry_updated:entry", "answer:value",
          "clipboard:value", "entry_created:extra"]  # fmt: skip


@pytest.mark.parametrize("name", BROKEN)
async def test_the_recorder_rejects_a_task_its_steps_do_not_meet(
    browser: Any, base: str, name: str, tmp_path: Path
) -> None:
    task = _break(name)
    out = await run(browser, base, task)
    assert not out.accepted
    write_outcome(tmp_path, out)
    d = tmp_path / "rejected" / task["task_id"]
    reason = (d / "reason.txt").read_text()
    assert (d / "task.json").is_file() and not (tmp_path / "accepted").exists()
    assert any(w in reason for w in ("expected", "found", "exclusive")), reason
    assert reason.count("\n") == 1


async def test_a_script_that_cannot_find_its_element_is_rejected(browser: Any, base: str) -> None:
    task = copy.deepcopy(RIGHT["clipboard"])
    task["target"]["page"] = next(
        p.page for p in SPECS[task["site"]].pages if p.page != task["target"]["page"]
    )
    out = await run(browser, base, task)
    assert not out.accepted and out.reason


async def test_re_recording_committed_tasks_gives_their_bytes(
    browser: Any, base: str, tmp_path: Path
) -> None:
    """A stratified sample (one per macro): the committed pool is what make-pool makes today."""
    for row in sample(per_macro=1):
        out = await run(browser, base, TASKS[row["id"]])
        assert out.accepted, (row["id"], out.reason)
        write_outcome(tmp_path, out)
        for name in ("task.json", "trajectory.json", "elements.json"):
            got = (tmp_path / "accepted" / row["id"] / name).read_bytes()
            want = (POOL_DIR / "runs" / row["run"] / "accepted" / row["id"] / name).read_bytes()
            assert got == want, f"{row['id']}/{name} differs from data/pool: regenerate it with make-pool"
