"""Run by browser-use 0.5.0's own venv (.venv-bu05): attach to the test's Chromium over CDP once, then for each
URL read on stdin print browser-use 0.5.0's own element lines of the page showing it as one JSON line
(DomService with its BrowserProfile's defaults, viewport expansion 500 and highlighting on: with highlighting off
its buildDomTree never passes a highlighted parent down, so nested elements get numbers the agent never shows).
Each stage is logged on stderr, so the test names the stage a hang is in. Importing browser-use takes tens of seconds here, which is why
one process serves every page."""

from __future__ import annotations

import asyncio
import json
import sys
import time

T0 = time.monotonic()


def log(stage: str) -> None:
    print(f"[{time.monotonic() - T0:.1f}s] {stage}", file=sys.stderr, flush=True)


log("importing browser_use")
from browser_use.dom.service import DomService  # noqa: E402
from playwright.async_api import Browser, Page, async_playwright  # noqa: E402


def the_page(browser: Browser, url: str) -> Page:
    """The test's page: the one showing `url`, or the only page (its URL event may not have arrived yet)."""
    pages = [p for c in browser.contexts for p in c.pages]
    hits = [p for p in pages if p.url == url] or pages
    if len(hits) != 1:
        raise RuntimeError(f"no single page for {url}: {[p.url for p in pages]}")
    return hits[0]


async def main(cdp: str) -> None:
    async with async_playwright() as pw:
        log("connecting over CDP")
        browser = await pw.chromium.connect_over_cdp(cdp)
        print(json.dumps({"ready": True}), flush=True)
        for line in sys.stdin:
            url = line.strip()
            log(f"reading {url}")
            page = the_page(browser, url)
            state = await DomService(page).get_clickable_elements(
                highlight_elements=True, viewport_expansion=500
            )
            lines = state.element_tree.clickable_elements_to_string()
            print(json.dumps({"url": url, "lines": lines}), flush=True)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
