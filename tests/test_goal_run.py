"""Goal chains run end to end (real servers, real Chromium, the real planner): the Information step reads the
answer off the list page as the constraints left it, its gate compares it with the answer chain-specs computed,
and a wrong expected answer fails the chain; composed chains' rows carry the request, the delegations and the
final message."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from run_helpers import run_on_world

from plandvc import io
from plandvc.chains.items import site_specs
from plandvc.chains.make import ChainParams, make_chains
from plandvc.records import ChainSpec, ItemRecord

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.slow


def sabotaged(chain: ChainSpec) -> ChainSpec:
    """The chain with a wrong expected answer (another count, another name) under another key."""
    goal = dict(chain["goal"])
    goal["expected"] = str(int(goal["expected"]) + 1) if goal["kind"] == "count" else goal["expected"] + " II"
    return {**chain, "key": chain["key"][:-4] + "bad0", "goal": goal}  # type: ignore[typeddict-item]


def test_goal_chains_pass_on_their_answer_and_fail_on_a_wrong_one(
    tmp_path: Path, world_items: list[ItemRecord], world0: Path
) -> None:
    chains = make_chains(
        world_items, ChainParams(n=40, request="composed", goal_share=0.5), site_specs(world0)
    )
    count = next(c for c in chains if c.get("goal", {}).get("kind") == "count")
    top = next(c for c in chains if c.get("goal", {}).get("kind") == "top")
    plain = next(c for c in chains if "goal" not in c)
    run = [count, top, plain, sabotaged(count), sabotaged(top)]
    out, results = run_on_world(run, tmp_path, world0)
    for good in (count, top, plain):
        assert results[good["key"]]["ok"], results[good["key"]]
        assert results[good["key"]]["instruction_by"] == "composed"
        assert results[good["key"]]["final_by"] == "composed"
    for c in (count, top):
        bad = results[sabotaged(c)["key"]]
        assert not bad["ok"] and "answer" in bad["error"], bad
        episode = orjson.loads((out / c["key"] / "episode.json").read_bytes())
        assert episode["instruction"] == c["request"] and episode["goal"]["expected"] == c["goal"]["expected"]
        assert episode["part_instructions"] and episode["turns"][-2]["family"] == "Information"
        rows = io.read_jsonl(out / c["key"] / "rows.jsonl")
        final = orjson.loads(rows[-1]["target"])["action"][0]["done"]["text"]
        assert final == c["final"] and c["goal"]["expected"] in final
        delegated = [orjson.loads(r["target"])["action"][0]["delegate"]["instruction"] for r in rows[:-1]]
        assert delegated == [p["say"] for p in c["parts"]] + [c["goal"]["say"]]
