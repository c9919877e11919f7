"""The browser-use dialects against browser-use itself, in real Chromium: world pages (the start and end page of
every macro's first task on one site of each layout family: lists, entries, forms, date filters, suggestion
search, pagination, tabs) are rendered by plandvc's serializer (plandvc.agent.dialects) and by browser-use's
own, installed from the package index into its own venv (`make browser-use`: .venv-bu05 and .venv-bu13 from the
hash-pinned requirements/requirements-browser-use-*.lock, built here when missing; a failed build fails the test) and attached
to this test's Chromium over CDP. The element lines are compared one for one; the per-page table is printed.

Why it once hung: importing browser_use takes tens of seconds on this machine (it imports every LLM client),
and the first version started one process per page with its output captured. One process now serves every page
and each stage (build, import and attach, each page) has its own timeout naming it.

Where it stands (docs/STAGES.md, "Dialects of the planner's input"): 0.5.0 equals the browser-use-0.5 dialect
on all 33 pages of the v3 world (2,329 lines). 0.13.14 (the venv's since issue 47) attaches
(BrowserSession(cdp_url=...)) and equals the browser-use-0.13 dialect on all 33 pages, the whole page block
(page stats, tabs, page info and the 6,818 element lines: 7,118 lines) and the screenshot (0 pixels): page.js
reads the tree and the clickable rules, and what 0.13.14 reads over CDP (the DOM snapshot's boxes, paint order,
styles and live values, the accessibility tree's properties) the dialect reads through the page's own CDP
session (plandvc.agent.dialects.cdp): the paint-order filter, the AX attributes and `compound_components`.

The picture: with marks on, the browser-use-0.5 dialect's screenshot against browser-use 0.5.0's own highlighted
page (its DomService with highlighting on, drawing in the test's page): the marks read off both drawings and the
two screenshots compared pixel for pixel (tests/marks_compare.py); 33 of 33 pages, 965 marks, 0 pixels differ."""

from __future__ import annotations

import asyncio
import base64
import difflib
import json
import os
import re
import subprocess
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from io import BytesIO as io_bytes
from pathlib import Path

import pytest
from marks_compare import READ_MARKS_JS, differing_pixels, marks_of, mismatch
from PIL import Image
from playwright.async_api import Page, async_playwright

from plandvc import io
from plandvc.agent.dialects import bu05, bu13
from plandvc.agent.dialects.page import capture, unmark
from plandvc.browser import Session
from plandvc.browser.chromium import chromium_path
from plandvc.ports import free_ports
from plandvc.sites.model import FAMILIES
from plandvc.sites.servers import Servers
from plandvc.sites.spec import load_sites
from plandvc.world.make import make_world

ROOT = Path(__file__).resolve().parents[1]
POOL = ROOT / "data" / "world-pool" / "runs" / "r1" / "accepted"
QUIET = {
    "ANONYMIZED_TELEMETRY": "false",
    "BROWSER_USE_CLOUD_SYNC": "false",
    "BROWSER_USE_LOGGING_LEVEL": "error",
}


@dataclass(frozen=True)
class PageResult:
    """One page compared: the lines each serializer wrote, and how many of theirs ours has in the same order."""

    url: str
    ours: list[str]
    theirs: list[str]

    @property
    def matched(self) -> int:
        blocks = difflib.SequenceMatcher(None, self.ours, self.theirs, autojunk=False).get_matching_blocks()
        return sum(b.size for b in blocks)

    @property
    def same(self) -> bool:
        return self.ours == self.theirs

    def first_diff(self) -> tuple[str, str] | None:
        for i in range(max(len(self.ours), len(self.theirs))):
            a = self.ours[i] if i < len(self.ours) else "<none>"
            b = self.theirs[i] if i < len(self.theirs) else "<none>"
            if a != b:
                return a, b
        return None


def table(results: list[PageResult]) -> str:
    """The comparison as a text table: per page, lines matched of theirs, and the first line that differs."""
    rows = [f"{'same' if r.same else 'DIFF'} {r.matched:4d}/{len(r.theirs):<4d} {r.url}" for r in results]
    for r in results:
        d = r.first_diff()
        if d:
            rows.append(f"{r.url}\n  ours:   {d[0]!r}\n  theirs: {d[1]!r}")
    total = sum(r.matched for r in results), sum(len(r.theirs) for r in results)
    same = sum(r.same for r in results)
    return "\n".join([*rows, f"{same} of {len(results)} pages equal, {total[0]} of {total[1]} lines"])


def venv(name: str, target: str) -> Path:
    """The python of browser-use's venv `name`, built by `make browser-use` when missing (a failure fails)."""
    python = ROOT / name / "bin" / "python"
    if not (ROOT / name / ".plandvc-setup").exists():
        out = subprocess.run(
            ["make", "-C", str(ROOT), target], capture_output=True, text=True, timeout=1500, check=False
        )
        assert out.returncode == 0, f"make {target} failed:\n{out.stdout[-2000:]}\n{out.stderr[-3000:]}"
    return python


