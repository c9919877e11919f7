"""The browser-use dialects against browser-use itself: world pages (every macro's start and end page, so
every layout family, dialogs, calendars, autocomplete, pagination) rendered by plandvc's serializer and by
browser-use's own, installed from PyPI into its own venv (`make browser-use`: .venv-bu05 from
requirements-browser-use-0.5.lock, with hashes) and attached to this test's Chromium over CDP. Skipped when
that venv is missing. The lines are compared one for one; the comparison is written to the test's log."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from playwright.async_api import async_playwright

from plandvc import io
from plandvc.agent.dialects import bu05
from plandvc.agent.dialects.page import capture
from plandvc.browser.chromium import chromium_path
from plandvc.ports import free_ports
from plandvc.sites.servers import Servers
from plandvc.world.make import make_world

ROOT = Path(__file__).resolve().parents[1]
VENV05 = ROOT / ".venv-bu05" / "bin" / "python"
POOL = ROOT / "data" / "world-pool" / "runs" / "r1" / "accepted"


def pages(n_sites: int = 3) -> list[str]:
    """The start and end page of the first task of each macro on `n_sites` sites, deduplicated, in order."""
    urls: list[str] = []
    seen: set[tuple[str, str]] = set()
    for d in sorted(POOL.iterdir()):
        site, macro = d.name.rsplit("-", 2)[0], d.name.rsplit("-", 2)[1]
        if (site, macro) in seen or len({s for s, _ in seen} | {site}) > n_sites:
            continue
        seen.add((site, macro))
        task, traj = io.read_json(d / "task.json"), io.read_json(d / "trajectory.json")
        for url in (
            task["start"]["url"],
            traj["end"]["url"] if isinstance(traj["end"], dict) else traj["end"],
        ):
            if url not in urls:
                urls.append(url)
    return urls


@pytest.mark.slow
@pytest.mark.timeout(900)
@pytest.mark.skipif(not VENV05.exists(), reason="no .venv-bu05 (make browser-use)")
async def test_browser_use_05_lines_match_browser_use_itself(tmp_path: Path) -> None:
    make_world(tmp_path / "world", seed=0)
    urls = pages()
    assert len(urls) >= 20
    [port, cdp] = free_ports(2)
    report = []
    with Servers([port], tmp_path / "world") as servers:
        async with async_playwright() as pw:
            browser = await pw.chromium.launch(
                executable_path=chromium_path(), args=[f"--remote-debugging-port={cdp}"]
            )
            page = await (await browser.new_context(viewport={"width": 1280, "height": 800})).new_page()
            for url in urls:
                await page.goto(servers.bases[0] + url, wait_until="load")
                ours = bu05.element_lines((await capture(page, "bu05", bu05.EXPANSION, 0)).root)
                out = subprocess.run(
                    [
                        str(VENV05),
                        str(ROOT / "tests" / "browser_use" / "lines05.py"),
                        f"http://127.0.0.1:{cdp}",
                        page.url,
                    ],
                    capture_output=True,
                    text=True,
                    check=False,
                    timeout=120,
                )
                assert out.returncode == 0, out.stderr[-2000:]
                theirs = json.loads(out.stdout.strip().splitlines()[-1])
                a, b = ours.splitlines(), theirs.splitlines()
                diff = [(x, y) for x, y in zip(a, b, strict=False) if x != y]
                report.append(
                    {"url": url, "ours": len(a), "theirs": len(b), "same": a == b, "first_diff": diff[:3]}
                )
            await browser.close()
    (tmp_path / "conformance-0.5.json").write_text(json.dumps(report, indent=1))
    print(json.dumps(report, indent=1))
    matched = sum(r["same"] for r in report)
    assert matched == len(report), (
        f"{matched} of {len(report)} pages match: {[r for r in report if not r['same']][:3]}"
    )
