"""One browser worker and one attempt of a chain on it: what both engines run (the local engine in this
process, the Ray engine inside each browser actor), so a chain's output never depends on the engine.

`Worker` owns one browser and recovers it between attempts (Chromium relaunched, or a new Playwright
driver); `ServerWatch` restarts a site server found dead and counts the restarts, so an attempt knows
whether its server died under it; `attempt` is one try of a chain on a worker.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import Counter
from typing import TYPE_CHECKING

from plandvc.run.chain import ChainOutput, RunParams, base_result, run_chain
from plandvc.run.engine import Attempt
from plandvc.run.fingerprint import Environment
from plandvc.run.inputs import ChainJob
from plandvc.run.progress import Progress
from plandvc.run.sessions import Sessions

if TYPE_CHECKING:
    from plandvc.browser import Browser
    from plandvc.memory import MemoryModel
    from plandvc.sites.servers import Servers

RECOVER_TIMEOUT_S = 60.0  # a Chromium relaunch; past it the driver is taken as lost
CLOSE_TIMEOUT_S = 30.0


class ServerWatch:
    """The site servers, restarted when found dead, with a count of restarts per server (so a chain knows
    whether its server died under it)."""

    def __init__(self, servers: Servers | None, progress: Progress) -> None:
        self.servers, self.progress = servers, progress
        self.restarts: Counter[int] = Counter()

    def ensure_alive(self) -> None:
        if self.servers is None:
            return
        for i in self.servers.ensure_alive():
            self.restarts[i] += 1
            self.progress.note(f"site server on port {self.servers.ports[i]} was lost: restarted it")

    def server_of(self, w: int) -> int:
        """The server worker `w` uses."""
        return w % max(1, len(self.servers.ports) if self.servers else 1)


class Worker:
    """One browser (relaunched, or replaced with a fresh Playwright driver, when lost) and its sessions."""

    def __init__(self, w: int, base: str, headful: bool, progress: Progress) -> None:
        from plandvc.browser import Browser

        self.w, self.base, self.headful, self.progress = w, base, headful, progress
        self.browser = Browser(headless=not headful)
        self.sessions = Sessions(self.browser, base)
        self.generation = 0  # browsers replaced so far
        self._seen = (0, 0)  # the browser's (drivers, launches) when last looked at

    async def start(self) -> None:
        await self.browser.start()
        self._seen = (self.browser.drivers, self.browser.launches)

    async def recover(self) -> None:
        """Make the browser usable: relaunch Chromium if it died (with a new driver if the driver died too);
        if that fails, start a new Browser."""
        from plandvc.browser import Browser

        if not self.browser.alive:
            try:
                await asyncio.wait_for(self.browser.ensure_alive(), RECOVER_TIMEOUT_S)
            except Exception:
                await self.sessions.aclose()
                await close_quietly(self.browser)
                self.browser = Browser(headless=not self.headful)
                self.sessions = Sessions(self.browser, self.base)
                await self.browser.start()
                self.generation += 1
                self._seen = (self.browser.drivers, self.browser.launches)
                self.progress.note(f"worker {self.w}: the browser driver was lost: started a new one")
        self.note_relaunches()

    def note_relaunches(self) -> None:
        """Say when the browser was relaunched since the last look (here or inside a session's opening)."""
        drivers, launches = self.browser.drivers, self.browser.launches
        if (drivers, launches) == self._seen:
            return
        lost = (
            "the browser driver was lost: started a new one"
            if drivers > self._seen[0]
            else "chromium was lost: relaunched it"
        )
        self.generation += 1
        self._seen = (drivers, launches)
        self.progress.note(f"worker {self.w}: {lost}")

    def mark(self) -> tuple[int, int]:
        return self.generation, self.browser.launches

    def lost_since(self, mark: tuple[int, int]) -> bool:
        return not self.browser.alive or self.mark() != mark

    async def close(self) -> None:
        await self.sessions.aclose()
        await close_quietly(self.browser)


async def close_quietly(browser: Browser) -> None:
    with contextlib.suppress(Exception):
        await asyncio.wait_for(browser.close(), CLOSE_TIMEOUT_S)


def first_line(e: BaseException) -> str:
    """The first non-blank line of an error's message ("" when it has none)."""
    lines = [ln.strip() for ln in str(e).splitlines() if ln.strip()]
    return lines[0] if lines else ""


async def attempt(
    worker: Worker,
    watch: ServerWatch,
    job: ChainJob,
    params: RunParams,
    memory: MemoryModel | None,
    env: Environment,
    more: bool,
) -> Attempt:
    """Run `job` once on `worker` (recovering its browser first, restarting a dead server): a local worker
    and a Ray actor both call this, and the caller applies `verdict`. `more` says another chain follows on
    this worker (its context then opens while this one runs)."""
    server = watch.server_of(worker.w)
    watch.ensure_alive()
    restarts = watch.restarts[server]
    t_open = time.perf_counter()
    try:
        await worker.recover()
        session = await worker.sessions.take()
        worker.note_relaunches()
    except Exception as e:  # the browser cannot start: the machinery is lost for this attempt
        out = ChainOutput(
            base_result(job.chain, f"BrowserCrashed: {type(e).__name__}: {first_line(e)}"[:300])
        )
        session = None
    t_open = time.perf_counter() - t_open
    mark = worker.mark()
    if session is not None:
        if more:
            worker.sessions.open_ahead()  # the next chain's context opens while this one runs
        try:
            out = await run_chain(job.spec, job.parts, session, job.site, params, memory, env, job.sibling)
        finally:
            worker.sessions.release(session)
    if not out.result["ok"]:
        watch.ensure_alive()
    lost = session is None or worker.lost_since(mark) or watch.restarts[server] != restarts
    return Attempt(out, lost and not out.result["ok"], t_open)