# the macros whose pages are compared: suggestion search, date filters (calendars), pagination, the delete
# dialog's entry page, tabs, sliders and forms
MACROS = (
    "choose_suggestion",
    "filter_by_date_range",
    "go_to_page",
    "delete_entry",
    "switch_tab",
    "sort_by_form",
)


def pages(world: Path) -> list[str]:
    """The start and end page of the first task of each of MACROS on the first site of each layout family."""
    specs = load_sites(world)
    sites = [min(s for s, spec in specs.items() if spec.theme.family == f) for f in FAMILIES]
    urls: list[str] = []
    seen: set[tuple[str, str]] = set()
    for d in sorted(POOL.iterdir()):
        site, macro = d.name.rsplit("-", 2)[0], d.name.rsplit("-", 2)[1]
        if site not in sites or macro not in MACROS or (site, macro) in seen:
            continue
        seen.add((site, macro))
        task, traj = io.read_json(d / "task.json"), io.read_json(d / "trajectory.json")
        end = traj["end"]["url"] if isinstance(traj["end"], dict) else traj["end"]
        for url in (task["start"]["url"], end):
            if url not in urls:
                urls.append(url)
    return urls


class Upstream:
    """browser-use's serializer in its own process (tests/browser_use/serve*.py), one JSON line per page."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc

    @classmethod
    async def start(cls, python: Path, script: str, cdp: str) -> Upstream:
        proc = await asyncio.create_subprocess_exec(
            str(python),
            str(ROOT / "tests" / "browser_use" / script),
            cdp,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env={**os.environ, **QUIET},
            limit=1 << 24,
        )
        up = cls(proc)
        await up.reply("importing browser_use and attaching over CDP", 240)
        return up

    async def reply(self, stage: str, timeout: float) -> dict[str, str]:
        assert self.proc.stdout is not None and self.proc.stderr is not None
        try:
            line = await asyncio.wait_for(self.proc.stdout.readline(), timeout)
        except TimeoutError:
            self.proc.kill()
            err = await self.proc.stderr.read()
            raise AssertionError(f"{stage}: no answer in {timeout:.0f} s\n{err.decode()[-3000:]}") from None
        if not line:
            err = await self.proc.stderr.read()
            raise AssertionError(f"{stage}: browser-use's process ended\n{err.decode()[-3000:]}")
        out: dict[str, str] = json.loads(line)
        return out

    async def read(self, url: str) -> dict[str, str]:
        """browser-use's answer for the page at `url`: its element lines (and 0.13.14's page block)."""
        assert self.proc.stdin is not None
        self.proc.stdin.write((url + "\n").encode())
        await self.proc.stdin.drain()
        return await self.reply(f"reading {url}", 60)

    async def lines(self, url: str) -> list[str]:
        return (await self.read(url))["lines"].splitlines()

    async def shot(self, url: str) -> bytes:
        """The screenshot browser-use's agent would send its model of the page at `url` (PNG)."""
        assert self.proc.stdin is not None
        self.proc.stdin.write(f"shot {url}\n".encode())
        await self.proc.stdin.drain()
        return base64.b64decode((await self.reply(f"shooting {url}", 60))["screenshot"])

    async def close(self) -> None:
        """Closing stdin ends it; one that lingers on its way out is killed (its answers are all in)."""
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            await asyncio.wait_for(self.proc.wait(), 30)
        except TimeoutError:
            self.proc.kill()


def test_the_comparison_fails_on_one_wrong_line() -> None:
    good = PageResult("/p", ["[0]<a >Home />", "text"], ["[0]<a >Home />", "text"])
    bad = PageResult("/p", ["[0]<a href=/x?y=1>Home />", "text"], ["[0]<a >Home />", "text"])
    assert good.same and good.matched == 2
    assert not bad.same and bad.matched == 1
    assert bad.first_diff() == ("[0]<a href=/x?y=1>Home />", "[0]<a >Home />")
    assert "1 of 2 pages equal, 3 of 4 lines" in table([good, bad])


def indices(lines: list[str]) -> list[str]:
    """The lines with every `[n]` and `*[n]` as `[i]`: 0.13.8 numbers by CDP backend node id (it differs between
    runs) and stars what its last look at any page lacked (the dialect: at the same URL), so both are left out."""
    return [re.sub(r"\*?\[\d+\]<", "[i]<", line) for line in lines]


