"""The specialist: a browser-use style loop that does one delegated step with actions by element index.

Each step: a snapshot of the session, the messages (its family's system prompt, its task, its own earlier
steps, the page; a screenshot only when the model wants one), one reply `{memory, action: [one action]}`, and
that action run on the session — until `done` or `max_steps`. A replayed model reads no images, so then no
screenshot is taken at all. A failed action, a model that raises (a replay's ElementNotFound) or a bad reply
ends the step as failed: that is its result, reported to the planner as in evaluation.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Protocol

from plandvc.agent.messages import (
    SnapshotLike,
    parse_reply,
    path_of,
    read_reply,
    specialist_messages,
)
from plandvc.agent.model import Model
from plandvc.agent.prompts import specialist_system
from plandvc.agent.schema import SPECIALIST_ACTIONS, SPECIALIST_RESPONSE_FORMAT, SPECIALIST_SCHEMA
from plandvc.browser.actions import perform
from plandvc.browser.protocol import ActionSession, SessionRecord
from plandvc.records import ParamValue


class SessionLike(ActionSession, SessionRecord, Protocol):
    """The part of a browser session the agent drives: the specialist actions, the page as a snapshot and as
    a screenshot, and the session's record a replayed specialist reads (docs/STAGES.md, "Browser
    harness")."""

    async def snapshot(self) -> SnapshotLike: ...
    async def screenshot(self) -> bytes: ...


@dataclass(frozen=True)
class SpecialistResult:
    """How a specialist's step went: its done text and answer, steps taken, and why it failed if it did.

    `ok` is true only when it finished with `done` and success; `out_of_steps` when it never said done.
    `url` (path?query) and `title` are where the page is at its end ("" when the page could not be read).
    """

    done_text: str | None
    answer: ParamValue
    steps: int
    ok: bool
    error: str | None
    out_of_steps: bool = False
    url: str = ""
    title: str = ""


async def where(session: SessionLike) -> tuple[str, str]:
    """Where the page is now, (path?query, title), read afresh; ("", "") when the page cannot be read."""
    try:
        snap = await session.snapshot()
    except Exception:  # a page that cannot be read is reported as unknown
        return "", ""
    return path_of(snap.url), snap.title


def describe(name: str, params: dict[str, ParamValue]) -> str:
    """An action as its history line shows it, e.g. `click {"index": 3}`."""
    return f"{name} {json.dumps(params, ensure_ascii=False, sort_keys=True)}"


async def execute(session: SessionLike, name: str, params: dict[str, ParamValue]) -> None:
    """Run one (non-done) specialist action on the session, as the action table says."""
    await perform(session, name, params)


def _problems(reply: object, found: list[str]) -> list[str]:
    """Schema errors, with an unknown action named plainly (anyOf errors alone are hard to read)."""
    actions = reply.get("action") if isinstance(reply, dict) else None
    if not (isinstance(actions, list) and actions and isinstance(actions[0], dict)):
        return found
    names = list(actions[0])
    unknown = [n for n in names if n not in SPECIALIST_ACTIONS]
    return [f"unknown action {n!r}" for n in unknown] or found


class Specialist:
    """One family's specialist doing `instruction` on `session` in at most `max_steps` steps."""

    def __init__(
        self,
        session: SessionLike,
        model: Model,
        family: str,
        instruction: str,
        max_steps: int,
        version: str = "v6",
    ) -> None:
        self.session, self.model = session, model
        self.family, self.instruction, self.max_steps = family, instruction, max_steps
        self.system = specialist_system(version, family)
        self.history: list[str] = []  # its own earlier steps, as its next messages show them

    async def run(self) -> SpecialistResult:
        snap: SnapshotLike | None = None
        for step in range(1, self.max_steps + 1):
            snap = await self.session.snapshot()
            shot = await self.session.screenshot() if self.model.wants_screenshot else None
            messages = specialist_messages(
                self.system, self.instruction, self.history, snap, step, self.max_steps, shot
            )
            try:
                text = await self.model.respond(messages, SPECIALIST_RESPONSE_FORMAT)
            except Exception as e:  # e.g. a replay's ElementNotFound: the specialist failed, as in evaluation
                return await self._failed(step, f"no reply: {type(e).__name__}: {e}")
            parsed, found = parse_reply(text, SPECIALIST_SCHEMA)
            if found:
                return await self._failed(step, "bad reply: " + "; ".join(_problems(parsed, found)))
            reply = read_reply(parsed)
            name, params = reply.name, reply.params
            if name == "done":
                return SpecialistResult(
                    done_text=reply.text("text"),
                    answer=params["answer"],
                    steps=step,
                    ok=reply.flag("success"),
                    error=None if reply.flag("success") else "the specialist reported failure",
                    url=path_of(snap.url),
                    title=snap.title,
                )
            try:
                await execute(self.session, name, params)
            except Exception as e:  # StaleIndexError, ActionError, ...: the step failed; the planner hears it
                return await self._failed(step, f"{describe(name, params)} failed: {type(e).__name__}: {e}")
            self.history.append(f"Memory: {reply.memory}\nAction: {describe(name, params)}")
        return await self._failed(
            self.max_steps, f"ran out of steps ({self.max_steps}) before done", out=True
        )

    async def _failed(self, steps: int, error: str, out: bool = False) -> SpecialistResult:
        """A failed result, with where the page is now (read afresh: the last action may have moved it)."""
        url, title = await where(self.session)
        return SpecialistResult(None, None, steps, False, error, out_of_steps=out, url=url, title=title)
