"""The goal kinds that use what is found, on Trac (plandvc/apps/trac/goals.py): walked from the committed Trac
pool, each run by the scripted planner in Chromium on a fresh tracd and gated on Trac's database; the same
chains with the planner delegating ANOTHER ticket (a misread report) open, read or edit that ticket for real,
and the gates on the right ticket fail."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from plandvc import io
from plandvc.apps import REGISTRY
from plandvc.apps.trac import adapter
from plandvc.apps.trac.facts import query_rows
from plandvc.chains.make import ChainParams, make_chains
from plandvc.errors import InputError
from plandvc.eval.apps import AppSpecsConfig, _run_all, app_items, app_kinds
from plandvc.records import ChainSpec, ItemRecord
from plandvc.run.chain import RunParams

ROOT = Path(__file__).resolve().parents[1]
POOL = ROOT / "data" / "apps" / "trac" / "pool"
MIX = "detail:0.3,lookup:0.2,compare:0.2,act:0.3"


def trac_chains(
    n: int = 16, mix: str = MIX, hygiene: bool = True
) -> tuple[list[ChainSpec], list[ItemRecord]]:
    app = REGISTRY["trac"]
    kinds = app_kinds(app)
    assert app.goal is not None and kinds is not None
    records = app_items(app, POOL, 0, 40)
    params = ChainParams(n=n, request="composed", goal_share=1.0, goal_kinds=mix, hygiene=hygiene)
    made = make_chains(records, params, answers={"trac": app.goal(0, 40)}, kinds={"trac": kinds(0, 40)})
    return made, records


def test_trac_goal_kinds_carry_the_found_ticket_and_read_its_data() -> None:
    chains, _ = trac_chains()
    assert chains == trac_chains()[0]  # a function of the seed
    tickets = {str(t["summary"]): t for t in adapter.tickets(adapter.template(0, 40))}
    kinds = {c["goal"]["kind"] for c in chains}
    assert {"detail", "lookup", "compare", "act"} <= kinds
    for c in chains:
        goal = c["goal"]
        steps = goal["steps"]
        if goal["kind"] in (
            "detail",
            "act",
        ):  # the found ticket's name is not in the request: a report gives it
            assert steps[0]["do"] == "find" and steps[0]["name"] not in c["request"]
            assert f'"{steps[0]["name"]}"' in steps[1]["say"]
        for st in steps:
            t = tickets[st["name"]]
            if st["do"] == "read" and st.get("field") != "time":
                assert st["check"]["expected"] == str(t[st["field"]])
            if st["do"] == "open":
                assert st["check"]["path"] == f"/ticket/{t['id']}"
            if st["do"] == "edit":
                assert st["check"] == {
                    "kind": "entry_updated", "table": "ticket", "id": str(t["id"]),
                    "fields": {st["field"]: st["value"]},
                }  # fmt: skip
                assert st["value"] != str(t[st["field"]])


def test_an_app_without_goal_kinds_refuses_a_mix(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from plandvc.eval import apps
    from plandvc.eval.apps import app_specs

    monkeypatch.setattr(apps, "app_kinds", lambda app: None)  # an app package with no goals module
    with pytest.raises(InputError, match="mediawiki's goal chains are count and top only"):
        app_specs(
            AppSpecsConfig("mediawiki", ROOT / "data/apps/mediawiki/pool", tmp_path / "s", goal_kinds=MIX)
        )
    assert not (tmp_path / "s").exists()  # refused before any work


def other_ticket(chain: ChainSpec, items: dict[str, ItemRecord]) -> str:
    """Another ticket the chain's list shows (the one a misread report would name)."""
    pairs = [(str(k), str(v)) for p in chain["parts"] for k, v in items[p["id"]]["ask"].get("query", [])]
    rows = query_rows(adapter.tickets(adapter.template(0, 40)), pairs)
    opened = {s["name"] for s in chain["goal"]["steps"]}
    return next(str(t["summary"]) for t in rows if str(t["summary"]) not in opened)


def misdelegated(chain: ChainSpec, other: str, at: int) -> ChainSpec:
    """The chain with its steps from `at` on delegated for `other` (the gates still on the right ticket)."""
    goal = dict(chain["goal"])
    steps = [dict(s) for s in goal["steps"]]
    for s in steps[at:]:
        s["say"] = s["say"].replace(f'"{s["name"]}"', f'"{other}"')
        s["name"] = other
    goal["steps"] = steps  # type: ignore[typeddict-item]
    return {**chain, "key": chain["key"][:-4] + "bad0", "goal": goal}  # type: ignore[typeddict-item]


@pytest.mark.slow
@pytest.mark.timeout(1200)
def test_trac_goal_kinds_pass_and_fail_on_the_wrong_ticket_in_chromium(tmp_path: Path) -> None:
    chains, records = trac_chains()
    items = {r["id"]: r for r in records}

    def first(kind: str, more: bool = False) -> ChainSpec:
        def several(c: ChainSpec) -> bool:
            try:
                other_ticket(c, items)
            except StopIteration:
                return False
            return True

        return next(c for c in chains if c["goal"]["kind"] == kind and (not more or several(c)))

    detail, lookup, compare, act = (
        first("detail", True),
        first("lookup"),
        first("compare"),
        first("act", True),
    )
    a = compare["goal"]["steps"][0]["name"]
    bad = {
        "detail": misdelegated(detail, other_ticket(detail, items), 1),  # opens and reads another ticket
        "compare": misdelegated(compare, a, 2),  # opens and reads the first ticket again
        "act": misdelegated(act, other_ticket(act, items), 1),  # edits another ticket
    }
    good = [detail, lookup, compare, act]
    cfg = AppSpecsConfig("trac", POOL, tmp_path / "held")
    results = {
        r["key"]: r
        for r in asyncio.run(
            _run_all(REGISTRY["trac"], good + list(bad.values()), cfg, RunParams(), tmp_path / "raw")
        )
    }
    for c in good:
        assert results[c["key"]]["ok"], results[c["key"]]
        rows = io.read_jsonl(tmp_path / "raw" / c["key"] / "rows.jsonl")
        assert len(rows) == len(c["parts"]) + len(c["goal"]["steps"]) + 1
    for what, c in bad.items():
        got = results[c["key"]]
        assert not got["ok"], (what, got)
        failed = str(got["detail"]).split(" ok | ")[0]  # the failed gates come first
        assert failed.startswith("open: visited: expected"), got
        assert ("edit: entry_updated" if what == "act" else "read: answer: expected") in failed, got


