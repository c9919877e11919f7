"""The scripted planner: turn t answers with the chain's t-th step and records what the planner saw.

The memory of each turn comes from the chain's known decomposition (`template_memory`: at the first turn a
numbered checklist of the delegations, trips home left out, and the next step; later the previous step said done,
the count done and left, and the next step; at the end all items done and the answer); the final message from the memory model when one is configured, else a composed chain's own (`text` of its
`done` turn, plandvc.chains.compose), else the answer or "The task is done.".
In a recovery chain the failed attempt and its re-delegation are one checklist item: the turn after the failed
attempt says what failed and why (`FAILED`), and counts the item as not done yet.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import orjson

from plandvc.agent.schema import canonical, schema_of
from plandvc.memory.text import answer_text, fallback_final
from plandvc.records import Answer, Row, Turn

_DATA_URL = re.compile(r"^data:image/png;base64,")


class FinalWriter(Protocol):
    async def final(self, messages: list[dict], answer: Answer) -> tuple[str, str]: ...


def _short(text: str, n: int = 90) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= n else text[: n - 3].rstrip() + "..."


# what the planner's memory says after a failed attempt, by failure kind: what failed and why
FAILED = {
    "stopped_short": "The {family} step is not done: its report says the specialist stopped before the end.",
    "wrong_value": "The {family} step is not done: the report and the page show another value than asked.",
    "lost_work": "The {family} step is not done: its report says the form was left unsaved, so nothing changed.",
}


def _item(x: Turn) -> bool:
    """Whether a turn is a checklist item: a delegation, neither a trip home nor a failed attempt's redo."""
    return x["kind"] == "delegate" and x["macro"] != "navigate_home" and x.get("role") != "after_failure"


def template_memory(turns: list[Turn], t: int) -> str:
    """The planner's memory at turn t from the chain's decomposition; trips home are not checklist items."""
    items = [x for x in turns if _item(x)]
    turn = turns[t]
    if t == 0:
        check = " ".join(
            f"{i + 1}) {_short(x.get('plan', x['instruction']), 70)}" for i, x in enumerate(items)
        )  # a step whose values are found on the way is listed by its plan, not by values not yet known
        return f"Checklist: {check} Next: {turn['family']}: {_short(turn['instruction'])}"
    prev = turns[t - 1]
    done = sum(
        1 for x in turns[:t] if x["kind"] == "delegate" and x["macro"] != "navigate_home" and "fails" not in x
    )
    if "fails" in prev:
        said = FAILED[prev["fails"]].format(family=prev["family"])
    elif "found" in prev:
        said = f'The {prev["family"]} specialist found "{prev["found"]}".'
    elif prev["macro"] != "navigate_home":
        said = f"The {prev['family']} step is done, as its report and page check show."
    else:
        said = "The home page is open."
    if turn["kind"] == "done":
        ans = turn.get("answer")
        return f"{said} All {len(items)} checklist items are done." + (
            f" The answer is {ans}." if answer_text(ans) else ""
        )
    left = ", ".join(str(i + 1) for i in range(done, len(items)))
    return f"{said} Done: {done} of {len(items)}; left: {left}. Next: {turn['family']}: {_short(turn['instruction'])}"


def with_image_urls(messages: list[dict[str, Any]], url_of: Callable[[str], str]) -> list[dict[str, Any]]:
    """`messages` with each image part's URL replaced by `url_of(url)`, in order (a file name for a data URL
    when a row is written, the data URL for a file name when it is read back); the rest is kept as it is."""
    out = []
    for m in messages:
        content = m.get("content")
        if isinstance(content, list):
            parts = []
            for p in content:
                image = (p.get("image_url") or {}) if p.get("type") == "image_url" else None
                if image is not None and (url := url_of(str(image.get("url") or ""))) != image.get("url"):
                    p = {**p, "image_url": {**image, "url": url}}
                parts.append(p)
            m = {**m, "content": parts}
        out.append(m)
    return out


def save_images(messages: list[dict], t: int) -> tuple[list[dict], dict[str, bytes]]:
    """The messages with each image replaced by its file name (step_<t>.png, then step_<t>_<k>.png), and the
    PNG bytes by file name. Nothing is written here: the caller writes the files."""
    images: dict[str, bytes] = {}

    def file_name(url: str) -> str:
        if not (data := _DATA_URL.match(url)):
            return url
        name = f"step_{t}.png" if not images else f"step_{t}_{len(images)}.png"
        images[name] = base64.b64decode(url[data.end() :])
        return name

    return with_image_urls(messages, file_name), images


@dataclass
class PlannerScript:
    """The planner's model in the scripted run: `respond` answers turn t with the t-th step and keeps a row."""

    key: str
    turns: list[Turn]
    memory: FinalWriter | None = None
    wants_screenshot: bool = True
    t: int = 0
    rows: list[Row] = field(default_factory=list)
    images: dict[str, bytes] = field(default_factory=dict)
    response_format: dict[str, object] | None = None
    final_by: str | None = None

    async def respond(self, messages: list[dict], response_format: dict[str, object]) -> str:
        self.response_format = response_format
        if self.t >= len(self.turns):
            raise RuntimeError("script exhausted but the planner asked for another turn")
        turn = self.turns[self.t]
        if turn["kind"] == "delegate":
            action: dict[str, dict[str, object]] = {
                "delegate": {"family": turn["family"], "instruction": turn["instruction"]}
            }
        else:
            ans = turn.get("answer")
            if self.memory is not None:
                text, self.final_by = await self.memory.final(messages, ans)
            elif "text" in turn:  # a composed chain's final message
                text, self.final_by = turn["text"], "composed"
            else:
                text, self.final_by = fallback_final(ans), "fallback"
            action = {"done": {"text": text, "success": True}}
        target = canonical(
            {"memory": template_memory(self.turns, self.t), "action": [action]}, schema_of(response_format)
        )
        content = orjson.dumps(target).decode()
        msgs, images = save_images(messages, self.t)
        self.images.update(images)
        self.rows.append(
            {
                "task_id": self.key,
                "step": self.t,
                "segment": self.t,
                "macro": turn.get("macro"),
                "family": "planner",
                "op": turn["kind"],
                "delegated": turn.get("family"),
                "messages": msgs,
                "target": content,
            }
        )
        if "role" in turn:
            self.rows[-1]["role"] = turn["role"]
        self.t += 1
        return content

    @property
    def finished(self) -> bool:
        return self.t == len(self.turns)
