"""What a dialect of the planner's input is: it reads the page its way and writes the user message's text
(the request, the history, the page, the step info) as one agent version writes it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from plandvc.agent.dialects.page import PageView, capture, mark
from plandvc.agent.messages import Delegation, SnapshotLike


@dataclass(frozen=True)
class TurnInput:
    """What one planner turn's text is written from: the request, the history, the page (the snapshot, and
    the dialect's own view of it), the step, the cap and the site's day."""

    request: str
    history: list[Delegation]
    snap: SnapshotLike
    view: PageView | None
    step: int
    max_turns: int
    today: str


class Dialect(Protocol):
    """One agent version's input: `read` the page once a turn (None: the snapshot is enough), then `text`.

    A dialect object lives for one planner run: it may keep what it saw last (browser-use marks elements new
    since its last look at the same URL). `attributes` are the only attribute names its element lines show.
    """

    name: str
    attributes: tuple[str, ...]

    async def read(self, session: object) -> PageView | None: ...

    def text(self, t: TurnInput) -> str: ...


def page_of(session: object) -> object:
    """The Playwright page under a session (a run's TimedSession hands its session's page through)."""
    page = getattr(session, "page", None)
    if page is None:
        raise RuntimeError(
            f"{type(session).__name__} has no page: a browser-use dialect reads the page itself"
        )
    return page


class ReadsPage:
    """A browser-use dialect's `read`: page.js in `mode`, elements within `expansion` px numbered from `first`,
    those new since the last look at the same URL marked."""

    mode, expansion, first = "", 0, 0

    def __init__(self) -> None:
        self._last: tuple[str, set[str]] | None = None

    async def read(self, session: object) -> PageView:
        view = await capture(page_of(session), self.mode, self.expansion, self.first)  # type: ignore[arg-type]
        mark(view, self._last)
        self._last = (view.url, {n.key for n in view.interactive})
        return view
