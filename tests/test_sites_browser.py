"""The sites in real Chromium (Playwright directly, Debian's chromium): each control kind is filled and
submitted like a user would and lands on the URL the contract names; create forms work; copy buttons write
to the clipboard; 4 browser contexts in parallel keep their own state."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from urllib.parse import parse_qs, urlsplit

import pytest
import pytest_asyncio
from bundled import SPECS
from playwright.async_api import Browser, BrowserContext, Page

from plandvc.sites.query import select_rows
from plandvc.sites.spec import Control
from plandvc.sites.spec import Page as SitePage

pytestmark = pytest.mark.asyncio(loop_scope="module")

# record clipboard writes per page, as the harness does (the OS clipboard is shared by all contexts)
CLIPBOARD_SPY = """
window.__copied = [];
navigator.clipboard.writeText = async (text) => { window.__copied.push(String(text)); };
"""


async def new_context(browser: Browser, base: str) -> BrowserContext:
    ctx = await browser.new_context(base_url=base, viewport={"width": 1280, "height": 800}, locale="en-US")
    await ctx.add_init_script(CLIPBOARD_SPY)
    return ctx


@pytest_asyncio.fixture(loop_scope="module")
async def page(pw_browser: Browser, base: str) -> AsyncIterator[Page]:
    ctx = await new_context(pw_browser, base)
    yield await ctx.new_page()
    await ctx.close()


def control_of(kind: str) -> tuple[str, SitePage, Control]:
    """(site, page, control) of the first control of `kind`, walking the sites in a fixed order."""
    for site in sorted(SPECS):
        for p, c in SPECS[site].controls:
            if c.kind == kind:
                return site, p, c
    raise LookupError(kind)


def query(page: Page) -> dict[str, list[str]]:
    return parse_qs(urlsplit(page.url).query, keep_blank_values=False)


async def count_line(page: Page) -> str:
    return (await page.locator("p[data-count]").inner_text()).strip()


async def apply(page: Page, c: Control) -> None:
    async with page.expect_navigation():
        await page.click(f'[data-control-id="{c.control_id}-apply"]')


def expected_count(site: str, p: SitePage, pairs: list[tuple[str, str]]) -> str:
    t = SPECS[site].table_of(p)
    return f"Showing {len(select_rows(p, t, list(t.rows), pairs))} {p.title}"


async def test_dropdown_in_chromium(page: Page):
    site, p, c = control_of("dropdown")
    value = SPECS[site].table_of(p).column(str(c.column)).values[1]
    await page.goto(f"/sites/{site}/{p.page}")
    await page.select_option(f'select[data-control-id="{c.control_id}"]', label=value)
    await apply(page, c)
    assert urlsplit(page.url).path == f"/sites/{site}/{p.page}"
    assert query(page) == {c.param: [value]}
    assert await count_line(page) == expected_count(site, p, [(str(c.param), value)])


async def test_options_in_chromium(page: Page):
    site, p, c = control_of("options")
    values = list(SPECS[site].table_of(p).column(str(c.column)).values[:2])
    await page.goto(f"/sites/{site}/{p.page}")
    for v in values:
        await page.get_by_label(v, exact=True).check()
    await apply(page, c)
    assert query(page) == {c.param: values}
    assert await count_line(page) == expected_count(site, p, [(str(c.param), v) for v in values])


async def test_slider_in_chromium(page: Page):
    site, p, c = control_of("slider")
    assert c.min is not None and c.max is not None and c.step is not None
    value = int(c.min + ((c.max - c.min) // 2 // c.step) * c.step)
    await page.goto(f"/sites/{site}/{p.page}")
    await page.locator(f'input[type=range][data-control-id="{c.control_id}"]').fill(str(value))
    await apply(page, c)
    assert query(page) == {c.param: [str(value)]}
    assert await count_line(page) == expected_count(site, p, [(str(c.param), str(value))])
    assert await page.locator(f'[data-value-of="{c.control_id}"]').inner_text() != "any"


async def test_date_range_in_chromium(page: Page):
    site, p, c = control_of("date_range")
    dates = sorted(r[str(c.column)] for r in SPECS[site].table_of(p).rows)
    lo, hi = dates[3], dates[-4]
    await page.goto(f"/sites/{site}/{p.page}")
    await page.fill(f"#{c.control_id}-from", lo)
    await page.fill(f"#{c.control_id}-to", hi)
    await apply(page, c)
    assert query(page) == {c.params[0]: [lo], c.params[1]: [hi]}
    assert await count_line(page) == expected_count(site, p, [(c.params[0], lo), (c.params[1], hi)])


async def test_sort_in_chromium(page: Page):
    site, p, c = control_of("sort")
    t = SPECS[site].table_of(p)
    column = c.columns[1]
    await page.goto(f"/sites/{site}/{p.page}")
    await page.select_option(f"#{c.control_id}-column", label=t.column(column).label)
    await page.select_option(f"#{c.control_id}-dir", label="Descending")
    await apply(page, c)
    assert query(page) == {c.params[0]: [column], c.params[1]: ["desc"]}
    rows = select_rows(p, t, list(t.rows), [(c.params[0], column), (c.params[1], "desc")])
    first = await page.locator("table.rows tbody tr").first.locator("a").inner_text()
    assert first == str(rows[0][t.label])


async def test_search_in_chromium(page: Page):
    site, p, c = control_of("search")
    t = SPECS[site].table_of(p)
    needle = str(t.rows[4][c.columns[0]]).split()[0].lower()
    await page.goto(f"/sites/{site}/{p.page}")
    await page.fill(f'input[type=search][data-control-id="{c.control_id}"]', needle)
    await apply(page, c)
    assert query(page) == {c.param: [needle]}
    assert await count_line(page) == expected_count(site, p, [(str(c.param), needle)])


async def test_a_second_control_keeps_the_first_ones_state(page: Page):
    """Filter by a dropdown, then sort: the URL holds both, as the chains need."""
    site, p, dropdown = control_of("dropdown")
    sort = next(c for c in p.controls if c.kind == "sort")
    value = SPECS[site].table_of(p).column(str(dropdown.column)).values[0]
    await page.goto(f"/sites/{site}/{p.page}")
    await page.select_option(f'select[data-control-id="{dropdown.control_id}"]', label=value)
    await apply(page, dropdown)
    await page.select_option(f"#{sort.control_id}-dir", label="Descending")
    await apply(page, sort)
    assert query(page) == {
        dropdown.param: [value],
        sort.params[0]: [sort.columns[0]],
        sort.params[1]: ["desc"],
    }


async def test_copy_button_writes_the_value(page: Page):
    await page.goto("/sites/fleet/vehicles/VEH-44")
    button = page.locator("button[data-copy]")
    value = await button.get_attribute("data-copy")
    await button.click()
    assert value == SPECS["fleet"].tables["vehicles"].rows[3]["plate"]
    assert await page.evaluate("window.__copied") == [value]


async def create_order(ctx: BrowserContext, customer: str) -> dict:
    """Fill and submit the shop's create form in this context; return the context's state."""
    page = await ctx.new_page()
    await page.goto("/sites/shop")
    await page.click('a[data-nav="orders"]')
    await page.click('a[data-action="create"]')
    await page.fill("#orders-create-customer", customer)
    await page.select_option("#orders-create-status", label="Paid")
    await page.select_option("#orders-create-channel", label="Phone")
    await page.fill("#orders-create-total", "77.25")
    await page.fill("#orders-create-items", "3")
    await page.fill("#orders-create-placed", "2026-03-10")
    async with page.expect_navigation():
        await page.click('[data-control-id="orders-create-apply"]')
    assert urlsplit(page.url).path == "/sites/shop/orders"
    assert await page.get_by_text(customer, exact=True).count() == 1
    r = await ctx.request.get("/_state/shop")
    await page.close()
    return await r.json()


async def test_four_contexts_in_parallel_keep_their_own_entries(pw_browser: Browser, base: str):
    contexts = [await new_context(pw_browser, base) for _ in range(4)]
    try:
        names = [f"Parallel Buyer {i}" for i in range(4)]
        states = await asyncio.gather(*(create_order(ctx, n) for ctx, n in zip(contexts, names, strict=True)))
        for name, state in zip(names, states, strict=True):
            (change,) = state["changes"]
            assert change["op"] == "create" and change["fields"]["customer"] == name
            assert change["fields"]["total"] == 77.25 and change["fields"]["items"] == 3
            created = [
                o["customer"] for o in state["entries"]["orders"] if o["customer"].startswith("Parallel")
            ]
            assert created == [name]
        # the edit form, in one context, touches only that context
        page = await contexts[0].new_page()
        await page.goto("/sites/shop/orders/ORD-1033/edit")
        await page.select_option("#orders-edit-status", label="Delivered")
        async with page.expect_navigation():
            await page.click('[data-control-id="orders-edit-apply"]')
        assert urlsplit(page.url).path == "/sites/shop/orders/ORD-1033"
        assert await page.locator('dd[data-field="status"]').inner_text() == "Delivered"
        s0 = await (await contexts[0].request.get("/_state/shop")).json()
        s1 = await (await contexts[1].request.get("/_state/shop")).json()
        assert [c["op"] for c in s0["changes"]] == ["create", "update"] and len(s1["changes"]) == 1
        await contexts[0].request.post("/_state/shop/reset")
        assert (await (await contexts[0].request.get("/_state/shop")).json())["changes"] == []
    finally:
        for ctx in contexts:
            await ctx.close()
