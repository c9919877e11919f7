"""What the models read each step, and how their replies are read back.

browser-use style: the conversation each turn is `[system, user(turn t)]`; the history lives in the user
message's `<agent_history>`, not in earlier chat turns. Every text is deterministic (no clocks, no absolute
paths; URLs as path?query), so the same page and history give the same bytes.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol, cast
from urllib.parse import urlsplit

from plandvc.agent.model import ImagePart, TextPart
from plandvc.agent.model import Messages as Messages  # the agent reads it from here too
from plandvc.agent.schema import errors
from plandvc.records import ParamValue, ReplyRecord


class SnapshotLike(Protocol):
    """What the messages read from a `plandvc.browser` Snapshot."""

    @property
    def url(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def scroll_y(self) -> float: ...
    @property
    def page_height(self) -> float: ...

    def render(self) -> str: ...


@dataclass(frozen=True)
class Delegation:
    """One earlier planner step as its history shows it: the planner's memory, the step, and the report."""

    memory: str
    family: str
    instruction: str
    report: str


def path_of(url: str) -> str:
    """`url` as path?query (no scheme, host or port: those differ between runs and workers)."""
    parts = urlsplit(url)
    path = parts.path or "/"
    return f"{path}?{parts.query}" if parts.query else path


def browser_state(snap: SnapshotLike) -> str:
    """The `<browser_state>` block: URL, title, scroll position and the indexed interactive elements."""
    elements = snap.render().strip() or "(no interactive elements)"
    return (
        "<browser_state>\n"
        f"URL: {path_of(snap.url)}\n"
        f"Title: {snap.title}\n"
        f"Scroll: {round(snap.scroll_y)} of {round(snap.page_height)} px page height\n"
        f"Interactive elements:\n{elements}\n"
        "</browser_state>"
    )


def image_part(png: bytes) -> ImagePart:
    """A screenshot as an OpenAI-style image part."""
    return {
        "type": "image_url",
        "image_url": {"url": "data:image/png;base64," + base64.b64encode(png).decode()},
    }


def agent_history(steps: list[Delegation]) -> str:
    """The `<agent_history>` block: each earlier delegation and its report, numbered from 1."""
    if not steps:
        return "<agent_history>\nNo steps yet.\n</agent_history>"
    body = "\n".join(
        f"<step_{n}>\nMemory: {s.memory}\nDelegated to {s.family}: {s.instruction}\nReport: {s.report}\n</step_{n}>"
        for n, s in enumerate(steps, 1)
    )
    return f"<agent_history>\n{body}\n</agent_history>"


def planner_user_text(
    request: str, history: list[Delegation], snap: SnapshotLike, step: int, max_turns: int, today: str
) -> str:
    """The text of the planner's user message at turn `step` (counted from 1)."""
    return "\n".join(
        [
            f"<user_request>\n{request}\n</user_request>",
            agent_history(history),
            browser_state(snap),
            f"<step_info>\nStep {step} of {max_turns}\nToday: {today}\n</step_info>",
        ]
    )


def planner_messages(
    system: str,
    request: str,
    history: list[Delegation],
    snap: SnapshotLike,
    screenshot: bytes,
    step: int,
    max_turns: int,
    today: str,
) -> Messages:
    """The planner's conversation at turn `step`: `[system, user(text + screenshot)]`."""
    return planner_conversation(
        system, planner_user_text(request, history, snap, step, max_turns, today), screenshot
    )


def planner_conversation(system: str, text: str, screenshot: bytes) -> Messages:
    """`[system, user(text + screenshot)]`: the planner's conversation of one turn, whatever its dialect."""
    return [
        {"role": "system", "content": system},
        {"role": "user", "content": [{"type": "text", "text": text}, image_part(screenshot)]},
    ]


def specialist_messages(
    system: str,
    task: str,
    own_steps: list[str],
    snap: SnapshotLike,
    step: int,
    max_steps: int,
    screenshot: bytes | None,
) -> Messages:
    """The specialist's conversation at its step `step`: its task, its own earlier steps, the page; the
    screenshot part only when one was taken (a replayed model takes none)."""
    history = (
        "\n".join(f"<step_{n}>\n{s}\n</step_{n}>" for n, s in enumerate(own_steps, 1))
        if own_steps
        else "No steps yet."
    )
    text = "\n".join(
        [
            f"<task>\n{task}\n</task>",
            f"<agent_history>\n{history}\n</agent_history>",
            browser_state(snap),
            f"<step_info>\nStep {step} of {max_steps}\n</step_info>",
        ]
    )
    content: list[TextPart | ImagePart] = [{"type": "text", "text": text}]
    if screenshot is not None:
        content.append(image_part(screenshot))
    return [{"role": "system", "content": system}, {"role": "user", "content": content}]


def retry_messages(messages: Messages, reply: str, problems: list[str]) -> Messages:
    """`messages` with the bad reply and the error fed back, as browser-use retries a step."""
    feedback = (
        "Your last reply was not valid: "
        + "; ".join(problems)
        + ". Reply again with one JSON object in the required output format."
    )
    return [*messages, {"role": "assistant", "content": reply}, {"role": "user", "content": feedback}]


_FENCE = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.S)


@dataclass(frozen=True)
class Reply:
    """A reply that fits its schema (planner's or specialist's), read once: the memory and its one action,
    `name` with its `params`."""

    memory: str
    name: str
    params: dict[str, ParamValue]

    def text(self, key: str) -> str:
        """A string parameter (`family`, `instruction`, done's `text`)."""
        value = self.params[key]
        if not isinstance(value, str):
            raise TypeError(f"{self.name}.{key}: {value!r} is not a string")
        return value

    def flag(self, key: str) -> bool:
        """A boolean parameter (done's `success`)."""
        value = self.params[key]
        if not isinstance(value, bool):
            raise TypeError(f"{self.name}.{key}: {value!r} is not a boolean")
        return value


def read_reply(obj: object) -> Reply:
    """`obj`, a parsed reply in which `parse_reply` found no problem, as a Reply (the schema checked its shape,
    so it is not checked again here)."""
    valid = cast(ReplyRecord, obj)
    ((name, params),) = valid["action"][0].items()
    return Reply(valid["memory"], name, dict(params))


def parse_reply(text: str, schema: Mapping[str, object]) -> tuple[object, list[str]]:
    """The reply as JSON and what breaks `schema` in it; `(None, [reason])` when it does not parse."""
    raw = (text or "").strip()
    fenced = _FENCE.match(raw)
    if fenced:
        raw = fenced.group(1)
    try:
        obj = json.loads(raw)
    except ValueError as e:
        return None, [f"not JSON ({e.__class__.__name__}: {e})"]
    return obj, errors(obj, schema)