# the page's viewport for each browser-use: 0.5.0 attached over CDP keeps the page's; 0.13.14 sets its profile's
# (headless without a display: the screen's 1920x1080), as the browser-use-0.13 dialect does (BrowserUse13.viewport)
VIEWPORTS = {".venv-bu05": (1280, 800), ".venv-bu13": bu13.BrowserUse13.viewport}


def page_block(got: dict[str, str], base: str, title: str) -> str:
    """0.13.14's page block as the dialect writes it where it differs on purpose or by this harness: the tab
    id 0000 (0.13.14: the target id's last four), the URL as path?query, and the page's title on the tab line
    (browser-use attached over CDP keeps the tab title of its target cache, which is stale when another client
    navigates: here the URL without its scheme)."""
    block = str(got["state"])
    for tab in got["tabs"]:
        block = block.replace(f"Current tab: {tab}\n", "Current tab: 0000\n").replace(
            f"Tab {tab}: ", "Tab 0000: "
        )
    lines = block.strip("\n").split("\n")
    for i, line in enumerate(lines):
        if line.startswith("Tab 0000: "):
            lines[i] = line.replace(base, "", 1).rsplit(" - ", 1)[0] + f" - {title[:30]}"
    return "\n".join(lines)


def test_the_page_block_is_normalised_only_where_it_differs_on_purpose() -> None:
    got = {
        "state": "<page_stats>1 links</page_stats>\nCurrent tab: AE78\nAvailable tabs:\nTab AE78: "
        "http://h:1/sites/a?q=1 - h:1/sites/a?q=1\n\n<page_info>x</page_info>\n\nInteractive elements:\n[12]<a />\n",
        "tabs": ["AE78"],
    }
    assert page_block(got, "http://h:1", "A title") == (
        "<page_stats>1 links</page_stats>\nCurrent tab: 0000\nAvailable tabs:\nTab 0000: /sites/a?q=1 - A title"
        "\n\n<page_info>x</page_info>\n\nInteractive elements:\n[12]<a />"
    )
    wrong = {**got, "state": got["state"].replace("1 links", "2 links")}
    assert page_block(wrong, "http://h:1", "A title") != page_block(got, "http://h:1", "A title")


@asynccontextmanager
async def attached(
    tmp_path: Path, venv_name: str, script: str
) -> AsyncIterator[tuple[Page, Upstream, str, list[str]]]:
    """The world's sites served, one real Chromium with a page in the agent's viewport (VIEWPORTS: 0.5.0 reads
    the page as it is; 0.13.14 sets its profile's 1920x1080 on attaching, so the page is made that size too),
    browser-use's `script` attached to it over CDP: (the page, browser-use, the sites' base URL, the pages)."""
    python = venv(venv_name, "browser-use")
    make_world(tmp_path / "world", seed=0)
    urls = pages(tmp_path / "world")
    assert len(urls) >= 20
    [port, cdp] = free_ports(2)
    with Servers([port], tmp_path / "world") as servers:
        async with async_playwright() as pw:
            browser = await pw.chromium.launch(
                executable_path=chromium_path(), args=[f"--remote-debugging-port={cdp}"]
            )
            w, h = VIEWPORTS[venv_name]
            page = await (await browser.new_context(viewport={"width": w, "height": h})).new_page()
            upstream = await Upstream.start(python, script, f"http://127.0.0.1:{cdp}")
            try:
                yield page, upstream, servers.bases[0], urls
            finally:
                await upstream.close()
                await browser.close()


async def compare(tmp_path: Path, venv_name: str, script: str, mode: str) -> list[PageResult]:
    """Every page of `pages` read by the dialect `mode` and by browser-use's `script`, in one real Chromium."""
    module, dialect = {"bu05": (bu05, bu05.BrowserUse05), "bu13": (bu13, bu13.BrowserUse13)}[mode]
    results: list[PageResult] = []
    async with attached(tmp_path, venv_name, script) as (page, upstream, base, urls):
        for url in urls:
            await page.goto(base + url, wait_until="load")
            view = await capture(page, mode, dialect.expansion, dialect.first)
            if mode == "bu13":  # the whole page block: stats, tabs, page info and the element lines
                got = await upstream.read(page.url)
                ours = indices(bu13.browser_state(view).splitlines())
                theirs = indices(page_block(got, base, view.title).splitlines())
            else:
                ours, theirs = module.element_lines(view.root).splitlines(), await upstream.lines(page.url)
            results.append(PageResult(url, ours, theirs))
    (tmp_path / "lines.json").write_text(json.dumps([r.__dict__ for r in results], indent=1))
    print(table(results))
    return results


@pytest.mark.slow
@pytest.mark.timeout(1800)
async def test_browser_use_05_lines_match_browser_use_itself(tmp_path: Path) -> None:
    results = await compare(tmp_path, ".venv-bu05", "serve05.py", "bu05")
    assert all(r.same for r in results), table(results)


