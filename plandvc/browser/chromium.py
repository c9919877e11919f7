"""`Browser`: one Debian Chromium per worker, driven by Playwright, relaunched when it dies.

A chain gets a `Session` (a fresh context) from `new_session()`; contexts are cheap, a browser is not, so a
worker keeps one browser for all its chains and only relaunches it after a crash.

Headless runs use Debian's `chromium-headless-shell` (the old headless shell, the same Chromium version,
what Playwright itself uses for headless runs): it renders the same pixels and DOM as the full browser at
about half its CPU, as it has no browser UI, profile or window machinery to run. `--headful` runs use the
full `chromium`; `PLANDVC_CHROMIUM` overrides both. The binary's name and version go into the environment
every output records.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from pathlib import Path

from playwright.async_api import Browser as PwBrowser
from playwright.async_api import BrowserContext, Playwright, async_playwright
from playwright.async_api import Error as PlaywrightError

from plandvc.browser.errors import BrowserError, ChromiumMissingError
from plandvc.browser.session import Session, _first_line

DEFAULT_CHROMIUM = "/usr/bin/chromium"  # the full browser: headful runs
HEADLESS_SHELL = "/usr/bin/chromium-headless-shell"  # headless runs
CHROMIUM_ARGS = (
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
    "--disable-gpu",
    # a tile invalidated after its first raster is rastered again whole, not only the changed rect: a partial
    # re-raster can give an anti-aliased edge it crosses (a rounded corner under a dimmed dialog) a channel
    # value one apart, and whether a first raster happens before the page's last change depends on the
    # machine's load (bench/shots.py: 10 of 290 captures differed without it on a loaded machine, 0 of 160 with it)
    "--disable-partial-raster",
)
VIEWPORT = (1280, 800)
# opening a context and page takes well under a second; a browser killed at the wrong moment can leave
# Playwright's new_page waiting forever, so setup and teardown are bounded and a hang means "relaunch"
SETUP_TIMEOUT_S = 30.0
CLOSE_TIMEOUT_S = 10.0


def chromium_path(chromium: str | None = None, headless: bool = True) -> str:
    """The Chromium to launch: the argument, else PLANDVC_CHROMIUM, else Debian's headless shell for a
    headless run and Debian's full chromium for a headful one."""
    return (
        chromium or os.environ.get("PLANDVC_CHROMIUM") or (HEADLESS_SHELL if headless else DEFAULT_CHROMIUM)
    )


