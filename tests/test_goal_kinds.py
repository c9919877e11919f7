"""Goal kinds that use what the team finds (`chains.goal_kinds`), at chain-specs level: the v3 value keeps the
goal chains of before, a mix makes every kind with its share, the words carry found values only after they are
found, the output is byte-reproducible, and a bad mix is one clear error."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from run_helpers import plandvc

from plandvc import io
from plandvc.chains.goal_kinds import V3_KINDS, kind_counts, parse_kinds
from plandvc.chains.goals import goal_chains, site_answers
from plandvc.chains.items import site_specs
from plandvc.chains.make import ChainParams, make_chains
from plandvc.io import InputError
from plandvc.records import ItemRecord
from plandvc.run.script import template_memory

LOOKUPS = 21  # 0.18 of the goal chains
MIX = "detail:0.42,lookup:0.18,compare:0.08,act:0.1,carry:0.1,count:0.06,top:0.06"


def test_parse_kinds_v3_and_mixes() -> None:
    assert parse_kinds(V3_KINDS) is None
    assert parse_kinds(MIX) == {
        "detail": 0.42,
        "lookup": 0.18,
        "compare": 0.08,
        "act": 0.1,
        "carry": 0.1,
        "count": 0.06,
        "top": 0.06,
    }
    assert sum(kind_counts(parse_kinds(MIX) or {}, 285).values()) == 285
    for bad, said in (
        ("detail:0.5,lookup:0.4", "sum to 1"),
        ("detail:0.5,story:0.5", "'story:0.5' is not kind:share"),
        ("detail:x", "'x' of detail is not a number"),
        ("detail", "is not kind:share"),
    ):
        with pytest.raises(InputError, match=said):
            parse_kinds(bad)


def test_v3_kinds_are_the_goal_chains_of_before(world_items: list[ItemRecord], world0: Path) -> None:
    specs = site_specs(world0)
    v3 = make_chains(world_items, ChainParams(n=60, request="composed", goal_share=0.5), specs)
    goals = [c for c in v3 if "goal" in c]
    before = goal_chains([r for r in world_items], site_answers(specs), 30)
    assert {c["key"] for c in goals} == {c["key"] for c in before}


def test_mix_makes_each_kind_and_carries_found_values(world_items: list[ItemRecord], world0: Path) -> None:
    chains = make_chains(
        world_items,
        ChainParams(n=120, request="composed", goal_share=0.95, goal_kinds=MIX),
        site_specs(world0),
    )
    kinds = Counter(c.get("goal", {}).get("kind", "walk") for c in chains)
    assert kinds["detail"] == 48 and kinds["lookup"] == LOOKUPS and kinds["compare"] >= 5, kinds
    assert kinds["act"] >= 5 and kinds["carry"] >= 5, kinds
    for c in chains:
        goal = c.get("goal")
        if goal is None or "steps" not in goal:
            continue
        steps = goal["steps"]
        assert all("say" in s for s in steps)
        if steps[0]["do"] == "find":  # detail, act: the entry's name is found, not asked
            name = steps[0]["name"]
            assert name not in c["request"], c["request"]
            assert all(name in s["say"] for s in steps[1:]), steps
            assert all(name not in s.get("plan", "") for s in steps[1:])
            turns = [{"kind": "delegate", "family": "Information", "instruction": s["say"], "macro": "x",
                      **({"plan": s["plan"]} if "plan" in s else {}), **({"found": name} if s["do"] == "find" else {})}
                     for s in steps]  # fmt: skip
            first = template_memory([*turns, {"kind": "done", "answer": goal["expected"]}], 0)  # type: ignore[list-item]
            assert name not in first
            after = template_memory([*turns, {"kind": "done", "answer": goal["expected"]}], 1)  # type: ignore[list-item]
            assert after.startswith(f'The Information specialist found "{name}".'), after
        elif (
            goal["kind"] == "carry"
        ):  # the value read is not asked: the narrow carries it from the read's report
            narrow = next(s for s in steps if s["do"] == "narrow")
            value = narrow["value"]
            assert value not in c["request"] and f'"{value}"' in narrow["say"], (c["request"], narrow)
            assert value not in narrow["plan"] and "plan" not in steps[0] and "plan" not in steps[1]
            turns = [{"kind": "delegate", "family": "Information", "instruction": s["say"], "macro": "x",
                      **({"plan": s["plan"]} if "plan" in s else {}), **({"found": value} if s.get("reveals") else {})}
                     for s in steps]  # fmt: skip
            done = {"kind": "done", "answer": goal["expected"]}
            assert value not in template_memory([*turns, done], 0)  # type: ignore[list-item]
            after = template_memory([*turns, done], 2)  # type: ignore[list-item]
            assert after.startswith(f'The Information specialist found "{value}".'), after
        else:  # lookup, compare: the entries are named in the request
            assert all(s["name"] in c["request"] for s in steps if s["do"] == "open")
        assert all(s["name"] in c["final"] for s in steps)
        reads = [s for s in steps if s["do"] == "read"]
        assert all(str(s["check"].get("expected")) in c["final"] for s in reads), c["final"]


def test_chain_specs_with_goal_kinds_is_byte_reproducible(tmp_path: Path, world0: Path) -> None:
    items = tmp_path / "items.jsonl"
    from plandvc.chains.items import pool_items

    root = Path(__file__).resolve().parents[1]
    records, _ = pool_items(
        root / "data" / "world-pool", world0, root / "data" / "world-pool" / "pool_ids.txt"
    )
    io.write_jsonl(items, records)
    outs = []
    for name in ("a", "b"):
        out = tmp_path / f"chains-{name}.jsonl"
        p = plandvc(
            "chain-specs", "--items", items, "--out", out, "--n", "80", "--request", "composed",
            "--goal-share", "0.95", "--goal-kinds", MIX, "--sites", world0, "--recovery-share", "0.2",
        )  # fmt: skip
        assert p.returncode == 0, p.stderr[-2000:]
        outs.append(out.read_bytes())
    assert outs[0] == outs[1]
    assert b'"kind":"detail"' in outs[0] and b'"kind":"compare"' in outs[0] and b'"kind":"carry"' in outs[0]
    bad = plandvc(
        "chain-specs", "--items", items, "--out", tmp_path / "bad.jsonl", "--request", "composed",
        "--goal-share", "0.5", "--goal-kinds", "detail:0.5", "--sites", world0,
    )  # fmt: skip
    assert bad.returncode == 1 and "goal_kinds: the shares must sum to 1" in bad.stderr
    assert not (tmp_path / "bad.jsonl").exists()
