"""The viewer's pages in real Chromium from file://: a module-wide browser, a fresh context per test, and a
watch for what a page must not do (console errors, requests outside file://). Shared by the viewer tests."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from playwright.async_api import Browser, Page, async_playwright

from plandvc.browser.chromium import chromium_path

HEADLESS_SHELL = "/usr/bin/chromium-headless-shell"
CHROMIUM = HEADLESS_SHELL if os.path.exists(HEADLESS_SHELL) else chromium_path()
in_chromium = pytest.mark.asyncio(loop_scope="module")  # the async tests share the module's browser


class Watch:
    """What a page does that it must not: console errors, uncaught exceptions, requests outside file://."""

    def __init__(self, page: Page) -> None:
        self.errors: list[str] = []
        self.outside: list[str] = []
        page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: self.errors.append(str(e)))
        page.on("request", lambda r: None if r.url.startswith("file://") else self.outside.append(r.url))

    def assert_clean(self) -> None:
        assert not self.errors, self.errors
        assert not self.outside, self.outside


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def pw_browser() -> AsyncIterator[Browser]:
    """A plain Playwright Chromium (not the harness's Browser), for pages tested on their own: the viewer's
    from file://, the sites' over HTTP."""
    async with async_playwright() as p:
        b = await p.chromium.launch(executable_path=CHROMIUM, headless=True)
        yield b
        await b.close()


@pytest_asyncio.fixture(loop_scope="module")
async def file_page(pw_browser: Browser) -> AsyncIterator[tuple[Page, Watch]]:
    ctx = await pw_browser.new_context(viewport={"width": 1400, "height": 900})
    pg = await ctx.new_page()
    watch = Watch(pg)
    yield pg, watch
    await ctx.close()


async def open_ready(pg: Page, path: Path, hash: str = "", script: bool = True) -> None:
    """Open a page from file:// and wait until its script has drawn it (pages without a script: loaded)."""
    await pg.goto(path.resolve().as_uri() + hash)
    if script:
        await pg.wait_for_selector("body[data-ready]", state="attached")
