"""eval-specs and eval-planner end to end: a dozen held-out chains walked on the test site and run in real
Chromium, then the reference planners served over real HTTP and reached through the real `openai` client.

The scores are exact: the oracle 1.0 teacher-forced and closed-loop, always-done exactly the share of turns
that are the `done` of a chain asking no question (closed loop 0). A delegation off the script ends its
episode at that turn; a planner that is down is one error before anything is written; garbage, server errors
and time-outs are counted, never a crash.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from openai_double import HANG, Hold, OpenAIDouble

from plandvc import io
from plandvc.agent.schema import RESPONSE_FORMAT, SCHEMA
from plandvc.eval.client import Asking, PlannerClient, PlannerUnavailable
from plandvc.eval.closed import LoopConfig
from plandvc.eval.reference import Oracle, PlannerServer
from plandvc.eval.run import EvalConfig, evaluate
from plandvc.eval.specs import SpecsConfig, eval_specs, load_held_out
from plandvc.ports import free_ports

ROOT = Path(__file__).resolve().parents[1]
POOL, SITES = ROOT / "data" / "pool", ROOT / "data" / "sites"
N = 12


def specs_config(root: Path, out: str) -> SpecsConfig:
    return SpecsConfig(POOL, SITES, root / out, n=N, seed=0, workers=2, cache=root / "cache")


@pytest.fixture(scope="module")
def specs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A dozen held-out chains (eval-specs on the committed pool), built once for the module."""
    root = tmp_path_factory.mktemp("eval")
    summary = eval_specs(specs_config(root, "eval"))
    assert summary["held_out"] == N, summary
    return root / "eval"


def tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def config(specs: Path, out: Path, mode: str = "both", **kw: Any) -> EvalConfig:
    return EvalConfig(
        specs=specs,
        out=out / "run",
        metrics=out / "eval.json",
        loop=kw.pop("loop", LoopConfig(POOL, SITES)),
        mode=mode,
        **kw,
    )


def test_held_out_chains_walk_only_the_test_sites(specs: Path) -> None:
    split = io.read_json(SITES / "site_split.json")
    chains = load_held_out(specs)
    assert len(chains) == N and {c.line["site"] for c in chains} <= set(split["test"])
    training_ids = {r["id"] for r in io.read_jsonl(POOL / "kept.jsonl") if r["site"] in split["train"]}
    assert not {p for c in chains for p in c.line["parts"]} & training_ids
    assert {r["site"] for r in io.read_jsonl(specs / "items.jsonl")} == set(split["test"])
    summary = io.read_json(specs / "summary.json")
    assert summary["records_dropped"]["train_site"] > 0  # the training sites were there, and left out
    for c in chains:  # one row a turn, each row's input the planner's, with its screenshot
        rows = io.read_jsonl(c.dir / "rows.jsonl")
        assert len(rows) == len(c.turns)
        assert all((c.dir / f"step_{r['step']}.png").is_file() for r in rows)
    # written twice, the same bytes (the chains come from run-chains' cache here: that a fresh run of the
    # same chains gives the same bytes is run-chains' own test)
    again = eval_specs(specs_config(specs.parent, "again"))
    assert again == summary and tree(specs) == tree(specs.parent / "again")


def test_teacher_forced_reference_scores_are_exact(specs: Path, tmp_path: Path) -> None:
    chains = load_held_out(specs)
    turns = sum(len(c.turns) for c in chains)
    done_plain = sum(1 for c in chains if not c.asks)  # the done of a chain asking no question
    assert 0 < done_plain < turns and any(c.asks for c in chains)

    oracle = evaluate(config(specs, tmp_path / "o", "teacher-forced", reference="oracle"))["teacher_forced"]
    assert (oracle["correct"], oracle["turns"], oracle["step_accuracy"]) == (turns, turns, 1.0)
    assert (oracle["correct_lenient"], oracle["invalid_replies"]) == (turns, 0)

    done = evaluate(config(specs, tmp_path / "d", "teacher-forced", reference="always-done"))[
        "teacher_forced"
    ]
    assert (done["correct"], done["turns"]) == (done_plain, turns)
    assert done["by_family"]["done"]["correct"] == done_plain
    assert all(g["correct"] == 0 for k, g in done["by_family"].items() if k != "done")

    rand = evaluate(config(specs, tmp_path / "r", "teacher-forced", reference="random-family"))
    again = evaluate(config(specs, tmp_path / "r2", "teacher-forced", reference="random-family"))
    assert 0 < rand["teacher_forced"]["correct"] < turns
    assert rand == again
    # random-family delegates the whole request: a right family is right only by the lenient rule
    assert rand["teacher_forced"]["correct"] < rand["teacher_forced"]["correct_lenient"]
    copy = evaluate(config(specs, tmp_path / "c", "teacher-forced", reference="copy"))["teacher_forced"]
    assert 0 < copy["correct"] <= copy["correct_lenient"] < turns
    # outputs are a function of the inputs: the same planner gives the same bytes
    for name in ("replies.jsonl", "metrics.json"):
        assert (tmp_path / "r" / "run" / name).read_bytes() == (tmp_path / "r2" / "run" / name).read_bytes()
    reply = io.read_jsonl(tmp_path / "o" / "run" / "replies.jsonl")[0]
    assert reply["score"]["correct"] and reply["expected"]["kind"] == "delegate"


