"""The viewer on a small real run (run-chains on the sample pool, real servers and Chromium, then filter-rows):
a two-part chain of the seeded walk that answers a question, its duplicate under another key (filter-rows
drops one), and a chain whose first part's gate fails (a second filter of the same dropdown undoes the
first). The pages are driven in real Chromium from file://.
"""

from __future__ import annotations

import hashlib
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from bundled import pool_items_once
from raw_chains import tree
from view_pages import in_chromium, open_ready

from plandvc import io
from plandvc.chains.walk import chain_specs
from plandvc.macros import QA_MACROS
from plandvc.rows.dataset import filter_rows
from plandvc.view import make_view

ROOT = Path(__file__).resolve().parents[1]
POOL, SITES = ROOT / "data" / "pool", ROOT / "data" / "sites"
FAILING = "plan-hotel-0000000bad"  # its second part filters the same dropdown again: the first gate fails


def small_chains() -> list[dict[str, Any]]:
    records, _ = pool_items_once(POOL, SITES)
    macro = {r["id"]: r["macro"] for r in records}
    walked = next(
        c
        for c in chain_specs(records, 30, seed=11)
        if len(c["parts"]) == 2 and c["site"] != "hotel" and macro[c["parts"][-1]["id"]] in QA_MACROS
    )
    chains = [walked]
    chains.append(
        {
            "key": FAILING,
            "site": "hotel",
            "parts": [
                {"id": "hotel-filter_by_dropdown-0001", "via": None},
                {"id": "hotel-filter_by_dropdown-0002", "via": "page"},
            ],
        }
    )
    # the same parts under another key: filter-rows keeps the first key in sort order and drops the other
    chains.append(
        {"key": f"plan-{walked['site']}-00000d0b1e", "site": walked["site"], "parts": walked["parts"]}
    )
    return chains


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """work/{raw, rows/v1, metrics, view/v1}: a real run-chains of small_chains(), filter-rows, the viewer."""
    work = tmp_path_factory.mktemp("view")
    io.write_jsonl(work / "chains.jsonl", small_chains())
    args = ["--chains", work / "chains.jsonl", "--pool", POOL, "--sites", SITES, "--out", work / "raw"]
    args += ["--cache", work / "cache"]
    p = subprocess.run(
        [sys.executable, "-m", "plandvc", "run-chains", *map(str, args), "--workers", "2", "--no-progress"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=600,
    )
    assert p.returncode == 0, p.stderr[-2000:]
    filter_rows(work / "raw", work / "rows" / "v1", work / "metrics", val_share=0.5)
    make_view(work / "rows" / "v1", work / "raw", work / "view" / "v1")
    return work


def manifest(run: Path) -> dict[str, Any]:
    return io.read_json(run / "rows" / "v1" / "manifest.json")


# ---- the files ----------------------------------------------------------------------------------------------


def test_the_run_has_kept_dropped_and_failed_chains(run: Path) -> None:
    m = manifest(run)
    assert m["counts"]["chains_raw"] == 3 and m["counts"]["chains"] == 1
    assert [d["kind"] for d in m["dropped"]] == ["duplicate"]
    results = {r["key"]: r for r in io.read_jsonl(run / "raw" / "results.jsonl")}
    assert not results[FAILING]["ok"] and results[FAILING]["error"].startswith("check failed")
    stats = io.read_json(run / "view" / "v1" / "view.json")["stats"]
    assert stats["by_status"] == {"kept": 1, "dropped": 1, "failed": 1}


def test_same_inputs_give_the_same_bytes(run: Path) -> None:
    out = run / "view" / "v1"
    first = tree(out)
    make_view(run / "rows" / "v1", run / "raw", out)
    assert tree(out) == first
    assert not [p for p in out.parent.iterdir() if p.name != "v1"]  # nothing left beside it


def test_pages_hold_no_absolute_path_and_no_image_copy(run: Path) -> None:
    files = tree(run / "view" / "v1")
    assert not [f for f in files if f.endswith(".png")]
    for name, data in files.items():
        assert str(run).encode() not in data, name
        assert b"http://" not in data and b"https://" not in data, name
    # every screenshot a chain page names exists, relative to that page
    chains = run / "view" / "v1" / "chains"
    srcs = {
        m.decode()
        for name, data in files.items()
        if name.startswith("chains/")
        for m in re.findall(rb'"image":"([^"]+)"', data)
    }
    assert srcs and all((chains / s).is_file() for s in srcs)
    assert all(s.startswith("../../../rows/v1/") or "/raw/" in s for s in srcs)


def test_the_cli_prints_the_index_path_and_a_summary(run: Path, tmp_path: Path) -> None:
    out = tmp_path / "view"
    p = subprocess.run(
        [sys.executable, "-m", "plandvc", "view", "--dataset", str(run / "rows" / "v1"), "--out", str(out)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == str(out / "index.html")
    assert "2 chains (1 kept, 1 dropped, 0 failed)" in p.stderr  # no --raw: the failed chain is unknown
    with_raw, without = (read_view_index(d / "index.html") for d in (run / "view" / "v1", out))
    kept = [e for e in with_raw if e["status"] == "kept"]
    assert kept == [e for e in without if e["status"] == "kept"]  # via and all from the episode, not the run
    assert kept and kept[0]["via"] == ["start", "home"]  # the walked chain goes home for its question


def read_view_index(index: Path) -> list[dict[str, Any]]:
    """The chains embedded in an index page, as its script reads them."""
    text = index.read_text()
    data = text.split('<script type="application/json" id="view-data">', 1)[1].split("</script>", 1)[0]
    return io.loads(data)["chains"]


# ---- in Chromium --------------------------------------------------------------------------------------------


@in_chromium
async def test_the_index_lists_as_many_chains_as_the_manifest(run: Path, file_page) -> None:
    pg, watch = file_page
    await open_ready(pg, run / "view" / "v1" / "index.html")
    n = manifest(run)["counts"]["chains_raw"]
    assert await pg.locator("#rows tr").count() == n
    assert (await pg.text_content("#count-total")).startswith(f"{n} chains: 1 kept · 1 dropped · 1 failed")
    failed = pg.locator(f'#rows tr[data-key="{FAILING}"]')
    assert await failed.get_attribute("data-status") == "failed"
    assert "check failed" in await failed.locator(".reason").text_content()
    assert "hotel-filter_by_dropdown-0001" in await failed.locator(".failed-part").text_content()
    watch.assert_clean()


@in_chromium
async def test_filtering_by_site_and_searching_leave_only_the_matches(run: Path, file_page) -> None:
    pg, watch = file_page
    await open_ready(pg, run / "view" / "v1" / "index.html")
    await pg.select_option("#f-site", "hotel")
    sites = await pg.locator("#rows tr").evaluate_all("rows => rows.map(r => r.dataset.site)")
    assert sites == ["hotel"]
    assert "#site=hotel" in pg.url
    await pg.select_option("#f-site", "")
    await pg.select_option("#f-status", "kept")
    keys = await pg.locator("#rows tr").evaluate_all("rows => rows.map(r => r.dataset.key)")
    assert keys == [c["key"] for c in manifest(run)["chains"]]
    await pg.select_option("#f-status", "")
    await pg.select_option("#f-family", "Filter")  # only the failing chain delegates to Filter
    assert await pg.locator("#rows tr").evaluate_all("rows => rows.map(r => r.dataset.key)") == [FAILING]
    await pg.select_option("#f-family", "")
    await pg.select_option("#f-split", "none")  # chains not in the version have no split
    statuses = await pg.locator("#rows tr").evaluate_all("rows => rows.map(r => r.dataset.status)")
    assert sorted(statuses) == ["dropped", "failed"]
    await pg.click("#f-clear")
    await pg.fill("#f-q", "checked out")  # the failing chain's request, in another case
    keys = await pg.locator("#rows tr").evaluate_all("rows => rows.map(r => r.dataset.key)")
    assert keys == [FAILING]
    await pg.fill("#f-q", "no request says this")
    assert await pg.locator("#rows tr").count() == 0
    assert await pg.text_content("#count-shown") == "no chain matches"
    watch.assert_clean()


@in_chromium
async def test_a_chain_page_steps_with_the_keyboard(run: Path, file_page) -> None:
    pg, watch = file_page
    await open_ready(pg, run / "view" / "v1" / "index.html")
    key = manifest(run)["chains"][0]["key"]
    await pg.click(f'#rows tr[data-key="{key}"] a')
    await pg.wait_for_selector("body[data-ready]", state="attached")
    assert pg.url.split("#")[0].endswith(f"/chains/{key}.html")
    await pg.wait_for_function("document.getElementById('shot').complete")
    assert await pg.eval_on_selector("#shot", "img => img.naturalWidth") == 1280
    assert (await pg.get_attribute("#shot", "src")).endswith(f"/rows/v1/{key}/step_0.png")

    async def step() -> dict[str, str]:
        return await pg.evaluate(
            """() => ({src: document.getElementById('shot').getAttribute('src'),
                       target: document.getElementById('target').textContent,
                       mark: document.querySelector('#target mark').textContent,
                       memory: document.getElementById('memory').textContent,
                       added: [...document.querySelectorAll('#memory ins')].map(e => e.textContent).join(''),
                       report: document.getElementById('report').textContent})"""
        )

    first = await step()
    assert first["mark"].startswith('[{"delegate":') and first["report"].startswith("Report: The ")
    await pg.keyboard.press("ArrowRight")
    second = await step()
    assert second["src"].endswith("step_1.png") and second["src"] != first["src"]
    assert second["target"] != first["target"] and second["memory"] != first["memory"]
    assert second["added"] and second["added"] != second["memory"]  # only what changed is marked
    assert await pg.get_attribute('#strip [data-step="1"]', "aria-selected") == "true"
    assert pg.url.endswith("#step-2")
    await pg.wait_for_function("document.getElementById('shot').complete")
    assert await pg.eval_on_selector("#shot", "img => img.naturalWidth") == 1280
    await pg.keyboard.press("ArrowLeft")
    assert (await step())["src"] == first["src"]
    await pg.keyboard.press("ArrowLeft")  # before the first step: stays
    assert (await step())["src"] == first["src"]
    await pg.click("#shot")  # click to zoom
    assert await pg.is_visible("#zoom")
    await pg.wait_for_function("document.getElementById('zoom-img').complete")
    assert await pg.eval_on_selector("#zoom-img", "img => img.naturalWidth") == 1280
    await pg.keyboard.press("Escape")
    assert not await pg.is_visible("#zoom")
    last = len(await pg.locator("#strip button").all())
    for _ in range(last + 2):
        await pg.keyboard.press("ArrowRight")
    done = await step()
    assert done["mark"].startswith('[{"done":') and "no report" in done["report"]
    assert await pg.locator("#d-browser_state[open]").count() == 0  # folded
    watch.assert_clean()


@in_chromium
async def test_a_failed_chain_shows_its_reason_and_part(run: Path, file_page) -> None:
    pg, watch = file_page
    await open_ready(pg, run / "view" / "v1" / "chains" / f"{FAILING}.html", "#step-2")
    assert (await pg.text_content("#status")) == "failed"
    reason = await pg.text_content("#reason")
    assert "check failed: query: on /sites/hotel/bookings expected status=['Checked in']" in reason
    assert await pg.locator(".parts li.failed code").text_content() == "hotel-filter_by_dropdown-0001"
    assert (await pg.get_attribute("#shot", "src")).endswith(f"/raw/_failed/{FAILING}/step_1.png")
    await pg.wait_for_function("document.getElementById('shot').complete")
    assert await pg.eval_on_selector("#shot", "img => img.naturalWidth") == 1280
    watch.assert_clean()


@in_chromium
async def test_stats_and_prompts_pages(run: Path, file_page) -> None:
    pg, watch = file_page
    await open_ready(pg, run / "view" / "v1" / "stats.html", script=False)
    assert await pg.text_content("#stat-chains") == "3"
    assert await pg.text_content("#stat-kept-rate") == "33.3%"
    leak = io.loads(await pg.text_content("#leak-check"))  # filter-rows' leak check (rows/split.py)
    assert (
        leak
        == manifest(run)["split"]["leak"]
        == {"duplicate_rows": 0, "shared_parts": 0, "shared_prompts": 0}
    )
    assert await pg.locator("svg.histogram rect").count() >= 1
    await open_ready(pg, run / "view" / "v1" / "prompts.html", script=False)
    prompts = await pg.locator("section.prompt").count()
    assert prompts == 1  # one planner version, one system prompt
    key = manifest(run)["chains"][0]["key"]
    system = io.read_jsonl(run / "rows" / "v1" / key / "rows.jsonl")[0]["messages"][0]["content"]
    sha = hashlib.sha256(system.encode()).hexdigest()
    assert await pg.text_content(f"#p-{sha} pre") == system
    watch.assert_clean()


@in_chromium
async def test_the_watch_sees_what_it_must_refuse(run: Path, file_page, tmp_path: Path) -> None:
    """The checks above can fail: a page that fetches from the network or logs an error is caught."""
    pg, watch = file_page
    bad = tmp_path / "bad"
    shutil.copytree(run / "view" / "v1", bad)
    html = (bad / "index.html").read_text()
    html = html.replace(
        "</main>", '<img src="http://127.0.0.1:9/x.png"></main><script>console.error("boom")</script>'
    )
    (bad / "index.html").write_text(html)
    await pg.goto((bad / "index.html").as_uri())
    await pg.wait_for_load_state("load")
    assert watch.outside == ["http://127.0.0.1:9/x.png"]
    assert "boom" in watch.errors
    with pytest.raises(AssertionError):
        watch.assert_clean()
