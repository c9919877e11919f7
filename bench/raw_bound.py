"""The raw-browser bound: the same chains' page loads, screenshots and actions driven directly with
Playwright — no agent, prompts, snapshots, dialect, replay, gates or rows. What run-chains could reach if the
agent cost nothing. A chain's delegations are run-chains' own (`plandvc.run.plan.build_steps`, a recovery
chain's failed attempt and recovery included); a goal's live steps are driven by what their records say
(the same moves `plandvc.run.goal.LiveSteps` chooses on a snapshot). It prints, per chain, the page each
delegation ended on, so a test can hold the bound to the pages run-chains visits.

It launches Chromium and opens each chain's context through the harness's own `Browser` (the same binary,
flags and context settings as run-chains), so the ratio of the two measures the agent's cost alone.

    python bench/raw_bound.py --chains bench/out/chains.jsonl --pool data/pool --sites data/sites --workers 2
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from plandvc import io
from plandvc.browser.chromium import Browser
from plandvc.browser.session import SCREENSHOT_PARAMS
from plandvc.ports import free_ports
from plandvc.records import GoalStep
from plandvc.run.goal import READS
from plandvc.run.inputs import ChainJob, load_jobs
from plandvc.run.plan import SiteInfo, build_steps
from plandvc.run.recovery import plan_failure
from plandvc.sites.servers import Servers
from plandvc.sites.spec import load_sites, site_name

# the index of the link to the entry named arg[1] of the list arg[0] (`plandvc.run.goal`'s `_is_entry`), or -1
ENTRY_LINK_JS = """(els, [page, name]) => els.findIndex(e => {
  const path = new URL(e.getAttribute('href'), location.href).pathname, rest = path.slice(page.length + 1);
  return path.startsWith(page + '/') && rest && !rest.includes('/') && rest !== 'new' && rest !== 'create'
    && e.innerText.split(/\\s+/).join(' ').trim() === name; })"""
TIMEOUT_MS = 10_000  # a click that finds nothing fails the chain (the bound's run stays short)
# what an Information specialist reads off the page (`plandvc.browser.session.Session.read`)
READ_JS = "els => els.map(e => [e.getAttribute('href') || '', e.innerText])"


def selector(d: dict[str, Any]) -> str:
    """A CSS selector for a recorded element, from its stable attributes."""
    a = d.get("attrs") or {}
    if a.get("id"):
        return f"#{a['id']}"
    if "data-home" in a:
        return "a[data-home]"
    if a.get("data-copy"):
        return f'[data-copy="{a["data-copy"]}"]'
    if a.get("data-control-id"):
        extra = f'[value="{a["value"]}"]' if a.get("value") and d.get("role") in ("checkbox", "radio") else ""
        if (
            not extra and d.get("text") and d["tag"] in ("a", "button")
        ):  # one chip or link of a control's many
            extra = f':text-is("{_q(str(d["text"]))}")'
        return f'[data-control-id="{a["data-control-id"]}"]{extra}'
    if a.get("href"):
        return f'{d["tag"]}[href="{a["href"]}"]'
    if a.get("name"):
        return f'{d["tag"]}[name="{a["name"]}"]'
    return f'{d["tag"]}:has-text("{d.get("text", "")}")'


async def act(page: Any, step: dict[str, Any], el: dict[str, Any] | None) -> None:
    action, value = step["action"], step.get("value")
    if action == "go_to":
        await page.goto(page.url.split("/sites/")[0] + value)
        return
    if action == "back":
        await page.go_back()
        return
    if action == "scroll":
        await page.mouse.wheel(0, int(value or 0))
        return
    loc = page.locator(selector(el)).first
    if action == "click":
        navigates = el["tag"] == "a" or (
            el["tag"] == "button" and (el.get("attrs") or {}).get("type") == "submit"
        )
        if navigates and not (el.get("attrs") or {}).get("data-copy"):
            async with page.expect_navigation():
                await loc.click()
        else:
            await loc.click()
    elif action == "input":
        await loc.fill(str(value))
    elif action == "select":
        await loc.select_option(label=str(value))
    elif action == "set_range":
        await loc.evaluate(
            "(e, v) => { e.value = v; e.dispatchEvent(new Event('input', {bubbles: true}));"
            " e.dispatchEvent(new Event('change', {bubbles: true})); }",
            str(value),
        )


async def prep(page: Any, base: str, task: dict[str, Any]) -> None:
    """The first part's control prep (an entry created through the site's form), as run-chains does it."""
    create = ((task.get("control") or {}).get("prep") or {}).get("create")
    if not create:
        return
    form = f"{create['page']}-create"
    await page.goto(f"{base}/sites/{task['site']}/{create['page']}/new")
    for name, value in create["fields"].items():
        loc = page.locator(f'[data-control-id="{form}-{name}"]')
        v = str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)
        if await loc.evaluate("(e) => e.tagName") == "SELECT":
            await loc.select_option(label=v)
        else:
            await loc.fill(v)
    async with page.expect_navigation():
        await page.locator(f'[data-control-id="{form}-apply"]').click()


def _q(text: str) -> str:
    """`text` as a CSS attribute value in double quotes."""
    return text.replace("\\", "\\\\").replace('"', '\\"')


async def click(page: Any, css: str) -> None:
    """Click the first element `css` finds and wait for the page it may load (Playwright waits for a
    navigation the click starts)."""
    await page.locator(css).first.click()
    await page.wait_for_load_state()


async def live_step(page: Any, st: GoalStep) -> None:
    """A goal's live step driven by what its record says (`plandvc.run.goal.LiveSteps` makes the same moves
    after reading a snapshot): reads read the page; `open` clicks the entry's link (back to the list first when
    an entry's page is shown), `copy` the copy button, `delete` the Delete button and its confirmation,
    `narrow` sets the control's field and applies it."""
    key, list_page = st["page"].rsplit("/", 1)[-1], st["page"]
    back = f'a[href*="{_q(list_page)}"]:text-matches("^Back to ")'  # its href may keep the query
    if st["do"] in READS:
        selector = {"find": "main a[href]", "count": "p.count"}.get(st["do"])
        field = f'dl.fields dd[data-field="{_q(st.get("field", ""))}"]'
        await page.eval_on_selector_all(selector or field, READ_JS)
        return
    if st["do"] == "open":
        at = await page.eval_on_selector_all("a[href]", ENTRY_LINK_JS, [list_page, st["name"]])
        if at < 0:
            await click(page, back)
            at = await page.eval_on_selector_all("a[href]", ENTRY_LINK_JS, [list_page, st["name"]])
        await page.locator("a[href]").nth(at).click()
        await page.wait_for_load_state()
    elif st["do"] == "copy":
        await click(page, f'[data-control-id="{_q(key)}-copy"][data-copy]')
    elif st["do"] == "delete":
        await click(page, 'button:text-matches("^Delete ")')
        await click(page, f'[data-control-id="{_q(key)}-delete-confirm"]:text-is("Delete")')
    else:  # narrow
        cid, value = st.get("control", ""), st.get("value", "")
        if urlsplit(page.url).path != list_page:
            await click(page, back)
        if st.get("action") == "facet":
            await click(page, f'a[data-control-id="{_q(cid)}-facet"]:text-is("{_q(value)}")')
        else:
            loc = page.locator(f'[data-control-id="{_q(cid)}"][name="{_q(st.get("param", ""))}"]').first
            if st.get("action") == "input":
                await loc.fill(value)
            else:
                await loc.select_option(label=value)
            await page.wait_for_load_state()
        if st.get("apply"):
            await click(page, f'[data-control-id="{_q(st.get("apply", ""))}"]')


