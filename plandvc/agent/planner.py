"""The planner agent: one turn per step, each turn a snapshot and a screenshot of the session, the messages,
one model reply `{memory, action: [one action]}`, and the action — a delegation to the team or done.

A reply that does not parse or breaks the schema is recorded and the turn retried once with the error fed
back (as browser-use does); a second bad reply fails the run. The turn cap fails it too. Exceptions from the
model or the team (a dead browser, an out-of-script delegation) are not the agent's results: they propagate.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from plandvc.agent.dialects import DEFAULT as DEFAULT_DIALECT
from plandvc.agent.dialects import dialect as make_dialect
from plandvc.agent.dialects.base import TurnInput
from plandvc.agent.messages import (
    Delegation,
    Messages,
    Reply,
    parse_reply,
    planner_conversation,
    read_reply,
    retry_messages,
)
from plandvc.agent.model import Model
from plandvc.agent.prompts import version as prompt_version
from plandvc.agent.schema import RESPONSE_FORMAT, schema_of
from plandvc.agent.specialist import SessionLike
from plandvc.agent.team import Report, Team

TURN_CAP = "turn cap reached"


@dataclass
class PlannerResult:
    """How a planner run ended: turns taken, the done text and success, the bad replies, and why it stopped."""

    turns: int = 0
    done_text: str | None = None
    success: bool = False
    errors: list[str] = field(default_factory=list)  # one line per bad reply: "turn N: ..."
    reason: str | None = None  # why a failed run stopped (None after done with success)
    history: list[Delegation] = field(default_factory=list)
    reports: list[Report] = field(default_factory=list)


class Planner:
    """The planner of `version` asking `model` for each step of `request` on `session`, delegating to `team`.

    `today` is the site's date shown in `<step_info>`; `max_turns` defaults to the version's cap; `dialect`
    (plandvc.agent.dialects) writes the user message's text, `plandvc-v1` the rows of dataset v1, and takes
    its screenshot (with `marks`, browser-use-0.5's set-of-marks drawn on it).
    """

    def __init__(
        self,
        session: SessionLike,
        request: str,
        model: Model,
        team: Team,
        version: str = "v6",
        today: str = "",
        max_turns: int | None = None,
        dialect: str = DEFAULT_DIALECT,
        marks: bool = False,
    ) -> None:
        spec = prompt_version(version)
        self.session, self.request, self.model, self.team = session, request, model, team
        self.version, self.today = version, today
        self.system: str = spec["system"]
        self.max_turns: int = spec["max_turns"] if max_turns is None else max_turns
        self.schema = schema_of(RESPONSE_FORMAT)
        self.dialect = make_dialect(dialect, marks)

    async def run(self) -> PlannerResult:
        res = PlannerResult()
        for turn in range(1, self.max_turns + 1):
            res.turns = turn
            snap = await self.session.snapshot()
            look = await self.dialect.look(self.session)
            text = self.dialect.text(
                TurnInput(self.request, res.history, snap, look.view, turn, self.max_turns, self.today)
            )
            messages = planner_conversation(self.system, text, look.shot)
            reply = await self._reply(messages, turn, res)
            if reply is None:
                res.reason = f"turn {turn}: no valid reply after a retry"
                return res
            if reply.name == "done":
                res.done_text, res.success = reply.text("text"), reply.flag("success")
                res.reason = None if res.success else "the planner finished with success false"
                return res
            family, instruction = reply.text("family"), reply.text("instruction")
            report = await self.team.run_step(family, instruction)
            res.reports.append(report)
            res.history.append(Delegation(reply.memory, family, instruction, report.text))
        res.reason = TURN_CAP
        return res

    async def _reply(self, messages: Messages, turn: int, res: PlannerResult) -> Reply | None:
        """A valid reply for this turn, retrying once with feedback; None when both replies are bad."""
        for attempt in (1, 2):
            text = await self.model.respond(messages, RESPONSE_FORMAT)
            reply, problems = parse_reply(text, self.schema)
            if not problems:
                return read_reply(reply)
            res.errors.append(f"turn {turn}: " + "; ".join(problems))
            if attempt == 1:
                messages = retry_messages(messages, text, problems)
        return None
