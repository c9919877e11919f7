"""`Session`: one browser context and page for one chain — navigation, snapshot, actions by index, and the
record of what happened (events, pages seen, clipboard) that the gates read.

Every wait is on the page (load state, navigation), never on the clock.
"""

from __future__ import annotations

import asyncio
import base64
import re
from collections.abc import Awaitable
from dataclasses import replace
from pathlib import Path
from typing import TypedDict, cast
from urllib.parse import urljoin

from playwright.async_api import BrowserContext, CDPSession, Frame, Locator, Page, Request
from playwright.async_api import Error as PlaywrightError

from plandvc.browser.errors import ActionError, BrowserError, ServerDownError, StaleIndexError
from plandvc.browser.snapshot import SNAPSHOT_JS, Element, Snapshot, relative_url
from plandvc.io import JSONObject
from plandvc.records import BackendState, Event

CLIPBOARD_JS = Path(__file__).with_name("clipboard.js").read_text()
# the viewport as PNG, encoded for speed (see Session.screenshot)
SCREENSHOT_PARAMS = {"format": "png", "optimizeForSpeed": True}
# every document hides its text caret from the first moment (what Playwright's screenshot(caret="hide")
# injects around each capture): a focused field's caret blinks on a timer, so a capture would depend on it
HIDE_CARET_JS = """(() => {
  const sheet = new CSSStyleSheet();
  sheet.replaceSync('* { caret-color: transparent !important; }');
  document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
})();"""
CLIPBOARD_BINDING = "__plandvc_clip"
ACTION_TIMEOUT_MS = 10_000
NAVIGATION_TIMEOUT_MS = 20_000


# network errors that mean nothing answers at the URL
class StateReply(TypedDict):
    """The sites' state API's body (`GET /_state/<site>`): the session's rows by table and its changes."""

    entries: dict[str, list[JSONObject]]
    changes: list[JSONObject]


_DOWN = re.compile(
    r"net::(ERR_CONNECTION_REFUSED|ERR_CONNECTION_RESET|ERR_EMPTY_RESPONSE|ERR_ADDRESS_UNREACHABLE|ERR_CONNECTION_CLOSED)|ECONNREFUSED"
)
_SITE = re.compile(r"^/(?:sites|_state)/([^/?#]+)")

# does a click on this element load a new document? (a link, or a submit whose form will submit)
WILL_NAVIGATE_JS = """(el) => {
  const a = el.closest('a[href]');
  if (a) {
    const href = (a.getAttribute('href') || '').trim().toLowerCase();
    if (!href || href.startsWith('#') || href.startsWith('javascript:') || a.hasAttribute('download')) return false;
    return !a.target || a.target === '_self';
  }
  const form = el.form;
  if (!form || el.disabled) return false;
  const type = (el.getAttribute('type') || (el.tagName === 'BUTTON' ? 'submit' : '')).toLowerCase();
  if (!['submit', 'image'].includes(type)) return false;
  if ((el.formTarget || form.target || '_self') !== '_self') return false;
  return form.noValidate || el.formNoValidate || form.checkValidity();
}"""

WILL_NAVIGATE_BY_INDEX_JS = f'(i) => ({WILL_NAVIGATE_JS})(document.querySelector(`[data-pdx="${{i}}"]`))'

NEXT_FRAME_JS = "() => new Promise((done) => requestAnimationFrame(() => setTimeout(done, 0)))"

SET_RANGE_JS = """(el, v) => {
  el.value = v;
  el.dispatchEvent(new Event('input', {bubbles: true}));
  el.dispatchEvent(new Event('change', {bubbles: true}));
  return el.value;
}"""

MATCH_OPTION_JS = """(el, want) => {
  const norm = (s) => (s || '').replace(/\\s+/g, ' ').trim();
  for (const o of el.options) if (norm(o.text) === norm(want)) return {label: o.label || o.text};
  for (const o of el.options) if (o.value === want) return {value: o.value};
  return null;
}"""


def _number(value: float | int | str) -> str:
    """A range value as the page writes it: 40, not 40.0."""
    v = float(value)
    return str(int(v)) if v.is_integer() else repr(v)


