"""MemoryModel against a real OpenAI-protocol HTTP server (tests/openai_double.py) through the real openai client."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from openai_double import DROP, HANG, Hold, OpenAIDouble

from plandvc.memory import MERGE_ASK, MemoryModel, MemoryUnavailable, connect_or_none, joined
from plandvc.memory.text import final_prompt
from plandvc.ports import free_ports

MODEL = "qwen35-4b"
PARTS = ['Show only the orders whose Status is "Shipped".', "Set Max total to 120 and apply it."]
GOOD_MERGE = 'Show only the orders whose Status is "Shipped" and set Max total to 120.'
PLANNER = [
    {"role": "system", "content": "You are the planner."},
    {
        "role": "user",
        "content": [
            {"type": "text", "text": "<user_request>How many orders are shipped?</user_request>"},
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}},
        ],
    },
]


@pytest.fixture
def api() -> Iterator[OpenAIDouble]:
    with OpenAIDouble(models=(MODEL, "other-model")) as double:
        yield double


@pytest.fixture
async def memory(api: OpenAIDouble) -> AsyncIterator[MemoryModel]:
    model = await MemoryModel.connect(api.url, MODEL, timeout=2.0, retries=2, backoff=0.01)
    yield model
    await model.close()


def temperatures(api: OpenAIDouble) -> list[float]:
    return [r["temperature"] for r in api.requests]


# ── rewrite (a composed request) ──

COMPOSED = 'I\'m looking for orders whose status is "Shipped", with total up to 120. How many are there?'


async def test_a_composed_request_is_rewritten_when_its_values_are_kept(
    api: OpenAIDouble, memory: MemoryModel
) -> None:
    good = 'How many "Shipped" orders are there with a total of at most 120?'
    api.script(good)
    assert await memory.rewrite(COMPOSED) == (good, "rewritten")
    (body,) = api.requests
    assert COMPOSED in body["messages"][0]["content"]


@pytest.mark.parametrize(
    ("reply", "reason"),
    [("How many shipped orders are there under 120?", "rewrite_dropped_value"), ("", "rewrite_empty")],
)
async def test_a_bad_rewrite_keeps_the_composed_request(
    api: OpenAIDouble, memory: MemoryModel, reply: str, reason: str
) -> None:
    api.script(reply)
    assert await memory.rewrite(COMPOSED) == (COMPOSED, "composed")
    assert memory.stats == {reason: 1}


# ── merge ──


async def test_a_good_merge_is_accepted(api: OpenAIDouble, memory: MemoryModel) -> None:
    api.script(GOOD_MERGE)
    assert await memory.merge(PARTS) == (GOOD_MERGE, "merged")
    (body,) = api.requests
    assert body["model"] == MODEL and body["temperature"] == 0 and body["max_completion_tokens"] == 300
    assert body["messages"] == [
        {"role": "user", "content": MERGE_ASK.format(items=f"1. {PARTS[0]}\n2. {PARTS[1]}")}
    ]
    assert not memory.stats


async def test_a_merge_answered_in_fences_or_json_is_cleaned(api: OpenAIDouble, memory: MemoryModel) -> None:
    api.script(f"```\n{GOOD_MERGE}\n```", json.dumps({"request": GOOD_MERGE}))
    assert await memory.merge(PARTS) == (GOOD_MERGE, "merged")
    assert await memory.merge(PARTS) == (GOOD_MERGE, "merged")


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        ("Show only the orders whose Status is shipped and set Max total to 120.", "merge_dropped_value"),
        ('Show only the orders whose Status is "Shipped" and set Max total to 150.', "merge_dropped_value"),
        ('Show the "Shipped" orders and set the total to 120.', "merge_dropped_value"),  # "Status", "Max"
        (GOOD_MERGE + " Please also be careful and thorough." * 6, "merge_too_long"),
        ("", "merge_empty"),
    ],
    ids=["drops-a-value", "changes-a-number", "drops-labels", "far-too-long", "empty"],
)
async def test_a_bad_merge_falls_back_to_the_joined_parts(
    api: OpenAIDouble, memory: MemoryModel, reply: str, reason: str
) -> None:
    api.script(reply)
    text, how = await memory.merge(PARTS)
    assert (text, how) == (joined(PARTS), "joined")
    assert memory.stats == {reason: 1}


async def test_a_single_part_is_not_sent(api: OpenAIDouble, memory: MemoryModel) -> None:
    assert await memory.merge(PARTS[:1]) == (PARTS[0], "joined")
    assert api.requests == [] and not memory.stats


# ── final message ──


async def test_a_final_message_is_asked_in_the_planners_conversation(
    api: OpenAIDouble, memory: MemoryModel
) -> None:
    api.script("I checked the list: 7 orders are shipped.")
    assert await memory.final(PLANNER, 7) == ("I checked the list: 7 orders are shipped.", "model")
    (body,) = api.requests
    assert body["temperature"] == 0 and body["max_completion_tokens"] == 320
    assert body["messages"] == [  # text kept, the screenshot dropped (the model takes no images)
        {"role": "system", "content": "You are the planner."},
        {"role": "user", "content": "<user_request>How many orders are shipped?</user_request>"},
        {"role": "user", "content": final_prompt(7)},
    ]


async def test_images_are_kept_when_the_model_takes_them(api: OpenAIDouble) -> None:
    async with await MemoryModel.connect(api.url, MODEL, images=True, backoff=0.01) as memory:
        api.script("7 orders are shipped.")
        assert await memory.final(PLANNER, "7") == ("7 orders are shipped.", "model")
    assert api.requests[0]["messages"][1]["content"] == PLANNER[1]["content"]


@pytest.mark.parametrize(
    "reply",
    [
        '{"memory": "Done.", "action": [{"done": {"text": "There are 7 shipped orders.", "success": true}}]}',
        '```json\n{"final_message": "There are 7 shipped orders."}\n```',
        "```\nThere are 7 shipped orders.\n```",
        "assistant: There are 7 shipped orders.<|im_end|>\n<|im_start|>user\nthanks",
    ],
    ids=["memory-action-object", "final-message-in-fences", "fences", "leaked-turn"],
)
async def test_a_wrapped_final_message_is_cleaned(api: OpenAIDouble, memory: MemoryModel, reply: str) -> None:
    api.script(reply)
    assert await memory.final(PLANNER, "7") == ("There are 7 shipped orders.", "model")


async def test_a_final_missing_the_answer_is_retried_hotter_then_falls_back(
    api: OpenAIDouble, memory: MemoryModel
) -> None:
    api.script("All done.", "The orders were counted.", '{"final_message": "Finished."}')
    assert await memory.final(PLANNER, "7") == ("7", "fallback")
    assert temperatures(api) == [0, 0.7, 0.7]
    assert memory.stats == {"final_missing_answer": 1}


async def test_a_final_retried_hotter_can_succeed(api: OpenAIDouble, memory: MemoryModel) -> None:
    api.script("All done.", "I counted SEVEN... no: 7 orders.")
    assert await memory.final(PLANNER, "7") == ("I counted SEVEN... no: 7 orders.", "model")
    assert temperatures(api) == [0, 0.7]
    assert not memory.stats


async def test_a_final_without_answer_takes_any_text_and_empty_falls_back(
    api: OpenAIDouble, memory: MemoryModel
) -> None:
    api.script("I sorted the orders by date.", "", "```\n```", "<think>hmm</think>")
    assert await memory.final(PLANNER, None) == ("I sorted the orders by date.", "model")
    assert await memory.final(PLANNER, None) == ("The task is done.", "fallback")
    assert memory.stats == {"final_empty": 1}


# ── transient errors, timeouts, concurrency ──


async def test_500s_then_success_are_retried(api: OpenAIDouble, memory: MemoryModel) -> None:
    api.script(500, 503, GOOD_MERGE)
    assert await memory.merge(PARTS) == (GOOD_MERGE, "merged")
    assert len(api.requests) == 3 and temperatures(api) == [0, 0, 0]
    assert memory.traffic["retries"] == 2 and not memory.stats


async def test_a_rate_limit_and_a_reset_connection_are_retried(
    api: OpenAIDouble, memory: MemoryModel
) -> None:
    api.script(429, DROP, "7 orders are shipped.")
    assert await memory.final(PLANNER, "7") == ("7 orders are shipped.", "model")
    assert len(api.requests) == 3 and memory.traffic["retries"] == 2


async def test_500s_always_are_a_counted_fallback(api: OpenAIDouble, memory: MemoryModel) -> None:
    api.script(*[500] * 6)
    assert await memory.merge(PARTS) == (joined(PARTS), "joined")
    assert await memory.final(PLANNER, "7") == ("7", "fallback")
    assert len(api.requests) == 6  # 1 try + 2 retries each, no more
    assert memory.stats == {"merge_error": 1, "final_error": 1}


async def test_a_client_error_is_not_retried(api: OpenAIDouble, memory: MemoryModel) -> None:
    api.script(400)
    assert (await memory.merge(PARTS))[1] == "joined"
    assert len(api.requests) == 1 and memory.stats == {"merge_error": 1}


async def test_a_hang_times_out_retries_and_falls_back_fast(api: OpenAIDouble) -> None:
    memory = await MemoryModel.connect(api.url, MODEL, timeout=0.3, retries=1, backoff=0.01)
    api.script(HANG, HANG)
    start = time.monotonic()
    assert await memory.final(PLANNER, "7") == ("7", "fallback")
    elapsed = time.monotonic() - start
    await memory.close()
    assert len(api.requests) == 2 and memory.traffic["timeouts"] == 2
    assert memory.stats == {"final_error": 1}
    assert 0.6 <= elapsed < 5.0  # two timeouts of 0.3 s, not the 30 s default


@pytest.mark.parametrize("concurrency", [2, 6])
async def test_requests_are_bounded_by_the_concurrency(api: OpenAIDouble, concurrency: int) -> None:
    memory = await MemoryModel.connect(api.url, MODEL, concurrency=concurrency, backoff=0.01)
    api.script(*[Hold(GOOD_MERGE)] * 6)
    merges = asyncio.gather(*(memory.merge(PARTS) for _ in range(6)))
    assert await asyncio.to_thread(api.wait_in_flight, concurrency)
    # with the bound below 6, a 3rd request never arrives while 2 are held (the check would see it at once)
    assert await asyncio.to_thread(api.wait_in_flight, concurrency + 1, 0.3) is False
    api.release()
    assert await merges == [(GOOD_MERGE, "merged")] * 6
    await memory.close()
    assert api.max_in_flight == concurrency


# ── connecting ──


async def test_a_server_down_at_start_is_a_clear_error() -> None:
    (port,) = free_ports(1)  # free, and nobody listens once closed
    start = time.monotonic()
    with pytest.raises(MemoryUnavailable) as e:
        await MemoryModel.connect(f"http://127.0.0.1:{port}/v1", MODEL, retries=2, backoff=0.01)
    msg = str(e.value)
    assert f"http://127.0.0.1:{port}/v1" in msg and "no OpenAI-compatible server answers" in msg
    assert "\n" not in msg and time.monotonic() - start < 5.0


async def test_a_model_not_served_is_a_clear_error(api: OpenAIDouble) -> None:
    with pytest.raises(MemoryUnavailable) as e:
        await MemoryModel.connect(api.url, "qwen35-9b")
    assert str(e.value) == (
        f"memory model: 'qwen35-9b' is not served at {api.url} (it serves: other-model, {MODEL})"
    )


async def test_a_server_that_is_no_openai_server_is_a_clear_error(api: OpenAIDouble) -> None:
    url = api.url.removesuffix("/v1") + "/api"  # answers 404 to GET /api/models
    with pytest.raises(MemoryUnavailable, match=r"GET /models: HTTP 404"):
        await MemoryModel.connect(url, MODEL)


async def test_connect_or_none(api: OpenAIDouble) -> None:
    assert await connect_or_none("", MODEL) is None
    assert await connect_or_none("  ", MODEL) is None
    memory = await connect_or_none(api.url.removesuffix("/v1"), MODEL)  # bare host:port means .../v1
    assert memory is not None and memory.url == api.url
    await memory.close()
    with pytest.raises(MemoryUnavailable, match=r"memory\.model is empty"):
        await connect_or_none(api.url, "")
    with pytest.raises(MemoryUnavailable, match="not an http"):
        await connect_or_none("127.0.0.1:8400", MODEL)
    for url in ("http://[::1", "http://127.0.0.1:99999", "http://127.0.0.1:80x"):  # were tracebacks
        with pytest.raises(MemoryUnavailable, match="not an http"):
            await connect_or_none(url, MODEL)


async def test_an_api_key_from_the_environment_is_sent(
    api: OpenAIDouble, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[str] = []
    api.script(lambda body: seen.append(str(body["model"])) or GOOD_MERGE)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    async with await MemoryModel.connect(api.url, MODEL) as memory:
        assert memory.client.api_key == "sk-test"
        assert (await memory.merge(PARTS))[1] == "merged"
    monkeypatch.delenv("OPENAI_API_KEY")
    async with await MemoryModel.connect(api.url, MODEL) as memory:
        assert memory.client.api_key == "EMPTY"
    assert seen == [MODEL]


# ── the double as a standalone process (for the lead's end-to-end run) ──


async def test_the_double_runs_standalone_in_echo_merge_mode() -> None:
    script = Path(__file__).with_name("openai_double.py")
    proc = subprocess.Popen(
        [sys.executable, str(script), "--port", "0", "--mode", "echo-merge"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        line = await asyncio.to_thread(proc.stdout.readline)  # type: ignore[union-attr]
        assert line.startswith("listening on http://127.0.0.1:")
        async with await MemoryModel.connect(line.split()[-1], MODEL) as memory:
            merged, how = await memory.merge(PARTS)
            assert how == "merged"
            assert (
                merged
                == 'Show only the orders whose Status is "Shipped", then Set Max total to 120 and apply it.'
            )
            assert await memory.final(PLANNER, 7) == ("Done: 7", "model")
            assert await memory.final(PLANNER, None) == ("Done: the task is complete.", "model")
    finally:
        proc.terminate()
        assert proc.wait(timeout=10) == 0