SHOT = {"type": "png", "animations": "disabled", "caret": "hide"}


@pytest.mark.slow
@pytest.mark.timeout(1800)
async def test_browser_use_05_marks_match_browser_use_itself(tmp_path: Path) -> None:
    """The screenshot as the model sees it: on every page, the browser-use-0.5 dialect's marks (drawn by
    page.js with marks on, read off the page, shot, taken off) against browser-use 0.5.0's own (its DomService
    with highlight_elements=True, as its state step draws them before its screenshot, in the same page): the
    same marks (index, boxes, label, colour) and the pictures within marks_compare.PIXEL_TOLERANCE pixels. The
    pictures are kept in tmp_path/marks (the docs' side-by-side ones come from there)."""
    dialect = bu05.BrowserUse05
    rows: list[str] = []
    bad: list[str] = []
    marks_total = 0
    (tmp_path / "marks").mkdir()
    async with attached(tmp_path, ".venv-bu05", "serve05.py") as (page, upstream, base, urls):
        for n, url in enumerate(urls):
            await page.goto(base + url, wait_until="load")
            view = await capture(page, "bu05", dialect.expansion, dialect.first, marks=True)
            ours, ours_png = marks_of(await page.evaluate(READ_MARKS_JS)), await page.screenshot(**SHOT)
            await unmark(page)
            assert marks_of(await page.evaluate(READ_MARKS_JS)) == [], url
            await upstream.lines(page.url)  # browser-use 0.5.0 draws its own marks on the page
            theirs, theirs_png = marks_of(await page.evaluate(READ_MARKS_JS)), await page.screenshot(**SHOT)
            (tmp_path / "marks" / f"{n:02d}-ours.png").write_bytes(ours_png)
            (tmp_path / "marks" / f"{n:02d}-theirs.png").write_bytes(theirs_png)
            problems = mismatch(ours, ours_png, theirs, theirs_png)
            assert [m.index for m in ours] == [
                x.index for x in view.interactive if x.index in {m.index for m in ours}
            ]
            marks_total += len(theirs)
            pixels = differing_pixels(ours_png, theirs_png)
            rows.append(
                f"{'same' if not problems else 'DIFF'} {len(ours):3d}/{len(theirs):<3d} marks {pixels:6d} px {url}"
            )
            bad += [f"{url}: {p}" for p in problems]
    report = "\n".join(
        [
            *rows,
            *bad,
            f"{len(urls) - len({b.split(': ')[0] for b in bad})} of {len(urls)} pages "
            f"with the same marks and pictures ({marks_total} marks)",
        ]
    )
    print(report)
    assert not bad, report


@pytest.mark.slow
@pytest.mark.timeout(1800)
async def test_browser_use_13_lines_match_browser_use_itself(tmp_path: Path) -> None:
    """Every page's whole page block (`<page_stats>`, tabs, `<page_info>`, the element lines) equals 0.13.14's
    (indices aside: `indices`; the tab's id, URL and title as `page_block` says)."""
    results = await compare(tmp_path, ".venv-bu13", "serve13.py", "bu13")
    assert len(results) == 33 and all(r.same for r in results), table(results)


@pytest.mark.slow
@pytest.mark.timeout(1800)
async def test_browser_use_13_screenshot_matches_browser_use_itself(tmp_path: Path) -> None:
    """The screenshot as 0.13.14 sends it to the model (its ScreenshotWatchdog: the highlights removed, then
    Page.captureScreenshot as PNG of the viewport; not resized, llm_screenshot_size being set by itself only
    for Claude Sonnet models) against the browser-use-0.13 dialect's `look` on a plandvc Session of the same
    page: every page the same size (1920x1080) and 0 pixels different. The comparison fails on a marked picture
    (browser-use-0.5's marks drawn on the first page)."""
    rows: list[str] = []
    async with attached(tmp_path, ".venv-bu13", "serve13.py") as (page, upstream, base, urls):
        session = Session(page.context, page, base, await page.context.new_cdp_session(page))
        dialect = bu13.BrowserUse13()
        for n, url in enumerate(urls):
            await page.goto(base + url, wait_until="load")
            ours = (await dialect.look(session)).shot
            theirs = await upstream.shot(page.url)
            size = Image.open(io_bytes(theirs)).size
            rows.append(f"{differing_pixels(ours, theirs):7d} px {size[0]}x{size[1]} {url}")
            if n == 0:
                await capture(page, "bu05", bu05.BrowserUse05.expansion, bu05.BrowserUse05.first, marks=True)
                marked = await session.screenshot()
                await unmark(page)
                assert differing_pixels(marked, theirs) > 0, "a marked picture passed as 0.13.14's"
    print("\n".join(rows))
    assert all(r.split()[0] == "0" and "1920x1080" in r for r in rows), "\n".join(rows)
