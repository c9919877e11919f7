"""`plandvc-v1`: the planner's input as plandvc wrote it before dialects (the snapshot's lines, its
`<agent_history>` and `<step_info>`), byte for byte: the rows of dataset v1 are made with it."""

from __future__ import annotations

from plandvc.agent.dialects.base import TurnInput
from plandvc.agent.dialects.page import PageView
from plandvc.agent.messages import planner_user_text
from plandvc.browser.snapshot import ATTR_ORDER


class PlandvcV1:
    """The snapshot's own lines; nothing read besides the snapshot."""

    name: str = "plandvc-v1"
    attributes: tuple[str, ...] = (*ATTR_ORDER, "label", "checked")

    async def read(self, session: object) -> PageView | None:
        return None

    def text(self, t: TurnInput) -> str:
        return planner_user_text(t.request, t.history, t.snap, t.step, t.max_turns, t.today)
