"""A dialect owns its screenshot (plandvc.agent.dialects): browser-use-0.5 with `marks` draws browser-use 0.5.0's
highlight boxes and indices (its own highlightElement, marks.js) over exactly the elements its text numbers,
takes the screenshot with them and takes them off before anything acts; without marks, and for browser-use-0.13
and plandvc-v1, the screenshot is the session's plain one and the page is read by one evaluate as before
(browser-use-0.13 adds its CDP reads: the DOM snapshot and the accessibility tree). The
picture comparison (tests/marks_compare.py) is shown failing on a moved and on a dropped box. Real Chromium, the
bundled sites."""

from __future__ import annotations

import pytest
from marks_compare import READ_MARKS_JS, Mark, marks_of, mismatch

from plandvc.agent.dialects import dialect
from plandvc.agent.dialects import marks_of as episode_marks
from plandvc.agent.dialects.bu05 import BrowserUse05, element_lines
from plandvc.agent.dialects.page import capture, unmark
from plandvc.browser import Session

pytestmark = pytest.mark.asyncio(loop_scope="module")

PAGE = "/sites/shop/orders"
CLEAN_JS = """() => [document.body.outerHTML, document.getElementById('playwright-highlight-container'),
  window._highlightCleanupFunctions === undefined]"""


class Counting:
    """A session whose page counts its evaluates (the dialect reads `session.page`; browser-use-0.13 also reads
    over its context's CDP session, which is no evaluate of the page)."""

    def __init__(self, session: Session) -> None:
        self.session, self.evaluates = session, 0
        outer = self

        class Context:
            async def new_cdp_session(self, page: object) -> object:
                return await session.page.context.new_cdp_session(session.page)

        class Page:
            context = Context()

            @property
            def viewport_size(self) -> dict[str, int] | None:
                return session.page.viewport_size

            async def set_viewport_size(self, size: dict[str, int]) -> None:
                await session.page.set_viewport_size(size)  # type: ignore[arg-type]

            async def evaluate(self, expression: str, arg: object = None) -> object:
                outer.evaluates += 1
                return await session.page.evaluate(expression, arg)

        self.page = Page()

    async def screenshot(self) -> bytes:
        return await self.session.screenshot()


async def test_marks_are_drawn_for_the_screenshot_and_taken_off(session: Session) -> None:
    await session.goto(PAGE)
    snap = await session.snapshot()
    before = await session.page.evaluate(CLEAN_JS)
    plain = await session.screenshot()
    marked = dialect("browser-use-0.5", marks=True)
    look = await marked.look(session)
    assert marked.marks and look.view is not None
    assert look.shot != plain  # the boxes are in the picture
    assert (
        await session.page.evaluate(CLEAN_JS) == before
    )  # ... and off the page: same DOM, no listeners left
    assert await session.screenshot() == plain
    unmarked = await dialect("browser-use-0.5").look(session)
    assert unmarked.shot == plain
    assert unmarked.view is not None and element_lines(unmarked.view.root) == element_lines(look.view.root)
    # the snapshot's indices still act: the specialist's click by index after a marked look
    link = next(e for e in snap.elements if e.tag == "a")
    await session.click(link.index)
    assert session.url != PAGE


async def test_the_marks_are_the_texts_indices(session: Session) -> None:
    await session.goto(PAGE)
    view = await capture(session.page, "bu05", BrowserUse05.expansion, BrowserUse05.first, marks=True)
    drawn = marks_of(await session.page.evaluate(READ_MARKS_JS))
    await unmark(session.page)
    assert marks_of(await session.page.evaluate(READ_MARKS_JS)) == []
    numbered = [n.index for n in view.interactive]
    assert numbered == list(range(len(numbered))) and len(numbered) > 10
    assert [m.index for m in drawn] == numbered  # every element of the text, in its order, with its number
    colors = ["rgb(255, 0, 0)", "rgb(0, 255, 0)", "rgb(0, 0, 255)"]  # 0.5.0's first three colours
    assert [m.color for m in drawn[:3]] == colors


async def test_without_marks_it_is_one_evaluate_and_the_plain_screenshot(session: Session) -> None:
    """browser-use-0.13 looks in 0.13.14's 1920x1080 viewport (its plain screenshot at that size) and sets the
    page back after: its size and scroll position (one evaluate reads the scroll, one sets it back)."""
    await session.goto(PAGE)
    await session.page.evaluate("() => window.scrollTo(0, 40)")
    plain = await session.screenshot()
    await session.page.set_viewport_size({"width": 1920, "height": 1080})
    wide = await session.screenshot()
    await session.page.set_viewport_size({"width": 1280, "height": 800})
    await session.page.evaluate("() => window.scrollTo(0, 40)")
    cases = [
        ("browser-use-0.5", False, 1, plain),
        ("browser-use-0.13", True, 3, wide),
        ("browser-use-0.13", False, 3, wide),
    ]
    for name, marks, evaluates, shot in cases:
        counting = Counting(session)
        d = dialect(name, marks=marks)
        look = await d.look(counting)
        assert (d.marks, counting.evaluates, look.shot) == (False, evaluates, shot), name
        assert session.page.viewport_size == {"width": 1280, "height": 800}
        assert await session.page.evaluate("() => window.scrollY") == 40
    assert wide != plain
    v1 = dialect("plandvc-v1", marks=True)
    assert (v1.marks, (await v1.look(session)).shot) == (False, plain)
    assert episode_marks("browser-use-0.5", True) and not episode_marks("browser-use-0.13", True)
    assert not episode_marks("browser-use-0.5", False)


async def _drawn(session: Session, tamper: str) -> tuple[list[Mark], bytes]:
    """The dialect's marks on PAGE, `tamper` run on the drawing first, read and shot, then taken off."""
    await capture(session.page, "bu05", BrowserUse05.expansion, BrowserUse05.first, marks=True)
    await session.page.evaluate(tamper)
    marks = marks_of(await session.page.evaluate(READ_MARKS_JS))
    shot = await session.screenshot()
    await unmark(session.page)
    return marks, shot


async def test_the_picture_comparison_fails_on_a_moved_or_dropped_box(session: Session) -> None:
    await session.goto(PAGE)
    good = await _drawn(session, "() => null")
    assert mismatch(*good, *good) == []
    assert mismatch(*(await _drawn(session, "() => null")), *good) == []  # drawn twice: the same
    # mark 3's first box moved 4 px right
    moved = await _drawn(
        session,
        """() => { const label = [...document.querySelectorAll('.playwright-highlight-label')]
            .find((l) => l.textContent === '3');
          let o = label.previousElementSibling;
          while (o.previousElementSibling && !o.previousElementSibling.classList.contains('playwright-highlight-label'))
            o = o.previousElementSibling;
          o.style.left = `${parseFloat(o.style.left) + 4}px`; }""",
    )
    problems = mismatch(*moved, *good)
    assert problems[0].startswith("mark 3: ours") and "pixels differ" in problems[-1], problems
    # mark 5 dropped: its boxes and label gone
    dropped = await _drawn(
        session,
        """() => { const label = [...document.querySelectorAll('.playwright-highlight-label')]
            .find((l) => l.textContent === '5');
          while (label.previousElementSibling &&
                 !label.previousElementSibling.classList.contains('playwright-highlight-label'))
            label.previousElementSibling.remove();
          label.remove(); }""",
    )
    problems = mismatch(*dropped, *good)
    assert problems[0] == "mark 5 missing from ours" and "pixels differ" in problems[-1], problems
