"""A worker's sessions (plandvc/run/sessions.py) on the real server and real Chromium: the session opened
ahead is a fresh context of its own, and one opened on a browser that died since is never handed out."""

from __future__ import annotations

import asyncio
import os
import signal

import pytest

from plandvc.browser import Browser
from plandvc.run.sessions import Sessions

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def test_the_session_opened_ahead_is_fresh_and_closes_run_in_the_background(base: str) -> None:
    async with Browser() as b:
        sessions = Sessions(b, base)
        first = await sessions.take()
        sessions.open_ahead()
        second = await sessions.take()
        assert second is not first and second.context is not first.context and b.launches == 1
        sessions.release(first)
        sessions.release(second)
        await sessions.aclose()
        assert not b._browser.contexts  # every context was closed


async def test_a_session_opened_ahead_on_a_browser_that_died_is_dropped(base: str) -> None:
    async with Browser() as b:
        sessions = Sessions(b, base)
        sessions.open_ahead()
        await sessions._ahead[0]  # opened
        os.kill(b.chromium_pid(), signal.SIGKILL)
        for _ in range(200):  # until Playwright notices (a death not yet noticed is the runner's retry's)
            if not b.alive:
                break
            await asyncio.sleep(0.05)
        session = await sessions.take()
        assert b.launches == 2 and b.alive
        assert (await session.goto("/sites/" + "shop")) in (200, 404)  # a working page of the new browser
        sessions.release(session)
        await sessions.aclose()


async def test_aclose_drops_a_session_still_opening(base: str) -> None:
    async with Browser() as b:
        sessions = Sessions(b, base)
        sessions.open_ahead()
        await sessions.aclose()  # cancels or closes it: no context left behind
        assert not b._browser.contexts
