"""What a dialect of the planner's input is: it reads the page its way, takes the screenshot as that agent
version sends it (browser-use 0.5 with its marks drawn, when asked), and writes the user message's text (the
request, the history, the page, the step info) as one agent version writes it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from plandvc.agent.dialects.page import PageView, capture, mark, unmark
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


class Shoots(Protocol):
    """A session as a dialect's `look` takes its screenshot."""

    async def screenshot(self) -> bytes: ...


@dataclass(frozen=True)
class Look:
    """One turn's look at the page: the dialect's view (None: the snapshot is enough) and the screenshot as
    the model sees it."""

    view: PageView | None
    shot: bytes


class Dialect(Protocol):
    """One agent version's input: `look` at the page once a turn (its view and its screenshot), then `text`.

    A dialect object lives for one planner run: it may keep what it saw last (browser-use marks elements new
    since its last look at the same URL). `attributes` are the only attribute names its element lines show;
    `marks` is whether its screenshots carry the agent's set-of-marks (only a dialect whose agent draws them).
    """

    name: str
    attributes: tuple[str, ...]
    marks: bool

    async def look(self, session: Shoots) -> Look: ...

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
    """A browser-use dialect's `look`: page.js in `mode`, elements within `expansion` px numbered from `first`,
    those new since the last look at the same URL starred; with `marks` (a dialect whose agent draws them:
    `draws_marks`), the same evaluate draws the agent's highlight boxes and indices, the screenshot is taken
    with them, and they are taken off the page again before anything acts on it (replays and gates never see
    them). Without marks the page is read and shot as before, with no other page work."""

    mode, expansion, first = "", 0, 0
    draws_marks = False
    # the viewport the agent reads and shoots the page in (None: the session's): the page is set to it for
    # the look and set back after it, at the scroll position it had
    viewport: tuple[int, int] | None = None

    def __init__(self, marks: bool = False) -> None:
        self._last: tuple[str, set[str]] | None = None
        self.marks = marks and self.draws_marks

    async def look(self, session: Shoots) -> Look:
        page = page_of(session)
        own = await _Viewport.set(page, self.viewport)
        try:
            view = await capture(page, self.mode, self.expansion, self.first, self.marks)  # type: ignore[arg-type]
            try:
                shot = await session.screenshot()
            finally:
                if self.marks:
                    await unmark(page)  # type: ignore[arg-type]
        finally:
            if own is not None:
                await own.restore()
        mark(view, self._last)
        self._last = (view.url, {n.key for n in view.interactive})
        return Look(view, shot)


class _Resizes(Protocol):
    """The page as a look resizes it (Playwright's Page)."""

    @property
    def viewport_size(self) -> dict[str, int] | None: ...

    async def set_viewport_size(self, viewport_size: dict[str, int]) -> None: ...

    async def evaluate(self, expression: str, arg: object = None) -> object: ...


@dataclass(frozen=True)
class _Viewport:
    """A page set to a dialect's viewport for one look: what to set back (its size and scroll position)."""

    page: _Resizes
    size: dict[str, int]
    scroll: list[int]

    @classmethod
    async def set(cls, page: object, want: tuple[int, int] | None) -> _Viewport | None:
        """Set `page` to `want` (None, or the size it has: nothing done, None returned)."""
        p: _Resizes = page  # type: ignore[assignment]
        size = p.viewport_size
        if want is None or size is None or (size["width"], size["height"]) == want:
            return None
        scroll = await p.evaluate("() => [window.scrollX, window.scrollY]")
        await p.set_viewport_size({"width": want[0], "height": want[1]})
        return cls(p, dict(size), list(scroll))  # type: ignore[call-overload]

    async def restore(self) -> None:
        await self.page.set_viewport_size(self.size)
        await self.page.evaluate("([x, y]) => window.scrollTo(x, y)", self.scroll)
