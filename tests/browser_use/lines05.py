"""Run by browser-use 0.5.0's own venv (.venv-bu05): attach to the test's Chromium over CDP, find the page
whose URL is argv[2], and print browser-use 0.5.0's own element lines of it (DomService, viewport expansion
500 as its BrowserProfile's default, no highlighting) as JSON."""

from __future__ import annotations

import asyncio
import json
import sys

from browser_use.dom.service import DomService
from playwright.async_api import async_playwright


async def main(cdp: str, url: str) -> None:
    async with async_playwright() as pw:
        browser = await pw.chromium.connect_over_cdp(cdp)
        page = next(p for c in browser.contexts for p in c.pages if p.url == url)
        state = await DomService(page).get_clickable_elements(
            highlight_elements=False, viewport_expansion=500
        )
        print(json.dumps(state.element_tree.clickable_elements_to_string()))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