class Session:
    """A fresh browser context (its own cookies, server session and clipboard) with one page."""

    def __init__(self, context: BrowserContext, page: Page, base: str, cdp: CDPSession | None = None) -> None:
        self.context = context
        self.page = page
        self.cdp = cdp  # the page's own DevTools session: a screenshot is one call on it
        self.base = base.rstrip("/")
        self.events: list[Event] = []
        self.seen: list[str] = []
        self.clipboard: list[str] = []
        self.last_snapshot: Snapshot | None = None
        self.sites: set[str] = set()  # sites whose server state this session touched
        self._clip_ids: set[str] = set()
        self._navigations = 0  # main-frame navigations so far
        self._snapshot_nav = -1  # _navigations when last_snapshot was taken
        self._acts = 0  # actions started so far (bumped before acting, so a failed action counts too)
        self._snapshot_acts = -1  # _acts when last_snapshot was taken
        self._generation = 0
        self._nav_requests = 0  # main-frame document requests so far (a navigation has started)
        self._committed = asyncio.Event()  # set by each main-frame navigation
        self._loaded_nav = 0  # _navigations when the main frame last fired `load`
        page.on("framenavigated", self._on_navigated)
        page.on("request", self._on_request)
        page.on("load", self._on_load)

    @classmethod
    async def open(cls, context: BrowserContext, base: str) -> Session:
        """Set up the per-context clipboard capture, then open the page."""
        session: Session | None = None

        def on_copy(source: object, write_id: str, text: str) -> None:
            if session is not None:
                session._on_copy(write_id, text)

        context.set_default_timeout(ACTION_TIMEOUT_MS)
        context.set_default_navigation_timeout(NAVIGATION_TIMEOUT_MS)
        await context.expose_binding(CLIPBOARD_BINDING, on_copy)
        await context.add_init_script(script=CLIPBOARD_JS + "\n" + HIDE_CARET_JS)
        page = await context.new_page()
        session = cls(context, page, base, await context.new_cdp_session(page))
        return session

    # -- what happened ---------------------------------------------------------------------------------

    def _on_copy(self, write_id: str, text: str) -> None:
        if write_id not in self._clip_ids:  # a write re-sent after a navigation is recorded once
            self._clip_ids.add(write_id)
            self.clipboard.append(str(text))

    def _on_request(self, request: Request) -> None:
        if request.is_navigation_request() and request.frame is self.page.main_frame:
            self._nav_requests += 1

    def _on_navigated(self, frame: Frame) -> None:
        if frame is not self.page.main_frame or frame.url in ("", "about:blank"):
            return
        self._committed.set()
        self._navigations += 1
        rel = relative_url(frame.url, self.base)
        self.seen.append(rel)
        if m := _SITE.match(rel):
            self.sites.add(m.group(1))

    def _on_load(self, _page: Page) -> None:
        self._loaded_nav = self._navigations

    async def _loaded(self) -> None:
        """Wait for the current document's `load`: at once when this page's last navigation has fired it
        (Playwright's own wait would still exchange its waiter's messages with the driver)."""
        if self._loaded_nav != self._navigations:
            await self.page.wait_for_load_state("load")

    @property
    def url(self) -> str:
        """The current page as `path?query` relative to base."""
        return relative_url(self.page.url, self.base)

    @property
    def site(self) -> str | None:
        """The site of the current page (`/sites/<site>/...`), else None."""
        m = _SITE.match(self.url)
        return m.group(1) if m else None

    # -- navigation ------------------------------------------------------------------------------------

    def absolute(self, path_or_url: str) -> str:
        return urljoin(self.base + "/", path_or_url)

    async def goto(self, path_or_url: str) -> int | None:
        """Load a path (relative to base) or an absolute URL and wait for `load`; returns the HTTP status."""
        self._acts += 1
        url = self.absolute(path_or_url)
        try:
            response = await self.page.goto(url, wait_until="load")
        except PlaywrightError as e:
            if m := _DOWN.search(e.message or ""):
                raise ServerDownError(url, m.group(0)) from None
            raise BrowserError(f"cannot load {url}: {_first_line(e)}") from None
        return response.status if response is not None else None

    # -- snapshot --------------------------------------------------------------------------------------

    async def snapshot(self) -> Snapshot:
        """The page's visible interactive elements (one evaluate), kept as `last_snapshot`.

        When nothing happened since the last snapshot (no navigation, no action), the page is as it was
        (the sites have no timers or animation): that snapshot is issued again under a new generation
        without asking the page. The planner's turn and its specialist's first step read the same page."""
        self._generation += 1
        last = self.last_snapshot
        if last is not None and (self._navigations, self._acts) == (self._snapshot_nav, self._snapshot_acts):
            self.last_snapshot = replace(last, generation=self._generation)
            return self.last_snapshot
        await self._loaded()
        raw = await self.page.evaluate(SNAPSHOT_JS)
        self._snapshot_nav, self._snapshot_acts = self._navigations, self._acts
        self.last_snapshot = Snapshot.from_js(raw, self.base, self._generation)
        return self.last_snapshot

    async def _target(self, index: int, snapshot: Snapshot | None) -> tuple[Element, Locator]:
        """The element `index` of the current snapshot, or StaleIndexError if that snapshot is stale."""
        self._acts += 1
        current = self.last_snapshot
        if current is None:
            raise StaleIndexError(f"index {index}: no snapshot taken yet in this session; take one first")
        if snapshot is not None and snapshot.generation != current.generation:
            raise StaleIndexError(
                f"index {index} is from snapshot #{snapshot.generation} of {snapshot.url}, but snapshot "
                f"#{current.generation} was taken since; use the current snapshot's indices"
            )
        if self._navigations != self._snapshot_nav:
            raise StaleIndexError(
                f"index {index} is from the snapshot of {current.url}, but the page has navigated since "
                f"(now {self.url}); take a new snapshot"
            )
        if not 0 <= index < len(current.elements):
            raise ActionError(
                f"no element [{index}] in the snapshot of {current.url} ({len(current.elements)} elements)"
            )
        locator = self.page.locator(f'[data-pdx="{index}"]')
        if await locator.count() != 1:
            raise StaleIndexError(
                f"element [{index}] of the snapshot of {current.url} is gone from the page; take a new snapshot"
            )
        return current.elements[index], locator

    def _record(self, action: str, target: str, value: str | int | float | None, before: str) -> None:
        self.events.append(
            {"type": "action", "action": action, "target": target, "value": value, "url": before}
        )

    # -- actions by index ------------------------------------------------------------------------------

    async def click(self, index: int, *, snapshot: Snapshot | None = None) -> None:
        """Click element `index`; when it is a link or a submit, wait for the new page's `load`."""
        element, locator = await self._target(index, snapshot)
        before = self.url
        try:
            # one evaluate on the page (a locator's evaluate is three calls: wait for, evaluate, dispose)
            if await self.page.evaluate(WILL_NAVIGATE_BY_INDEX_JS, index):
                async with self.page.expect_navigation(wait_until="load"):
                    await locator.click()
            else:
                await self._click_and_settle(locator)
        except PlaywrightError as e:
            if m := _DOWN.search(e.message or ""):
                raise ServerDownError(self.base, m.group(0)) from None
            raise ActionError(f"click [{index}] {element.summary()} on {before}: {_first_line(e)}") from None
        self._record("click", element.summary(state=False), None, before)

    async def _click_and_settle(self, locator: Locator) -> None:
        """Click an element that is not a link or submit; if its handler started a navigation anyway
        (`location.href = ...`), wait for the new page's `load`."""
        await self._settle(locator.click())

    async def _settle(self, act: Awaitable[object]) -> None:
        """Do `act` (a click, a fill, a choice); if a handler it fired started a navigation (a form that
        applies on change submits itself), wait for the new page's `load`."""
        requests, navigations = self._nav_requests, self._navigations
        self._committed.clear()
        await act
        try:  # one frame of the page: lets a handler's navigation start (or unload the page)
            await self.page.evaluate(NEXT_FRAME_JS)
        except PlaywrightError:
            pass  # the page went away under the evaluate: a navigation, waited for below
        if self._nav_requests != requests and self._navigations == navigations:
            try:
                await asyncio.wait_for(self._committed.wait(), NAVIGATION_TIMEOUT_MS / 1000)
            except TimeoutError:
                pass  # the request did not become a page (a download, a 204): nothing to wait for
        await self._loaded()

    async def input(self, index: int, text: str, *, snapshot: Snapshot | None = None) -> None:
        """Fill element `index` (an input or textarea) with `text`."""
        element, locator = await self._target(index, snapshot)
        before = self.url
        try:
            await self._settle(locator.fill(text))
        except PlaywrightError as e:
            raise ActionError(f"input [{index}] {element.summary()}: {_first_line(e)}") from None
        self._record("input", element.summary(state=False), text, before)

    async def select(self, index: int, value: str, *, snapshot: Snapshot | None = None) -> None:
        """Choose the option of select `index` whose text (or else value) is `value`."""
        element, locator = await self._target(index, snapshot)
        if element.tag != "select":
            raise ActionError(f"select [{index}]: {element.summary()} is not a <select>")
        match = await locator.evaluate(MATCH_OPTION_JS, value)
        if match is None:
            raise ActionError(
                f"select [{index}] {element.summary()}: no option {value!r} (options: {', '.join(element.options or ())})"
            )
        before = self.url
        await self._settle(locator.select_option(**match))
        self._record("select", element.summary(state=False), value, before)

    async def set_range(
        self, index: int, value: float | int | str, *, snapshot: Snapshot | None = None
    ) -> str:
        """Set range input `index` to `value` and dispatch input/change; returns the value the page kept."""
        element, locator = await self._target(index, snapshot)
        if element.tag != "input" or element.attrs.get("type") != "range":
            raise ActionError(f"set_range [{index}]: {element.summary()} is not an <input type=range>")
        try:
            text = _number(value)
        except (TypeError, ValueError):
            raise ActionError(f"set_range [{index}]: {value!r} is not a number") from None
        before = self.url
        got: list[str] = []

        async def move() -> None:
            got.append(await locator.evaluate(SET_RANGE_JS, text))

        await self._settle(move())  # a form that applies on change submits itself
        kept = got[0]
        self._record("set_range", element.summary(state=False), value, before)
        return kept

    async def scroll(self, dy: int) -> int:
        """Scroll the page by `dy` pixels (down when positive); returns the new scroll position."""
        self._acts += 1
        before = self.url
        y = await self.page.evaluate(
            "(dy) => { window.scrollBy({top: dy, left: 0, behavior: 'instant'}); return Math.round(window.scrollY); }",
            int(dy),
        )
        self._record("scroll", "", int(dy), before)
        return y

    async def go_to(self, url: str) -> int | None:
        """The `go_to` action: load `url` (a path on base or an absolute URL)."""
        before = self.url
        status = await self.goto(url)
        self._record("go_to", "", url, before)
        return status

    async def back(self) -> None:
        """Go back one page in history and wait for its `load`."""
        self._acts += 1
        before = self.url
        try:
            await self.page.go_back(wait_until="load")
        except PlaywrightError as e:
            raise ActionError(f"back from {before}: {_first_line(e)}") from None
        self._record("back", "", None, before)

    # -- state -----------------------------------------------------------------------------------------

    async def read(self, selector: str) -> list[tuple[str, str]]:
        """(href or "", visible text) of every element `selector` finds, in document order: what an
        Information specialist reads off the page as it is (a live goal step, `plandvc.run.goal`)."""
        got = await self.page.eval_on_selector_all(
            selector, "els => els.map(e => [e.getAttribute('href') || '', e.innerText])"
        )
        return [(str(h), " ".join(str(t).split())) for h, t in got]

    async def screenshot(self) -> bytes:
        """PNG bytes of the viewport, caret hidden (the sites have no animations or transitions).

        One DevTools call (Page.captureScreenshot) instead of Playwright's screenshot, which around the same
        capture evaluates a style into every frame and out again, waits for fonts and reads the layout
        metrics: four more round trips a turn. The PNG is encoded for speed (Chromium's fast zlib setting):
        the same pixels as Playwright's screenshot (a test compares them), in a file about a fifth larger;
        it cut the raw-browser bound's CPU by a sixth (35.0 -> 29.2 CPU-s on 24 chains, by cgroup).
        Deterministic like any zlib setting. A session made without a DevTools session uses Playwright's."""
        if self.cdp is None:
            return await self.page.screenshot(type="png", animations="disabled", caret="hide")
        data = await self.cdp.send("Page.captureScreenshot", SCREENSHOT_PARAMS)
        return base64.b64decode(data["data"])

    async def flush_clipboard(self) -> None:
        """Wait until every copy made on the page has reached `clipboard`."""
        try:
            await self._loaded()
            await self.page.evaluate("() => window.__plandvcClipFlush ? window.__plandvcClipFlush() : null")
        except PlaywrightError:
            # the page navigated during the flush: the new document re-sends what is pending
            await self.page.wait_for_load_state("load")
            await self.page.evaluate("() => window.__plandvcClipFlush ? window.__plandvcClipFlush() : null")

    async def backend_state(self, site: str | None = None) -> BackendState:
        """`{"entries", "changes"}` of this session on the server (`GET /_state/<site>`) + `"clipboard"`."""
        site = site or self.site or (min(self.sites) if len(self.sites) == 1 else None)
        if site is None:
            raise BrowserError(f"backend_state: no site given and the page {self.url} is not on a site")
        await self.flush_clipboard()
        data = cast(StateReply, await self._state_request("get", f"/_state/{site}"))
        self.sites.add(site)
        return {"entries": data["entries"], "changes": data["changes"], "clipboard": list(self.clipboard)}

    async def _state_request(self, method: str, path: str) -> object:
        """The sites' server's JSON answer to `method path` (None for a post)."""
        url = self.absolute(path)
        try:
            response = await getattr(self.context.request, method)(url)
        except PlaywrightError as e:
            if m := _DOWN.search(e.message or ""):
                raise ServerDownError(url, m.group(0)) from None
            raise BrowserError(f"{method.upper()} {url}: {_first_line(e)}") from None
        if not response.ok:
            raise BrowserError(f"{method.upper()} {url}: HTTP {response.status}")
        return await response.json() if method == "get" else None

    async def close(self) -> None:
        """Reset this session's server state for the sites it touched, then close the context."""
        for site in sorted(self.sites):
            try:
                await self._state_request("post", f"/_state/{site}/reset")
            except BrowserError:
                pass  # a server that is down has no state to reset
        try:
            await self.context.close()
        except PlaywrightError:
            pass  # the browser died: the context is gone with it


def _first_line(e: PlaywrightError) -> str:
    msg = (e.message or type(e).__name__).strip()
    return msg.splitlines()[0] if msg else type(e).__name__
