"""The raw-browser bound: the same chains' page loads, screenshots and actions driven directly with
Playwright — no agent, prompts, replay, gates or rows. What run-chains could reach if the agent cost nothing.

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

from plandvc import io
from plandvc.browser.chromium import Browser
from plandvc.browser.session import SCREENSHOT_PARAMS
from plandvc.pool.store import Pool
from plandvc.ports import free_ports
from plandvc.run.runner import load_parts
from plandvc.sites.servers import Servers


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


async def run_chain(browser: Browser, base: str, chain: dict[str, Any], parts: list[dict[str, Any]]) -> bool:
    ctx = await browser.new_context()
    page = await ctx.new_page()
    cdp = await ctx.new_cdp_session(page)

    async def screenshot() -> None:  # the harness's capture: one DevTools call
        await cdp.send("Page.captureScreenshot", SCREENSHOT_PARAMS)

    try:
        await prep(page, base, parts[0]["task"])
        await page.goto(base + parts[0]["task"]["start"]["url"])
        for spec, part in zip(chain["parts"], parts, strict=True):
            if spec["via"] == "home":
                await screenshot()  # the planner's turn
                async with page.expect_navigation():
                    await page.locator("a[data-home]").first.click()
            await screenshot()
            for step in part["traj"]["steps"]:
                el = part["elements"][step["element"]] if step.get("element") is not None else None
                await act(page, step, el)
        await screenshot()  # the done turn
        return True
    except Exception as e:
        print(f"raw bound: {chain['key']}: {type(e).__name__}: {str(e).splitlines()[0]}", file=sys.stderr)
        return False
    finally:
        await ctx.close()


async def bound(chains: list[dict[str, Any]], pool: Path, bases: list[str], workers: int) -> dict[str, Any]:
    store = Pool.open(pool)
    todo = [(c, load_parts(store, c)[0]) for c in chains]
    queue: asyncio.Queue[Any] = asyncio.Queue()
    for item in todo:
        queue.put_nowait(item)
    ok = 0
    browsers = [Browser() for _ in range(workers)]
    try:
        await asyncio.gather(*(b.start() for b in browsers))
        t0 = time.monotonic()

        async def worker(w: int) -> None:
            nonlocal ok
            while not queue.empty():
                c, parts = queue.get_nowait()
                done = await run_chain(browsers[w], bases[w % len(bases)], c, parts)
                ok += done

        await asyncio.gather(*(worker(w) for w in range(workers)))
        wall = time.monotonic() - t0
    finally:
        await asyncio.gather(*(b.close() for b in browsers))
    return {
        "browser": browsers[0].binary,
        "chains": len(chains),
        "ok": ok,
        "wall_s": round(wall, 2),
        "chains_per_min": round(len(chains) / wall * 60, 1),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--chains", type=Path, required=True)
    ap.add_argument("--pool", type=Path, default=Path("data/pool"))
    ap.add_argument("--sites", type=Path, default=Path("data/sites"))
    ap.add_argument("--workers", type=int, default=int(os.environ.get("PLANDVC_WORKERS", "2")))
    args = ap.parse_args(argv)
    chains = io.read_jsonl(args.chains)
    with Servers(free_ports(max(1, min(args.workers, 2))), args.sites) as srv:
        res = asyncio.run(bound(chains, args.pool, srv.bases, args.workers))
    print(json.dumps(res))
    return 0


if __name__ == "__main__":
    sys.exit(main())
