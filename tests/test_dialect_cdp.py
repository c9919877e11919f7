"""What the browser-use-0.13 dialect reads over CDP (plandvc.agent.dialects.cdp), in real Chromium: 0.13.14's
paint-order filter leaves out what an opaque overlay paints over (text not shown, a link not numbered) and keeps
it under a transparent one; a range input's accessibility properties and compound parts; the page stats counted
over 0.13.14's own tree. tests/test_dialect_conformance.py holds all of it to browser-use 0.13.14 itself."""

from __future__ import annotations

import pytest

from plandvc.agent.dialects.bu13 import BrowserUse13, browser_state
from plandvc.agent.dialects.page import capture
from plandvc.browser import Session

pytestmark = pytest.mark.asyncio(loop_scope="module")

PAGE = """<html><head><title>Overlay</title></head><body>
<p>Under the dialog</p><a href="/x">Hidden link</a>
<input type="range" min="0" max="80" step="5" value="40">
<div style="position:fixed;top:0;left:0;width:100%;height:100%;background:{bg}"><button>Close</button></div>
</body></html>"""


async def lines_of(session: Session, bg: str) -> str:
    await session.page.set_content(PAGE.format(bg=bg))
    view = await capture(session.page, "bu13", BrowserUse13.expansion, BrowserUse13.first)
    return browser_state(view)


async def test_an_opaque_overlay_hides_what_it_paints_over(session: Session) -> None:
    covered = await lines_of(session, "white")
    assert "Close" in covered and "[1]<button />" in covered
    assert "Under the dialog" not in covered and "Hidden link" not in covered and "<a" not in covered


async def test_a_transparent_overlay_hides_nothing(session: Session) -> None:
    shown = await lines_of(session, "transparent")
    assert "Under the dialog" in shown and "Hidden link" in shown
    assert "[1]<a />" in shown and "<button />" in shown


async def test_a_range_shows_its_accessibility_values_and_parts(session: Session) -> None:
    shown = await lines_of(session, "transparent")
    line = next(x for x in shown.splitlines() if "type=range" in x)
    assert line.startswith("|SHADOW(open)|*[")  # a compound control is always starred
    assert "value=40 valuemin=0 valuemax=80 valuetext=40" in line
    assert line.endswith("compound_components=(name=Value,role=slider,min=0.0,max=80.0) />")


async def test_the_page_stats_count_0_13_14s_tree(session: Session) -> None:
    stats = (await lines_of(session, "transparent")).splitlines()[0]
    # html, body, p + its text, a + its text, input, div, button + its text: 10; the range hosts a shadow root
    assert stats == (
        "<page_stats>1 links, 3 interactive, 0 iframes, 1 shadow(open), 0 shadow(closed), 10 total elements"
        "</page_stats>"
    )
