"""The carry goal kind, run end to end (real servers, real Chromium, the real planner): a value read on an entry's
page narrows the list (a dropdown set to it, a search for it) and the count is read there. Both pass every live
step's gate; the same chains with the planner delegating ANOTHER value than the one read narrow the list by that
value for real, and the narrowing's gate (the list's URL state with the read value) and the count's gate fail."""

from __future__ import annotations

from pathlib import Path

import pytest
from run_helpers import run_on_world, with_steps

from plandvc import io
from plandvc.chains.goal_kinds import NEEDS, Maker, coverage
from plandvc.chains.items import read_site_split, site_specs
from plandvc.chains.make import ChainParams, make_chains
from plandvc.chains.structure import coverage_listing
from plandvc.records import ChainSpec, GoalStep, ItemRecord
from plandvc.sites.query import select_rows

pytestmark = pytest.mark.slow


def narrow_of(chain: ChainSpec) -> GoalStep:
    return next(s for s in chain["goal"]["steps"] if s["do"] == "narrow")


def other_value(chain: ChainSpec, world: Path) -> str:
    """Another value of the narrowed column that leaves another count (a misread report)."""
    spec = site_specs(world)[chain["site"]]
    page = spec.page(chain["goal"]["page"].rsplit("/", 1)[-1])
    assert page is not None
    table = spec.table_of(page)
    st = narrow_of(chain)
    rows = list(table.rows)
    for r in rows:
        v = str(r[st["field"]])
        if v != st["value"] and '"' not in v:
            n = len(select_rows(page, table, rows, [(st["param"], v)]))
            if n > 0 and str(n) != chain["goal"]["expected"]:
                return v
    raise AssertionError(f"no other value of {st['field']} on {chain['site']}")


def misdelegated(chain: ChainSpec, other: str) -> ChainSpec:
    """The chain with its narrow delegated (and done) with `other`; its gates still on the value read."""

    def edit(s: dict[str, str]) -> None:
        if s["do"] == "narrow":
            s["say"] = s["say"].replace(f'"{s["value"]}"', f'"{other}"')
            s["value"] = other

    return with_steps(chain, edit)  # type: ignore[no-any-return]


def test_carry_chains_pass_and_fail_on_another_value(
    tmp_path: Path, world_items: list[ItemRecord], world0: Path
) -> None:
    chains = make_chains(
        world_items,
        ChainParams(n=40, request="composed", goal_share=1.0, goal_kinds="carry:1.0"),
        site_specs(world0),
    )
    ways = [next(c for c in chains if narrow_of(c).get("action") == a) for a in ("select", "facet", "input")]
    for c in ways:
        value = narrow_of(c)["value"]
        assert value not in c["request"]  # the request names the entry, never the value read
        assert f'"{value}"' in narrow_of(c)["say"]  # the narrow delegation carries it verbatim
    bad = [misdelegated(c, other_value(c, world0)) for c in ways]
    out, results = run_on_world([*ways, *bad], tmp_path, world0)
    for c in ways:
        assert results[c["key"]]["ok"], results[c["key"]]
        rows = io.read_jsonl(out / c["key"] / "rows.jsonl")
        assert len(rows) == len(c["parts"]) + len(c["goal"]["steps"]) + 1
        episode = io.read_json(out / c["key"] / "episode.json")
        found = [t.get("found") for t in episode["turns"]]
        assert narrow_of(c)["value"] in found  # the read's turn says what it found
    for c in bad:
        got = results[c["key"]]
        assert not got["ok"], got
        assert got["detail"].startswith("narrow: query: on "), got  # failed gates come first
        assert "count: answer: expected" in got["detail"].split(" ok | ")[0], got


def test_carry_is_made_on_sites_with_a_settable_control(world_items: list[ItemRecord], world0: Path) -> None:
    """Every site with a recorded navigation gets carry chains (each has a select, a facet sidebar or a search
    form it can set)."""
    specs = site_specs(world0)
    maker = Maker("carry", world_items, specs, 0)
    made = {s for s in maker.sites() for _ in range(30) if maker.attempt(s) is not None}
    assert made == set(maker.sites()), sorted(set(maker.sites()) - made)


def test_coverage_lists_each_kind_a_sites_data_cannot_make(
    tmp_path: Path, world_items: list[ItemRecord], world0: Path
) -> None:
    """Every kind on every training site of the world; a site without its recorded navigations loses the kinds
    that start from one, each named with what it needs; chain-structure --sites prints the listing."""
    specs = site_specs(world0)
    train = sorted(read_site_split(world0)[0])
    assert coverage(world_items, specs, train) == {s: {} for s in train}
    site = train[0]
    no_nav = [r for r in world_items if not (r["site"] == site and r["macro"] == "navigate_to_page")]
    missing = coverage(no_nav, specs, [site])[site]
    assert sorted(missing) == ["carry", "compare", "lookup"], missing
    assert NEEDS["carry"] in missing["carry"]
    io.write_jsonl(tmp_path / "items.jsonl", no_nav)
    listing = coverage_listing(tmp_path / "items.jsonl", world0)
    assert f"- {site}: all but lookup, compare, carry" in listing, listing
