"""A page drawn while it is still being parsed must not change what the harness captures.

The race behind one PNG that once differed between two engines' runs: when a frame is drawn while the
parser is inside an option's text (the page's bytes arrived in two pieces, and the loaded renderer drew
in between), Chromium sizes the <select> for that partial text ("Desc" of "Descending") and keeps that
width after the rest arrives. Here a real HTTP server hands Chromium the real sites server's page in two
pieces, split inside that text, and a frame is drawn in between (two animation frames, awaited in the
page), so the race happens every time. The test first shows the stale width and capture (the race took
place), then that the session's snapshot lays the selects out afresh: the same box and the same PNG
bytes as the page delivered whole.
"""

from __future__ import annotations

import asyncio
import threading
import urllib.request
from collections.abc import AsyncIterator, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import pytest_asyncio
from bundled import spec_with

from plandvc.browser import Browser, Session

pytestmark = pytest.mark.asyncio(loop_scope="module")

SPEC, PAGE = spec_with(lambda s, p: any(c.kind == "sort" for c in p.controls))
LIST = f"/sites/{SPEC.site}/{PAGE.page}"
ORDER = "select[name=dir]"  # the sort control's order select: Ascending (selected), Descending
FRAME_JS = "(sel) => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() => "
FRAME_JS += "done(document.querySelector(sel).getBoundingClientRect().width))))"


class SplitPage:
    """A real HTTP server for one page: `/whole` sends it in one write, `/split` sends the bytes up to
    `cut`, waits for `release()`, then sends the rest."""

    def __init__(self, html: bytes, cut: int) -> None:
        self.html, self.cut = html, cut
        self.gate = threading.Event()
        page = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(page.html)))
                self.send_header("Cache-Control", "no-store")
                self.end_headers()
                if self.path == "/split":
                    self.wfile.write(page.html[: page.cut])
                    self.wfile.flush()
                    page.gate.wait(120)
                    self.wfile.write(page.html[page.cut :])
                else:
                    self.wfile.write(page.html)
                self.wfile.flush()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"

    def release(self) -> None:
        self.gate.set()

    def __enter__(self) -> SplitPage:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.gate.set()
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="module")
def split_page(base: str) -> Iterator[SplitPage]:
    """The sites server's list page with a sort control, to be cut inside its "Descending" option."""
    with urllib.request.urlopen(f"{base}{LIST}") as r:
        html = r.read()
    cut = html.index(b">Descending</option>") + len(b">Desc")
    with SplitPage(html, cut) as page:
        yield page


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def fresh_browser() -> AsyncIterator[Browser]:
    async with Browser() as b:
        yield b


async def order_box(session: Session) -> tuple[int, int, int, int]:
    snap = await session.snapshot()
    (el,) = [e for e in snap.elements if e.tag == "select" and e.attrs.get("name") == "dir"]
    return el.box


async def test_a_select_drawn_mid_parse_is_captured_as_if_drawn_once(
    fresh_browser: Browser, split_page: SplitPage
) -> None:
    whole = await fresh_browser.new_session(split_page.base)
    try:
        await whole.goto("/whole")
        whole_box = await order_box(whole)
        whole_png = await whole.screenshot()
    finally:
        await whole.close()

    s = await fresh_browser.new_session(split_page.base)
    try:
        loading = asyncio.ensure_future(s.goto("/split"))
        await s.page.wait_for_selector(ORDER, state="attached")
        # a frame drawn while the parser holds "Desc" of "Descending": the select is sized for "Ascending"
        mid_parse_width = await s.page.evaluate(FRAME_JS, ORDER)
        split_page.release()
        await loading
        stale_width = await s.page.evaluate(
            f"() => document.querySelector('{ORDER}').getBoundingClientRect().width"
        )
        stale_png = await s.screenshot()
        # the race took place: after `load` the select still has its mid-parse width, and a capture shows it
        assert mid_parse_width == stale_width < whole_box[2]
        assert stale_png != whole_png
        # the snapshot (taken before every screenshot) lays the selects out afresh
        assert await order_box(s) == whole_box
        assert await s.screenshot() == whole_png
    finally:
        split_page.release()
        await s.close()