class Browser:
    """One Chromium (Playwright, `executable_path`), shared by the sessions of one worker."""

    def __init__(self, chromium: str | None = None, headless: bool = True) -> None:
        self.chromium = chromium_path(chromium, headless)
        self.headless = headless
        self.launches = 0  # how many times Chromium was (re)started
        self.drivers = 0  # how many Playwright drivers were started (more than 1: a lost one was replaced)
        self._pw: Playwright | None = None
        self._browser: PwBrowser | None = None
        self._lock = asyncio.Lock()
        # a switch Chromium ignores, so this browser's own process can be found (chromium_pid)
        self._marker = f"--plandvc-browser={os.getpid()}-{id(self):x}"

    async def __aenter__(self) -> Browser:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @property
    def alive(self) -> bool:
        return self._browser is not None and self._browser.is_connected()

    @property
    def version(self) -> str | None:
        """Chromium's version, once launched (recorded in every output's environment)."""
        return self._browser.version if self._browser is not None else None

    @property
    def binary(self) -> str:
        """The name of the Chromium executable (`chromium-headless-shell`, `chromium`; never its path)."""
        return Path(self.chromium).name

    async def start(self) -> None:
        """Launch Chromium (a clear one-line error when it is missing)."""
        async with self._lock:
            if not self.alive:
                await self._launch()

    async def ensure_alive(self) -> bool:
        """Relaunch Chromium if it died; True when it was relaunched."""
        async with self._lock:
            if self.alive:
                return False
            await self._launch()
            return True

    async def _launch(self) -> None:
        path = Path(self.chromium)
        if not (path.is_file() and os.access(path, os.X_OK)):
            raise ChromiumMissingError(self.chromium)
        await self._drop_browser()
        for attempt in range(2):
            if self._pw is None:
                self._pw = await async_playwright().start()
                self.drivers += 1
            try:
                self._browser = await self._pw.chromium.launch(
                    executable_path=self.chromium,
                    headless=self.headless,
                    args=[*CHROMIUM_ARGS, self._marker],
                )
                break
            except PlaywrightError as e:
                if attempt == 1:
                    first = str(e.message).strip().splitlines()[0] if e.message else type(e).__name__
                    raise BrowserError(f"chromium at {self.chromium} failed to start: {first}") from None
                # the driver itself may be gone (killed, crashed): the launch then fails at once with
                # "Target ... has been closed"; a new driver gets the second try
                await self._stop_driver()
        self.launches += 1

    async def new_session(self, base: str, viewport: tuple[int, int] = VIEWPORT) -> Session:
        """A fresh context and page on `base` (relaunching Chromium first if it died, or if opening the
        session fails or hangs once: Chromium died between the liveness check and the call)."""
        for attempt in range(2):
            await self.ensure_alive()
            used = self._browser
            try:
                return await asyncio.wait_for(self._open(base, viewport), SETUP_TIMEOUT_S)
            except (PlaywrightError, TimeoutError) as e:
                if attempt == 1:
                    why = "timed out" if isinstance(e, TimeoutError) else _first_line(e)
                    raise BrowserError(f"chromium at {self.chromium}: cannot open a session: {why}") from None
                async with self._lock:
                    if self._browser is used:
                        await self._launch()
        raise AssertionError("unreachable")

    async def _open(self, base: str, viewport: tuple[int, int]) -> Session:
        context = await self.new_context(viewport)
        try:
            return await Session.open(context, base)
        except BaseException:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(context.close(), CLOSE_TIMEOUT_S)
            raise

    async def new_context(self, viewport: tuple[int, int] = VIEWPORT) -> BrowserContext:
        """A bare Playwright context with the harness's settings (a session's, without its clipboard)."""
        assert self._browser is not None
        return await self._browser.new_context(
            viewport={"width": viewport[0], "height": viewport[1]},
            device_scale_factor=1,
            locale="en-US",
            timezone_id="UTC",
            reduced_motion="reduce",
        )

    def chromium_pid(self) -> int | None:
        """The process id of this browser's main Chromium process (None when it is not running).

        A wrapper script that runs Chromium as its child (Debian's chromium-headless-shell does) carries
        the same switches: of such a pair, the child is Chromium."""
        found: dict[int, int] = {}  # pid -> parent pid, of the processes with this browser's switch
        for proc in Path("/proc").iterdir():
            if not proc.name.isdigit():
                continue
            try:
                args = (proc / "cmdline").read_bytes().split(b"\0")
                parent = int((proc / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            if self._marker.encode() in args and not any(a.startswith(b"--type=") for a in args):
                found[int(proc.name)] = parent
        chromium = [pid for pid in found if pid not in found.values()]
        return min(chromium) if chromium else None

    async def _drop_browser(self) -> None:
        """Close the browser; if it does not close in time (a half-dead Chromium), kill its process."""
        if self._browser is not None:
            try:
                await asyncio.wait_for(self._browser.close(), CLOSE_TIMEOUT_S)
            except (PlaywrightError, TimeoutError):
                pass
            self._browser = None
        if (pid := self.chromium_pid()) is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)

    async def _stop_driver(self) -> None:
        """Stop the Playwright driver (quietly, in bounded time: it may be dead already)."""
        if self._pw is not None:
            pw, self._pw = self._pw, None
            with contextlib.suppress(Exception):
                await asyncio.wait_for(pw.stop(), CLOSE_TIMEOUT_S)

    async def close(self) -> None:
        """Close Chromium and the Playwright driver."""
        async with self._lock:
            await self._drop_browser()
            if self._pw is not None:
                await self._pw.stop()
                self._pw = None