@pytest.mark.slow
def test_closed_loop_reference_scores_are_exact(specs: Path, tmp_path: Path) -> None:
    oracle = evaluate(config(specs, tmp_path / "o", "closed-loop", reference="oracle"))["closed_loop"]
    assert (oracle["success"], oracle["episodes"], oracle["success_rate"]) == (N, N, 1.0)
    assert oracle["ends"] == {"success": N} and oracle["off_script_at_turn"] == {}
    done = evaluate(config(specs, tmp_path / "d", "closed-loop", reference="always-done"))["closed_loop"]
    assert (done["success"], done["success_rate"], done["steps_done"]) == (0, 0.0, 0)
    assert sum(done["ends"].values()) == N and "success" not in done["ends"]


def test_off_script_delegation_ends_the_episode_at_that_turn(specs: Path, tmp_path: Path) -> None:
    chains = load_held_out(specs)[:2]
    oracle = Oracle(chains)

    def planner(messages: list[dict[str, Any]]) -> str:
        """The oracle, but turn 2 of the first chain goes to the wrong family, and turn 1 of the second
        leaves a value of its part out."""
        reply = json.loads(oracle(messages))
        step = messages[1]["content"][0]["text"]
        params = reply["action"][0].get("delegate")
        if chains[0].line["request"] in step and "Step 2 of" in step:
            params["family"] = next(f for f in ("Filter", "Navigation") if f != params["family"])
        if chains[1].line["request"] in step and "Step 1 of" in step:
            params["instruction"] = "Do the first part."
        return json.dumps(reply)

    with PlannerServer(planner, "scripted") as server:
        m = evaluate(
            config(specs, tmp_path, "closed-loop", planner_url=server.url, planner_model="scripted", limit=2)
        )
    cl = m["closed_loop"]
    assert cl["ends"] == {"off_script": 2} and cl["success"] == 0
    assert cl["off_script_at_turn"] == {"1": 1, "2": 1}
    episodes = {e["key"]: e for e in io.read_jsonl(tmp_path / "run" / "episodes.jsonl")}
    first, second = episodes[chains[0].line["key"]], episodes[chains[1].line["key"]]
    assert (first["off_script_turn"], first["steps_done"], first["turns"]) == (2, 1, 2)
    assert "family" in first["detail"]
    assert (second["off_script_turn"], second["steps_done"]) == (1, 0)
    assert "leaves out" in second["detail"]


def flipped(instruction: str) -> str:
    """A sort's instruction with its direction flipped (every direction word the composer or a task says)."""
    pairs = [("descending", "ascending"), ("highest", "lowest"), ("newest", "oldest"), ("Z to A", "A to Z")]
    for a, b in pairs:
        for x, y in ((a, b), (b, a)):
            if x in instruction:
                return instruction.replace(x, y)
    raise AssertionError(f"no direction in {instruction!r}")


def test_the_closed_loop_refuses_a_flipped_direction(specs: Path, tmp_path: Path) -> None:
    """The oracle's own step with its sort direction flipped keeps every value, and the closed loop still does
    not carry it out: the episode ends off script at that turn, no specialist run for it. (The chains before it
    go off script at their first turn, so only the one chain with a sort runs.)"""
    chains = load_held_out(specs)
    at = next(
        (i, k) for i, c in enumerate(chains) for k, t in enumerate(c.turns) if t.macro == "sort_by_form"
    )
    chain, turn = chains[at[0]], at[1] + 1
    oracle = Oracle(chains)

    def planner(messages: list[dict[str, Any]]) -> str:
        reply = json.loads(oracle(messages))
        step = messages[1]["content"][0]["text"]
        params = reply["action"][0].get("delegate")
        if chain.line["request"] not in step:
            params = reply["action"][0] = {"delegate": {"family": "Form", "instruction": "Do it all."}}
        elif f"Step {turn} of" in step:
            params["instruction"] = flipped(params["instruction"])
        return json.dumps(reply)

    with PlannerServer(planner, "scripted") as server:
        m = evaluate(
            config(
                specs,
                tmp_path,
                "closed-loop",
                planner_url=server.url,
                planner_model="scripted",
                limit=at[0] + 1,
            )
        )
    episodes = {e["key"]: e for e in io.read_jsonl(tmp_path / "run" / "episodes.jsonl")}
    ep = episodes[chain.line["key"]]
    assert m["closed_loop"]["success"] == 0 and ep["end"] == "off_script"
    assert (ep["off_script_turn"], ep["steps_done"]) == (turn, turn - 1)
    assert "meaning: sorts" in ep["detail"] and "leaves out" not in ep["detail"]


