"""`plandvc-v1`: the planner's input as plandvc wrote it before dialects (the snapshot's lines, its
`<agent_history>` and `<step_info>`), byte for byte: the rows of dataset v1 are made with it."""

from __future__ import annotations

from plandvc.agent.dialects.base import Look, Shoots, TurnInput
from plandvc.agent.messages import planner_user_text
from plandvc.browser.snapshot import ATTR_ORDER


class PlandvcV1:
    """The snapshot's own lines and the plain screenshot; nothing read besides the snapshot."""

    name: str = "plandvc-v1"
    attributes: tuple[str, ...] = (*ATTR_ORDER, "label", "checked")

    def __init__(self, marks: bool = False) -> None:
        self.marks = False  # plandvc's own input has no marks

    async def look(self, session: Shoots) -> Look:
        return Look(None, await session.screenshot())

    def text(self, t: TurnInput) -> str:
        return planner_user_text(t.request, t.history, t.snap, t.step, t.max_turns, t.today)
