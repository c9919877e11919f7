"""`plandvc-v1`: the planner's input as plandvc wrote it before dialects (the snapshot's lines, its
`<agent_history>` and `<step_info>`), byte for byte: the rows of dataset v1 are made with it."""

from __future__ import annotations

from plandvc.agent.dialects.page import PageView
from plandvc.agent.messages import Delegation, SnapshotLike, planner_user_text
from plandvc.browser.snapshot import ATTR_ORDER


class PlandvcV1:
    """The snapshot's own lines; nothing read besides the snapshot."""

    name: str = "plandvc-v1"
    attributes: tuple[str, ...] = (*ATTR_ORDER, "label", "checked")

    async def read(self, session: object) -> PageView | None:
        return None

    def text(
        self,
        request: str,
        history: list[Delegation],
        snap: SnapshotLike,
        view: PageView | None,
        step: int,
        max_turns: int,
        today: str,
    ) -> str:
        return planner_user_text(request, history, snap, step, max_turns, today)
