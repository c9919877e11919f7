"""The scripted planner's pure parts: memory templates, image naming, targets that follow the schema."""

from __future__ import annotations

import base64

import orjson
import pytest

from plandvc.agent.schema import RESPONSE_FORMAT, SCHEMA, errors, key_order_errors
from plandvc.memory import fallback_final
from plandvc.run.script import PlannerScript, save_images, template_memory

TURNS = [
    {
        "kind": "delegate",
        "family": "Filter",
        "instruction": 'Show only orders whose Status is "Shipped".',
        "macro": "filter_by_dropdown",
    },
    {
        "kind": "delegate",
        "family": "Navigation",
        "instruction": "Go to the home page of Shop with the site's own home link.",
        "macro": "navigate_home",
    },
    {
        "kind": "delegate",
        "family": "Information",
        "instruction": "How many customers are there?",
        "macro": "count_entries",
    },
    {"kind": "done", "answer": "12"},
]
PNG = b"\x89PNG\r\n\x1a\nfake"


def test_template_memory_follows_the_decomposition():
    first = template_memory(TURNS, 0)
    assert first.startswith("Checklist: 1) Show only orders")
    assert "2) How many customers" in first and "Go to the home page" not in first  # trips home are not items
    assert first.endswith('Next: Filter: Show only orders whose Status is "Shipped".')
    assert template_memory(TURNS, 1) == (
        "The Filter step is done, as its report and page check show. Done: 1 of 2; left: 2. "
        "Next: Navigation: Go to the home page of Shop with the site's own home link."
    )
    assert template_memory(TURNS, 2).startswith("The home page is open. Done: 1 of 2; left: 2.")
    assert template_memory(TURNS, 3) == (
        "The Information step is done, as its report and page check show. All 2 checklist items are done. "
        "The answer is 12."
    )


def test_long_instructions_are_shortened():
    turns = [
        {"kind": "delegate", "family": "Form", "instruction": "word " * 60, "macro": "create_entry"},
        {"kind": "done", "answer": None},
    ]
    assert template_memory(turns, 0).endswith("...")
    assert template_memory(turns, 1).endswith("All 1 checklist items are done.")


def test_save_images_names_each_image_by_turn():
    url = "data:image/png;base64," + base64.b64encode(PNG).decode()
    msgs = [
        {"role": "system", "content": "s"},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "t"},
                {"type": "image_url", "image_url": {"url": url}},
                {"type": "image_url", "image_url": {"url": url}},
            ],
        },
    ]
    out, images = save_images(msgs, 3)
    assert [p.get("image_url", {}).get("url") for p in out[1]["content"]] == [
        None,
        "step_3.png",
        "step_3_1.png",
    ]
    assert images == {"step_3.png": PNG, "step_3_1.png": PNG}
    assert msgs[1]["content"][1]["image_url"]["url"] == url  # the input is not modified


async def test_script_answers_each_turn_then_refuses():
    script = PlannerScript("plan-shop-x", TURNS)
    for t, turn in enumerate(TURNS):
        target = orjson.loads(await script.respond([{"role": "user", "content": "x"}], RESPONSE_FORMAT))
        assert errors(target, SCHEMA) == [] and key_order_errors(target, SCHEMA) == []
        assert (
            script.rows[t]["op"] == turn["kind"] and script.rows[t]["target"] == orjson.dumps(target).decode()
        )
    assert target["action"][0]["done"] == {"text": "12", "success": True}
    assert script.finished and script.final_by == "fallback"
    with pytest.raises(RuntimeError, match="script exhausted"):
        await script.respond([], RESPONSE_FORMAT)


def test_fallback_final_keeps_a_zero_answer():
    assert fallback_final("42") == "42" and fallback_final(None) == "The task is done."
    assert fallback_final(0) == "0"
    turns = [TURNS[0], {"kind": "done", "answer": 0}]
    assert template_memory(turns, 1).endswith("The answer is 0.")
