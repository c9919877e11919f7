"""A worker's sessions: the next chain's fresh context is opened, and the last one closed, while the current
chain runs, so a worker's browser never idles on session set-up and tear-down.

Opening ahead changes nothing in the output: every session is a fresh context with its own server session
(cookie), and one opened on a browser that has since died or been relaunched is dropped, not used.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from plandvc.browser import Browser, Session

CLOSE_TIMEOUT_S = 10.0


class Sessions:
    """Fresh sessions on one worker's browser, one opened ahead; closes run in the background."""

    def __init__(self, browser: Browser, base: str) -> None:
        self.browser, self.base = browser, base
        self._ahead: tuple[asyncio.Task[Session], int] | None = None  # (opening, browser.launches then)
        self._closing: set[asyncio.Task[None]] = set()

    async def take(self) -> Session:
        """A fresh session: the one opened ahead when it is on the live browser, else a new one."""
        ahead, self._ahead = self._ahead, None
        if ahead is not None:
            task, launches = ahead
            try:
                session = await task
            except Exception:  # it failed to open (a dying browser): open one now
                session = None
            if session is not None:
                if self.browser.alive and self.browser.launches == launches:
                    return session
                self.release(session)
        return await self.browser.new_session(self.base)

    def open_ahead(self) -> None:
        """Start opening the next chain's session."""
        if self._ahead is None:
            task = asyncio.create_task(self.browser.new_session(self.base))
            self._ahead = (task, self.browser.launches)

    def release(self, session: Session) -> None:
        """Close `session` (reset its server state, close its context) in the background."""
        task = asyncio.create_task(_close(session))
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)

    async def aclose(self) -> None:
        """Drop the session opened ahead and wait for every close."""
        if self._ahead is not None:
            task, _ = self._ahead
            self._ahead = None
            task.cancel()
            with contextlib.suppress(BaseException):
                session = await task
                await _close(session)
        if self._closing:
            await asyncio.gather(*self._closing, return_exceptions=True)


async def _close(session: Session) -> None:
    with contextlib.suppress(Exception):
        await asyncio.wait_for(session.close(), CLOSE_TIMEOUT_S)
