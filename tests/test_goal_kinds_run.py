"""Goal kinds that use what the team finds, run end to end (real servers, real Chromium, the real planner): a
detail, a lookup, a compare and an act chain (a copy and a delete) pass every live step's gate; the same chains
with the planner delegating ANOTHER entry of the page (a misread report) open, read, copy or delete that other
entry for real, and the gates on the right entry fail."""

from __future__ import annotations

from pathlib import Path

import pytest
from run_helpers import run_on_world, with_steps

from plandvc import io
from plandvc.chains.items import site_specs
from plandvc.chains.make import ChainParams, make_chains
from plandvc.records import ChainSpec, ItemRecord
from plandvc.sites.query import select_rows

ROOT = Path(__file__).resolve().parents[1]
MIX = "detail:0.4,lookup:0.2,compare:0.1,act:0.3"
pytestmark = pytest.mark.slow


def other_entry(chain: ChainSpec, items: dict[str, ItemRecord], world: Path) -> str | None:
    """Another entry's name on the page the chain's open step starts from (None: the list shows one)."""
    spec = site_specs(world)[chain["site"]]
    goal = chain["goal"]
    page = spec.page(goal["page"].rsplit("/", 1)[-1])
    assert page is not None
    table = spec.table_of(page)
    pairs = [(k, v) for p in chain["parts"] for k, v in items[p["id"]].get("ask", {}).get("query", [])]
    names = [str(r[table.label]) for r in select_rows(page, table, list(table.rows), pairs)[:5]]
    opened = [s["name"] for s in goal["steps"] if s["do"] == "open"]
    return next((n for n in names if n not in opened and names.count(n) == 1), None)


def misdelegated(chain: ChainSpec, other: str, at: int) -> ChainSpec:
    """The chain with its steps from `at` on delegated for `other` (the gates still on the right entry)."""

    def edit(s: dict[str, str]) -> None:
        s["say"] = s["say"].replace(f'"{s["name"]}"', f'"{other}"')
        s["name"] = other

    return with_steps(chain, edit, at)  # type: ignore[no-any-return]


def test_goal_kinds_pass_and_fail_on_the_wrong_entry(
    tmp_path: Path, world_items: list[ItemRecord], world0: Path
) -> None:
    chains = make_chains(
        world_items,
        ChainParams(n=80, request="composed", goal_share=1.0, goal_kinds=MIX),
        site_specs(world0),
    )
    items = {r["id"]: r for r in world_items}

    def first(kind: str, last: str | None = None, other: bool = False) -> ChainSpec:
        return next(
            c for c in chains
            if c["goal"]["kind"] == kind and (last is None or c["goal"]["steps"][-1]["do"] == last)
            and (not other or other_entry(c, items, world0) is not None)
        )  # fmt: skip

    detail, lookup, compare = first("detail", other=True), first("lookup"), first("compare")
    copy, delete = first("act", "copy", other=True), first("act", "delete", other=True)
    a = next(s["name"] for s in compare["goal"]["steps"] if s["do"] == "open")
    bad = {
        "detail": misdelegated(detail, str(other_entry(detail, items, world0)), 1),  # opens and reads another
        "compare": misdelegated(compare, a, 2),  # opens and reads the first entry again
        "copy": misdelegated(copy, str(other_entry(copy, items, world0)), 1),
        "delete": misdelegated(delete, str(other_entry(delete, items, world0)), 1),
    }
    good = [detail, lookup, compare, copy, delete]
    out, results = run_on_world(good + list(bad.values()), tmp_path, world0)
    for c in good:
        assert results[c["key"]]["ok"], results[c["key"]]
        rows = io.read_jsonl(out / c["key"] / "rows.jsonl")
        assert len(rows) == len(c["parts"]) + len(c["goal"]["steps"]) + 1
    for what, c in bad.items():
        got = results[c["key"]]
        assert not got["ok"], (what, got)
        detail_line = got["detail"]
        if what in ("detail", "compare"):
            assert detail_line.startswith("open: visited: expected"), got  # failed gates come first
            assert "read: answer: expected" in detail_line.split(" ok | ")[0], got
        elif what == "copy":
            assert "copy: clipboard: expected" in detail_line, got
        else:
            assert "delete: entry_deleted: expected a delete of" in detail_line, got
