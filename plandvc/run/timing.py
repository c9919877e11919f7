"""Where a chain's time goes: a session proxy that adds up the seconds spent in each harness call.

Timings are measurements, not outputs: they go to the run log and the benchmark, never into the rows.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager

from plandvc.browser.actions import Params, perform
from plandvc.browser.protocol import SessionProtocol
from plandvc.browser.snapshot import Snapshot
from plandvc.records import BackendState, Event


class Clock:
    """Seconds by phase, for one chain."""

    def __init__(self) -> None:
        self.seconds: defaultdict[str, float] = defaultdict(float)

    @contextmanager
    def phase(self, name: str) -> Iterator[None]:
        t0 = time.perf_counter()
        try:
            yield
        finally:
            self.seconds[name] += time.perf_counter() - t0

    def rounded(self) -> dict[str, float]:
        return {k: round(v, 4) for k, v in sorted(self.seconds.items())}


class TimedSession:
    """The harness session with its calls timed by phase: what the planner reads each turn (screenshots), the
    snapshots, the specialist actions, the gates' backend reads and the page loads of the preparation. It
    has exactly the session's protocol (`plandvc.browser.protocol.SessionProtocol`); the session's record
    (events, pages seen, clipboard, last snapshot) is the session's own, read through."""

    def __init__(self, session: SessionProtocol, clock: Clock) -> None:
        self._session, self._clock = session, clock

    # the session's record, shared (not copied): prep clears it in place
    @property
    def url(self) -> str:
        return self._session.url

    @property
    def last_snapshot(self) -> Snapshot | None:
        return self._session.last_snapshot

    @property
    def events(self) -> list[Event]:
        return self._session.events

    @property
    def seen(self) -> list[str]:
        return self._session.seen

    @property
    def clipboard(self) -> list[str]:
        return self._session.clipboard

    @property
    def page(self) -> object:
        """The session's Playwright page, for a dialect that reads the page itself (plandvc.agent.dialects)."""
        return getattr(self._session, "page", None)

    # timed calls
    async def snapshot(self) -> Snapshot:
        with self._clock.phase("snapshots"):
            return await self._session.snapshot()

    async def read(self, selector: str) -> list[tuple[str, str]]:
        with self._clock.phase("specialist_actions"):
            return await self._session.read(selector)

    async def screenshot(self) -> bytes:
        with self._clock.phase("planner_capture"):
            return await self._session.screenshot()

    async def backend_state(self, site: str | None = None) -> BackendState:
        with self._clock.phase("gates"):
            return await self._session.backend_state(site)

    async def goto(self, path_or_url: str) -> int | None:
        with self._clock.phase("prepare"):
            return await self._session.goto(path_or_url)

    async def close(self) -> None:
        await self._session.close()

    async def _act(self, name: str, params: Params) -> None:
        with self._clock.phase("specialist_actions"):
            await perform(self._session, name, params)

    async def click(self, index: int) -> None:
        await self._act("click", {"index": index})

    async def input(self, index: int, text: str) -> None:
        await self._act("input", {"index": index, "text": text})

    async def select(self, index: int, value: str) -> None:
        await self._act("select", {"index": index, "value": value})

    async def set_range(self, index: int, value: float | int | str) -> None:
        await self._act("set_range", {"index": index, "value": value})

    async def scroll(self, dy: int) -> None:
        await self._act("scroll", {"dy": dy})

    async def go_to(self, url: str) -> None:
        await self._act("go_to", {"url": url})

    async def back(self) -> None:
        await self._act("back", {})