async def run_chain(browser: Browser, base: str, job: ChainJob) -> list[str] | None:
    """One chain's page loads, clicks and fills as run-chains makes them (its delegations from
    `build_steps`: trips home, replayed parts, a recovery chain's failed attempt and its recovery, a goal's
    readings and live steps), a screenshot per planner turn; the paths of the pages each delegation ended on
    (what run-chains' episode records as its end URLs), or None when the chain could not be driven."""
    chain, parts = job.chain, job.parts
    failure = None
    if "failure" in chain:
        failure = plan_failure(chain["failure"], parts[chain["failure"]["part"]], job.sibling, chain["key"])
    ctx = await browser.new_context()
    page = await ctx.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    cdp = await ctx.new_cdp_session(page)

    async def screenshot() -> None:  # the harness's capture: one DevTools call
        await cdp.send("Page.captureScreenshot", SCREENSHOT_PARAMS)

    ends: list[str] = []
    try:
        await prep(page, base, parts[0]["task"])
        await page.goto(base + parts[0]["task"]["start"]["url"])
        for step in build_steps(chain, parts, job.site, failure):
            await screenshot()  # the planner's turn
            if step.goal is not None:
                read = step.goal.get("read")
                css = read["selector"] if read is not None else "main a[href]"
                await page.eval_on_selector_all(
                    "p.count" if step.goal["kind"] == "count" and read is None else css, READ_JS
                )
            elif step.live is not None:
                await live_step(page, step.live)
            else:
                for s in step.traj["steps"]:
                    el = step.elements[s["element"]] if s.get("element") is not None else None
                    banner = el is not None and "data-dismiss" in (el.get("attrs") or {})
                    if banner and el is not None and not await page.locator(selector(el)).first.is_visible():
                        continue  # the banner an earlier part closed (as the Replayer skips it)
                    await act(page, s, el)
            ends.append(url_path(page.url))
        await screenshot()  # the done turn
        return ends
    except Exception as e:
        where = next((ln.strip() for ln in str(e).splitlines() if "locator(" in ln), "")
        print(
            f"raw bound: {chain['key']}: {type(e).__name__}: {str(e).splitlines()[0]} {where} on {url_path(page.url)}",
            file=sys.stderr,
        )
        return None
    finally:
        await ctx.close()