def test_the_hygiene_switch_reads_trac_chains_and_fails_on_a_planted_problem() -> None:
    from plandvc.chains.hygiene import chain_problems

    chains, records = trac_chains(n=12)
    items = {r["id"]: r for r in records}
    assert chains and all(chain_problems(c, items, {}) == [] for c in chains)
    noisy = {
        **chains[0],
        "request": chains[0]["request"].rstrip(".") + " with at most 2.4000000000000004 matches.",
    }
    assert any("2.4000000000000004" in p for p in chain_problems(noisy, items, {}))


@pytest.mark.slow
@pytest.mark.timeout(1200)
def test_shop_goal_kinds_pass_and_fail_on_the_wrong_product_in_chromium(tmp_path: Path) -> None:
    """The shop's detail and act (add the found product to the basket) pass every gate; the act delegated for
    another product of the sorted catalogue puts THAT product in the basket, and the gates on the found one
    (its page opened, a basket line of it created) fail."""
    from plandvc.apps.oscar import adapter as shop

    app = REGISTRY["oscar"]
    kinds = app_kinds(app)
    assert kinds is not None
    pool = ROOT / "data" / "apps" / "oscar" / "pool"
    records = app_items(app, pool, 0, 40)
    params = ChainParams(
        n=6, request="composed", goal_share=1.0, goal_kinds="detail:0.5,act:0.5", hygiene=True
    )
    chains = make_chains(records, params, answers={}, kinds={"oscar": kinds(0, 40)})
    detail = next(c for c in chains if c["goal"]["kind"] == "detail")
    act = next(c for c in chains if c["goal"]["kind"] == "act")
    titles = sorted(str(p["title"]) for p in shop.products(shop.template(0, 40)))
    other = next(t for t in titles if t != act["goal"]["steps"][0]["name"])
    bad = misdelegated(act, other, 1)
    cfg = AppSpecsConfig("oscar", pool, tmp_path / "held")
    results = {
        r["key"]: r
        for r in asyncio.run(_run_all(app, [detail, act, bad], cfg, RunParams(), tmp_path / "raw"))
    }
    assert results[detail["key"]]["ok"], results[detail["key"]]
    assert results[act["key"]]["ok"], results[act["key"]]
    got = results[bad["key"]]
    assert not got["ok"], got
    failed = str(got["detail"]).split(" ok | ")[0]
    assert failed.startswith("open: visited: expected") and "add: entry_created" in failed, got


@pytest.mark.slow
@pytest.mark.timeout(1200)
def test_wiki_goal_kinds_pass_and_fail_on_the_wrong_page_in_chromium(tmp_path: Path) -> None:
    """The wiki's lookup and compare (back to the category through the first page's category link) pass every
    gate; the compare delegated to open the first page again reads it twice, and the gates on the second page
    (its page opened, its fact read) fail."""
    app = REGISTRY["mediawiki"]
    kinds = app_kinds(app)
    assert kinds is not None
    pool = ROOT / "data" / "apps" / "mediawiki" / "pool"
    records = app_items(app, pool, 0, 40)
    mix = "lookup:0.5,compare:0.5"
    params = ChainParams(n=6, request="composed", goal_share=1.0, goal_kinds=mix, hygiene=True)
    chains = make_chains(records, params, answers={}, kinds={"mediawiki": kinds(0, 40)})
    lookup = next(c for c in chains if c["goal"]["kind"] == "lookup")
    compare = next(c for c in chains if c["goal"]["kind"] == "compare")
    bad = misdelegated(compare, compare["goal"]["steps"][0]["name"], 2)
    cfg = AppSpecsConfig("mediawiki", pool, tmp_path / "held")
    results = {
        r["key"]: r
        for r in asyncio.run(_run_all(app, [lookup, compare, bad], cfg, RunParams(), tmp_path / "raw"))
    }
    assert results[lookup["key"]]["ok"], results[lookup["key"]]
    assert results[compare["key"]]["ok"], results[compare["key"]]
    got = results[bad["key"]]
    assert not got["ok"], got
    failed = str(got["detail"]).split(" ok | ")[0]
    assert failed.startswith("open: visited: expected") and "read: answer: expected" in failed, got


def test_params_name_each_apps_goal_kinds() -> None:
    """apps.goal_kinds gives every app of apps.names its mix, and a mix only to an app with goal kinds."""
    import yaml

    from plandvc.chains.goal_kinds import parse_kinds

    apps = yaml.safe_load((ROOT / "params.yaml").read_text())["apps"]
    assert sorted(apps["goal_kinds"]) == sorted(apps["names"])
    for name, mix in apps["goal_kinds"].items():
        assert parse_kinds(mix) is None or app_kinds(REGISTRY[name]) is not None, name
