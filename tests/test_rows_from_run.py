"""filter-rows accepts what run-chains' own scripted planner writes (plandvc.run.script), and rejects it once
broken: the two sides of the rows format are checked against each other, not only against hand-made rows."""

from __future__ import annotations

import base64

from raw_chains import SIZE, png_bytes

from plandvc import io
from plandvc.agent.schema import RESPONSE_FORMAT
from plandvc.rows.dataset import filter_rows
from plandvc.rows.validate import Chain, check_chain
from plandvc.run.script import PlannerScript

KEY = "plan-shop-0123456789"
TURNS = [
    {"kind": "delegate", "family": "Filter", "instruction": 'Show only the orders whose Status is "Shipped".',
     "macro": "filter_by_dropdown"},
    {"kind": "delegate", "family": "Navigation", "instruction": "Go to the home page of Northwind Shop with the "
     "site's own home link.", "macro": "navigate_home"},
    {"kind": "delegate", "family": "Information", "instruction": "How many orders are there?",
     "macro": "count_entries"},
    {"kind": "done", "answer": "12"},
]  # fmt: skip


async def _write_chain(raw, turns=TURNS):
    """Drive PlannerScript turn by turn with screenshot messages and write the chain as run-chains does."""
    script = PlannerScript(KEY, turns)
    for t in range(len(turns)):
        shot = base64.b64encode(png_bytes(*SIZE, shade=t)).decode()
        messages = [
            {"role": "system", "content": "You are the planner."},
            {"role": "user", "content": [{"type": "text", "text": f"<step_info>{t + 1}</step_info>"},
                                         {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{shot}"}}]},
        ]  # fmt: skip
        await script.respond(messages, RESPONSE_FORMAT)
    assert script.finished
    d = raw / KEY
    io.write_jsonl(d / "rows.jsonl", script.rows)
    for name, data in sorted(script.images.items()):
        (d / name).write_bytes(data)
    episode = {
        "task_id": KEY, "site": "shop", "instruction": "...", "instruction_by": "joined",
        "start_url": "/sites/shop/orders", "parts": ["p1", "p2"], "via": [None, "home"],
        "macros": ["filter_by_dropdown", "count_entries"], "turns": turns, "answer": turns[-1]["answer"],
        "version": "v6", "executor": "replay", "budget": 40, "planner_turns": 25,
        "response_format": script.response_format,
    }  # fmt: skip
    io.write_json(d / "episode.json", episode)
    result = {
        "key": KEY,
        "site": "shop",
        "parts": ["p1", "p2"],
        "via": [None, "home"],
        "ok": True,
        "error": None,
    }
    io.write_jsonl(raw / "results.jsonl", [result], sort_keys=True)
    return d


async def test_run_chains_rows_pass_the_checks(tmp_path):
    d = await _write_chain(tmp_path / "raw")
    chain = check_chain(d, KEY, SIZE)
    assert isinstance(chain, Chain), chain
    assert list(chain.images) == ["step_0.png", "step_1.png", "step_2.png", "step_3.png"]
    done = filter_rows(tmp_path / "raw", tmp_path / "out", tmp_path / "m", image_size=SIZE)
    assert [c.key for c in done.kept] == [KEY]
    assert io.read_json(tmp_path / "m" / "by_family.json")["Navigation"] == {"delegations": 1, "chains": 1}


async def test_run_chains_rows_broken_are_rejected(tmp_path):
    d = await _write_chain(tmp_path / "raw")
    rows = io.read_jsonl(d / "rows.jsonl")
    rows[3]["target"] = rows[3]["target"].replace("12", "eleven")  # the final text loses the answer
    io.write_jsonl(d / "rows.jsonl", rows)
    got = check_chain(d, KEY, SIZE)
    assert got.kind == "no_answer"
    (d / "step_2.png").write_bytes(png_bytes(*SIZE)[:-13])  # and an image loses its end
    assert check_chain(d, KEY, SIZE).kind == "bad_image"