def url_path(url: str) -> str:
    """A page's path and query, without the server's origin (the same page on either server)."""
    u = urlsplit(url)
    return u.path + (f"?{u.query}" if u.query else "")


async def bound(jobs: list[ChainJob], bases: list[str], workers: int) -> dict[str, Any]:
    queue: asyncio.Queue[ChainJob] = asyncio.Queue()
    for job in jobs:
        queue.put_nowait(job)
    pages: dict[str, list[str]] = {}
    browsers = [Browser() for _ in range(workers)]
    try:
        await asyncio.gather(*(b.start() for b in browsers))
        t0 = time.monotonic()

        async def worker(w: int) -> None:
            while not queue.empty():
                job = queue.get_nowait()
                ends = await run_chain(browsers[w], bases[w % len(bases)], job)
                if ends is not None:
                    pages[job.key] = ends

        await asyncio.gather(*(worker(w) for w in range(workers)))
        wall = time.monotonic() - t0
    finally:
        await asyncio.gather(*(b.close() for b in browsers))
    return {
        "browser": browsers[0].binary,
        "chains": len(jobs),
        "ok": len(pages),
        "wall_s": round(wall, 2),
        "chains_per_min": round(len(jobs) / wall * 60, 1),
        "pages": dict(sorted(pages.items())),
    }


def load(chains: Path, pool: Path, sites: Path) -> list[ChainJob]:
    """The chains' jobs as run-chains checks and loads them (parts, a recovery chain's sibling, the site)."""
    specs = load_sites(sites)
    info = {s: SiteInfo(site_name(sites, s), specs[s].today) for s in specs}
    return load_jobs(chains, io.read_jsonl(chains), pool, info)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--chains", type=Path, required=True)
    ap.add_argument("--pool", type=Path, default=Path("data/pool"))
    ap.add_argument("--sites", type=Path, default=Path("data/sites"))
    ap.add_argument("--workers", type=int, default=int(os.environ.get("PLANDVC_WORKERS", "2")))
    args = ap.parse_args(argv)
    jobs = load(args.chains, args.pool, args.sites)
    with Servers(free_ports(max(1, min(args.workers, 2))), args.sites) as srv:
        res = asyncio.run(bound(jobs, srv.bases, args.workers))
    print(json.dumps(res))
    return 0


if __name__ == "__main__":
    sys.exit(main())