def test_a_planner_that_is_down_is_one_error_before_anything_runs(specs: Path, tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{free_ports(1)[0]}/v1"
    p = subprocess.run(
        [sys.executable, "-m", "plandvc", "eval-planner", "--specs", str(specs), "--pool", str(POOL),
         "--sites", str(SITES), "--out", str(tmp_path / "out"), "--metrics", str(tmp_path / "eval.json"),
         "--planner-url", url, "--planner-model", "m", "--retries", "0"],
        capture_output=True, text=True, cwd=ROOT, timeout=120,
    )  # fmt: skip
    assert p.returncode == 1
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and f"no OpenAI-compatible server answers at {url}" in lines[0], p.stderr
    assert not (tmp_path / "out").exists() and not (tmp_path / "eval.json").exists()
    with OpenAIDouble(models=("other",)) as api, pytest.raises(PlannerUnavailable, match="it serves: other"):
        evaluate(config(specs, tmp_path, planner_url=api.url, planner_model="m"))


def test_no_planner_writes_skipped_outputs(specs: Path, tmp_path: Path) -> None:
    assert evaluate(config(specs, tmp_path)) == {"skipped": "no planner_url"}
    assert io.read_json(tmp_path / "eval.json") == {"skipped": "no planner_url"}
    assert io.read_jsonl(tmp_path / "run" / "replies.jsonl") == []


async def test_retries_timeouts_and_a_refused_response_format_are_counted() -> None:
    with OpenAIDouble(models=("m",)) as api:
        client = await PlannerClient.connect(api.url, "m", Asking(timeout=0.5, retries=1, backoff=0.01))
        try:
            api.script(500, "first")  # a passing 500 is retried in the same form
            assert await client.reply([{"role": "user", "content": "x"}]) == ("first", None)
            assert client.format == "json_schema"
            api.script(HANG, HANG)
            assert await client.reply([{"role": "user", "content": "x"}]) == (None, "timed out")
            assert api.requests[-1]["response_format"] == RESPONSE_FORMAT
            api.script(400, 400, "plain")  # json_schema and json_object refused at once: no format
            assert await client.reply([{"role": "user", "content": "x"}]) == ("plain", None)
            assert "response_format" not in api.requests[-1] and client.format == "none"
        finally:
            await client.close()
    assert client.traffic["retries"] == 2 and client.traffic["timeouts"] == 2
    assert client.traffic["failed"] == 1 and client.traffic["replies"] == 3
    assert (
        client.traffic["format_refused_json_schema"] == 1
        and client.traffic["format_refused_json_object"] == 1
    )


def like_llama_cpp_python(body: dict[str, Any]) -> str | int:
    """llama-cpp-python's server: `json_schema` fails its request validation with a 500; `json_object` with a
    schema is answered (the reply says which form came)."""
    form = (body.get("response_format") or {}).get("type", "none")
    return 500 if form == "json_schema" else f"form {form}"


async def test_a_server_that_refuses_json_schema_with_a_500_gets_json_object_with_the_schema() -> None:
    x = [{"role": "user", "content": "x"}]
    with OpenAIDouble(models=("m",)) as api:
        client = await PlannerClient.connect(api.url, "m", Asking(retries=1, backoff=0.01))
        try:
            api.script(*[like_llama_cpp_python] * 4)
            assert await client.reply(x) == ("form json_object", None)
            assert client.format == "json_object"
            assert api.requests[-1]["response_format"] == {"type": "json_object", "schema": SCHEMA}
            assert await client.reply(x) == ("form json_object", None)  # found once, kept
            api.script(400, 400)  # a request refused in every lesser form failed itself: the form stays
            assert await client.reply(x) == (None, "HTTP 400")
            assert client.format == "json_object"
        finally:
            await client.close()
    forms = [(r.get("response_format") or {}).get("type", "none") for r in api.requests]
    assert forms == ["json_schema", "json_schema", "json_object", "json_object", "json_object", "none"]
    assert client.traffic["retries"] == 1 and client.traffic["format_refused_json_schema"] == 1
    assert client.traffic["failed"] == 1


async def test_replies_sent_together_find_the_form_once() -> None:
    """Many replies at once (teacher-forced turns): one finds the form, none of the others is sent in a refused
    form, and after it they go in parallel again."""
    with OpenAIDouble(models=("m",)) as api:
        client = await PlannerClient.connect(api.url, "m", Asking(retries=1, backoff=0.01, concurrency=4))
        try:
            api.script(*[like_llama_cpp_python] * 3, *[Hold("held")] * 5)
            sent = asyncio.gather(*(client.reply([{"role": "user", "content": f"{i}"}]) for i in range(6)))
            assert await asyncio.to_thread(api.wait_in_flight, 4)  # the other five go 4 at a time
            api.release()
            got = await sent
        finally:
            await client.close()
    assert got == [("form json_object", None)] + [("held", None)] * 5
    forms = [(r.get("response_format") or {}).get("type", "none") for r in api.requests]
    assert forms == ["json_schema", "json_schema"] + ["json_object"] * 6, forms


def test_garbage_replies_are_scored_invalid(specs: Path, tmp_path: Path) -> None:
    garbage = ["", "Filter, please.", '{"memory": "x"}', "```json\n{oops}\n```", "500"]
    n = sum(len(c.turns) for c in load_held_out(specs)[:2])
    with OpenAIDouble(models=("m",)) as api:
        api.script(*(garbage * n)[:n])
        m = evaluate(
            config(specs, tmp_path, "teacher-forced", planner_url=api.url, planner_model="m", limit=2)
        )
    tf = m["teacher_forced"]
    assert (tf["turns"], tf["correct"], tf["invalid_replies"], tf["valid"]) == (n, 0, n, 0.0)
    assert all(not r["score"]["valid"] for r in io.read_jsonl(tmp_path / "run" / "replies.jsonl"))


def handmade_held_out(root: Path, request: str, turns: list[dict[str, Any]], answer: object) -> Path:
    """A held-out folder written by hand: one chain, its specs.jsonl line and a row a turn (text only)."""
    key = "plan-school-hand"
    line = {"key": key, "site": "school", "parts": ["a", "b", "c"], "via": [None, "page", "page"],
            "request": request, "answer": answer, "turns": turns}  # fmt: skip
    (root / "raw" / key).mkdir(parents=True)
    (root / "specs.jsonl").write_text(json.dumps(line) + "\n")
    rows = []
    for t in range(len(turns)):
        text = (
            f"<user_request>\n{request}\n</user_request>\n<agent_history>\n...\n</agent_history>\n"
            f"<step_info>\nStep {t + 1} of 25\nToday: 2026-01-01\n</step_info>"
        )
        messages = [
            {"role": "system", "content": "sys"},
            {"role": "user", "content": [{"type": "text", "text": text}]},
        ]
        rows.append(json.dumps({"step": t, "messages": messages}))
    (root / "raw" / key / "rows.jsonl").write_text("\n".join(rows) + "\n")
    return root


def test_copy_served_over_http_copies_one_sentence_a_turn(tmp_path: Path) -> None:
    """The copy reference through the real server and client: sentence k at turn k, then done with the question
    as its text. Right on the two delegations, wrong on the done (the text lacks the answer 3)."""
    physics = 'Show only the courses whose Department is "Physics".'
    ask = "How many courses are there?"
    turns = [
        {"kind": "delegate", "family": "Filter", "instruction": physics, "macro": "filter_by_dropdown"},
        {"kind": "delegate", "family": "Information", "instruction": ask, "macro": "count_entries"},
        {"kind": "done", "family": None, "instruction": None, "macro": None, "answer": 3},
    ]
    specs = handmade_held_out(tmp_path / "specs", f"{physics} Then how many courses are there?", turns, 3)
    text_only = LoopConfig(POOL, SITES, images=False)
    m = evaluate(config(specs, tmp_path, "teacher-forced", reference="copy", loop=text_only))
    replies = [json.loads(r["reply"]) for r in io.read_jsonl(tmp_path / "run" / "replies.jsonl")]
    assert [r["action"][0] for r in replies] == [
        {"delegate": {"family": "Filter", "instruction": physics}},
        {"delegate": {"family": "Information", "instruction": ask}},
        {"done": {"text": ask, "success": True}},
    ]
    tf = m["teacher_forced"]
    assert m["planner"] == "reference:copy" and m["traffic"]["replies"] == 3
    assert (tf["correct"], tf["correct_lenient"], tf["turns"], tf["answer_kept"]) == (2, 2, 3, 0.0)
