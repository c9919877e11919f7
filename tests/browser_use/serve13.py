"""Run by browser-use 0.13.14's own venv (.venv-bu13): a BrowserSession attached to the test's Chromium over CDP
(cdp_url, its profile's defaults), then for each URL read on stdin print the element lines its agent would be
shown of the page (get_browser_state_summary, no screenshot: dom_state.llm_representation()) and the whole page
block its agent's message holds (AgentMessagePrompt's browser state: page stats, tabs, page info, elements),
with the tabs' short ids, as one JSON line; a line `shot <url>` also asks for the screenshot its agent sends the
model (base64 PNG: its ScreenshotWatchdog, highlights removed first).
Each stage is logged on stderr, so the test names the stage a hang is in."""

from __future__ import annotations

import asyncio
import json
import sys
import time

T0 = time.monotonic()


def log(stage: str) -> None:
    print(f"[{time.monotonic() - T0:.1f}s] {stage}", file=sys.stderr, flush=True)


log("importing browser_use")
from browser_use import BrowserSession  # noqa: E402
from browser_use.agent.prompts import AgentMessagePrompt  # noqa: E402


async def main(cdp: str) -> None:
    log("starting a BrowserSession over CDP")
    session = BrowserSession(cdp_url=cdp, is_local=False)
    await session.start()
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        shot, url = line.startswith("shot "), line.removeprefix("shot ").strip()
        log(f"reading {url}")
        state = await session.get_browser_state_summary(include_screenshot=shot)
        if state.url != url:
            raise RuntimeError(f"browser-use reads {state.url}, not {url}")
        block = AgentMessagePrompt(
            browser_state_summary=state, file_system=None
        )._get_browser_state_description()
        tabs = [t.target_id[-4:] for t in state.tabs]
        out = {"url": url, "lines": state.dom_state.llm_representation(), "state": block, "tabs": tabs}
        if shot:
            out["screenshot"] = state.screenshot or ""
        print(json.dumps(out), flush=True)
    await session.kill()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
