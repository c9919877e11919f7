"""The viewer on hand-made dataset versions (fast, no run): hostile text stays text, bad input gets one line
and loses nothing, an index of 10,000 chains puts one page of rows in the DOM, and the pure helpers."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner
from raw_chains import SIZE, failed, key_of, make_chain, tree, write_results
from view_pages import in_chromium, open_ready

from plandvc.cli import cli
from plandvc.io import InputError, read_json, write_json
from plandvc.rows.dataset import filter_rows
from plandvc.rows.manifest import read_split
from plandvc.view import make_view
from plandvc.view.build import IndexEntry, histogram, part_of_turns
from plandvc.view.read import failed_part, site_of_key
from plandvc.view.text import report_of, split_target, word_diff
from plandvc.view.write import PAGE_SIZE, embed_json, write_index

HOSTILE = 'Show "<b>bold</b>" </script><script>window.__pwned = 1</script><!-- & \u2028 done'


def dataset(tmp: Path, hostile: bool = False) -> tuple[Path, Path]:
    """(dataset version, raw): three ok chains on two sites and one failed chain, 128x80 screenshots."""
    raw = tmp / "raw"
    first = make_chain(raw, "shop", ["a1", "c1"], answer="12")
    make_chain(raw, "shop", ["b1", "e1"], shade=3)
    make_chain(raw, "fleet", ["d1", "a2"], shade=5)
    if hostile:
        ep = read_json(raw / first / "episode.json")
        ep["instruction"] = HOSTILE
        write_json(raw / first / "episode.json", ep, sort_keys=False)
    write_results(raw, [failed(raw, "fleet", ["a3", "b3"], "script not finished")])
    filter_rows(raw, tmp / "rows" / "v1", tmp / "metrics", val_share=0.5, image_size=SIZE)
    return tmp / "rows" / "v1", raw


def plandvc(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "plandvc", *map(str, args)], capture_output=True, text=True, check=False
    )


# ---- bad input ----------------------------------------------------------------------------------------------


def test_help_has_an_example() -> None:
    got = CliRunner().invoke(cli, ["view", "--help"])
    assert got.exit_code == 0 and "Example:" in got.output
    assert "plandvc view --dataset data/planner_rows/v1 --raw data/raw --out data/view/v1" in got.output


@pytest.mark.parametrize(
    "make, says",
    [
        (lambda d: d / "nope", "nope: no such dataset folder"),
        (lambda d: d / "raw", "raw: not a dataset version (no manifest.json"),
        (lambda d: d / "raw" / "results.jsonl", "results.jsonl: not a folder"),
    ],
)
def test_a_folder_that_is_not_a_dataset_version_gets_one_line(tmp_path: Path, make, says: str) -> None:
    dataset(tmp_path)
    p = plandvc("view", "--dataset", make(tmp_path), "--out", tmp_path / "view")
    assert p.returncode != 0
    assert p.stderr.count("\n") == 1 and says in p.stderr, p.stderr
    assert "Traceback" not in p.stderr and not (tmp_path / "view").exists()


def test_bad_manifests_and_mismatched_raw_runs_get_one_line(tmp_path: Path) -> None:
    rows, raw = dataset(tmp_path)
    out = tmp_path / "view"
    make_view(rows, raw, out)
    before = tree(out)
    more = tmp_path / "more"  # the same run and one more ok chain: not the raw run of this version
    shutil.copytree(raw, more)
    make_chain(more, "shop", ["a9", "c9"], answer="3")
    (more / "results.jsonl").write_bytes((raw / "results.jsonl").read_bytes())
    with (more / "results.jsonl").open("ab") as f:
        key = key_of("shop", ["a9", "c9"])
        f.write(orjson.dumps({"key": key, "site": "shop", "parts": ["a9", "c9"], "ok": True}) + b"\n")
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "results.jsonl").write_bytes(b"")
    for r, says in [
        (more, f"chain '{key}' is ok but neither kept nor dropped"),
        (empty, "results.jsonl: no chain 'plan-"),
        (tmp_path / "nope", "nope: no such raw run folder"),
    ]:
        with pytest.raises(InputError, match=re.escape(says)):
            make_view(rows, r, out)
    with pytest.raises(InputError, match="the viewer must not contain or be inside the dataset folder"):
        make_view(rows, raw, rows / "view")
    manifest = read_json(rows / "manifest.json")
    write_json(rows / "manifest.json", {**manifest, "chains": {"not": "a list"}})
    p = plandvc("view", "--dataset", rows, "--raw", raw, "--out", out)
    assert p.returncode != 0 and p.stderr.count("\n") == 1
    assert "manifest.json: not a dataset manifest (no list 'chains')" in p.stderr
    assert tree(out) == before  # nothing already made is lost


# ---- hostile text -------------------------------------------------------------------------------------------


def test_embedded_json_cannot_close_its_script() -> None:
    text = str(embed_json({"request": HOSTILE, "n": [1, 2]}))
    assert "<" not in text and ">" not in text and "&" not in text and "\u2028" not in text
    assert orjson.loads(text) == {"request": HOSTILE, "n": [1, 2]}


@in_chromium
async def test_hostile_text_stays_text_in_chromium(tmp_path: Path, file_page) -> None:
    pg, watch = file_page
    rows, raw = dataset(tmp_path, hostile=True)
    make_view(rows, raw, tmp_path / "view")
    await open_ready(pg, tmp_path / "view" / "index.html")
    await pg.fill("#f-q", "<b>bold</b>")
    link = pg.locator("#rows tr a")
    assert await link.count() == 1 and await link.get_attribute("title") == HOSTILE
    await link.click()
    await pg.wait_for_selector("body[data-ready]", state="attached")
    assert await pg.text_content("#request") == HOSTILE
    assert await pg.evaluate("window.__pwned") is None
    assert await pg.locator("main b", has_text="bold").count() == 0
    failed_key = key_of("fleet", ["a3", "b3"])  # failed with no rows: its page says why and has no steps
    await open_ready(pg, tmp_path / "view" / "chains" / f"{failed_key}.html", script=False)
    assert await pg.text_content("#reason") == "Failed: script not finished"
    assert await pg.is_visible("#no-steps") and await pg.locator("#shot").count() == 0
    watch.assert_clean()


# ---- scale --------------------------------------------------------------------------------------------------


def synthetic_index(n: int) -> list[IndexEntry]:
    """n index entries over 5 sites and 4 statuses of kept/dropped/failed (for the scale test and the bench)."""
    sites = ["clinic", "fleet", "hotel", "library", "shop"]
    out = []
    for i in range(n):
        status = ("kept", "kept", "kept", "dropped", "failed")[i % 5]
        out.append(
            IndexEntry(
                key=f"plan-{sites[i % 5]}-{i:010d}",
                site=sites[i % 5],
                parts=2 + i % 3,
                macros=["filter_by_dropdown", "count_entries"][: 1 + i % 2],
                families=["Filter", "Information"][: 1 + i % 2],
                via=["start", "page"],
                turns=3 + i % 4,
                answer=str(i) if i % 2 else None,
                split="val" if i % 10 == 0 else "train",
                status=status,
                reason=None if status == "kept" else "check failed: query: expected x",
                reason_kind=None if status == "kept" else "check failed",
                failed_part=None,
                request=f"Show only the orders of customer {i}. Then count them.",
                href=f"chains/plan-{i}.html",
            )
        )
    return out


@in_chromium
async def test_an_index_of_ten_thousand_chains_draws_one_page(tmp_path: Path, file_page) -> None:
    pg, watch = file_page
    entries = synthetic_index(10_000)
    facets = {"site": sorted({e.site for e in entries}), "status": ["kept", "dropped", "failed"]}
    write_index(tmp_path, "big", entries, facets)
    await open_ready(pg, tmp_path / "index.html")
    assert await pg.locator("#rows tr").count() == PAGE_SIZE < len(entries)
    assert (await pg.text_content("#count-total")).startswith("10000 chains: 6000 kept")
    assert await pg.text_content("#page-at") == "page 1 of 100"
    await pg.select_option("#f-site", "hotel")
    sites = set(await pg.locator("#rows tr").evaluate_all("rows => rows.map(r => r.dataset.site)"))
    assert sites == {"hotel"} and await pg.locator("#rows tr").count() == PAGE_SIZE
    assert await pg.text_content("#count-shown") == "showing 1–100 of 2000 matching"
    await pg.fill("#f-q", "customer 9999.")
    assert await pg.locator("#rows tr").count() == 0  # 9999 is a shop chain
    await pg.click("#f-clear")
    await pg.click("#page-next")
    first = await pg.locator("#rows tr").first.get_attribute("data-key")
    assert first == entries[PAGE_SIZE].key and pg.url.endswith("#page=2")
    await pg.goto((tmp_path / "index.html").as_uri() + "#status=failed&page=20")  # a link to a filtered page
    await pg.wait_for_function("document.getElementById('count-shown').textContent.includes('of 2000')")
    assert await pg.text_content("#count-shown") == "showing 1901–2000 of 2000 matching"
    assert await pg.locator("#rows tr").count() == PAGE_SIZE  # 2000 failed: page 20 is the last, full
    assert await pg.input_value("#f-status") == "failed"
    watch.assert_clean()


# ---- the pure helpers ---------------------------------------------------------------------------------------


def test_the_failing_part_is_read_from_the_gates_details() -> None:
    r = {"parts": ["p0", "p1", "p2"]}
    ok = "query: /sites/shop/orders?status=['Shipped'] ok"
    bad = "entry_updated: orders #7 differs: total=5 (found 4)"
    assert failed_part({**r, "detail": f"{ok} | {bad} | {ok}"}) == 1
    assert failed_part({**r, "detail": f"{ok} | entry_created: x #1 with a=1 ok (exclusive) | {bad}"}) == 2
    assert failed_part({**r, "detail": f"{ok} | {ok} | {ok}"}) is None  # all passed: the script failed
    assert failed_part({**r, "detail": f"{ok} | {bad}"}) is None  # cut short: not trusted
    assert failed_part({**r, "detail": None}) is None


def test_turns_map_to_parts_with_trips_home_between() -> None:
    assert part_of_turns([None, "home", "page"], 5) == [0, None, 1, 2, None]
    assert part_of_turns([None, "page"], 2) == [0, 1]  # a failed chain that stopped early


def test_memory_diff_marks_only_what_changed() -> None:
    d = word_diff("Done: 1 of 3. Next: Filter.", "Done: 2 of 3. Next: Form.")
    assert "".join(t for op, t in d if op != "-") == "Done: 2 of 3. Next: Form."
    assert "".join(t for op, t in d if op != "+") == "Done: 1 of 3. Next: Filter."
    assert [t for op, t in d if op == "+"] == ["2", "Form."]
    assert word_diff("", "a b") == [["+", "a b"]]


def test_the_report_and_the_action_are_cut_from_the_texts() -> None:
    history = "<step_1>\nMemory: m\nDelegated to Filter: x\nReport: it worked.\nPage now: /a\n</step_1>"
    assert report_of(history, 1) == "Report: it worked.\nPage now: /a"
    assert report_of(history, 2) is None
    target = '{"memory":"m {x}","action":[{"done":{"success":true,"text":"ok"}}]}'
    cut, line, memory, _ = split_target(target)
    assert "".join(cut) == target and cut[1] == '[{"done":{"success":true,"text":"ok"}}]'
    assert line == "done (success): ok" and memory == "m {x}"
    assert split_target("not json")[1] == "(not JSON)"


def test_the_split_reader_finds_a_leak_check_where_a_version_keeps_it() -> None:
    split = {"rule": "by part", "val_share": 0.1, "seed": 0}
    assert read_split({"split": split}).leak is None
    assert read_split({"split": split, "leak_check": {"shared_parts": 0}}).leak == {"shared_parts": 0}
    got = read_split({"split": {**split, "leak_check": {"duplicate_rows": 2}}})
    assert got.leak == {"duplicate_rows": 2} and got.fields == {"seed": 0} and got.rule == "by part"


def test_the_stats_page_shows_the_leak_check(tmp_path: Path) -> None:
    rows, raw = dataset(tmp_path)
    manifest = read_json(rows / "manifest.json")
    write_json(rows / "manifest.json", {**manifest, "leak_check": {"shared_parts": 0, "duplicate_rows": 0}})
    make_view(rows, raw, tmp_path / "view")
    html = (tmp_path / "view" / "stats.html").read_text()
    assert (
        '<pre id="leak-check">{\n  &#34;duplicate_rows&#34;: 0,\n  &#34;shared_parts&#34;: 0\n}</pre>' in html
    )


def test_histogram_bins() -> None:
    h = histogram([4313, 4400, 6600, 8011])
    assert h is not None and h.width == 300 and h.lo[0] == 4200 and sum(h.counts) == 4
    assert h.lo[-1] <= 8011 < h.lo[-1] + h.width and (h.min, h.median, h.max) == (4313, 6600, 8011)
    assert histogram([]) is None


def test_a_chain_without_a_result_takes_its_site_from_its_key() -> None:
    assert site_of_key("plan-shop-0123456789") == "shop"
    assert site_of_key("plan-my-site-0123456789") == "my-site"
    assert site_of_key("results") == "?" and site_of_key("plan-0123") == "?"


def test_a_chain_page_says_its_screenshots_carry_marks_only_when_they_do(tmp_path: Path) -> None:
    raw = tmp_path / "raw"
    marked = make_chain(raw, "shop", ["a1", "c1"], answer="12")
    plain = make_chain(raw, "shop", ["b1", "e1"], shade=3)
    ep = read_json(raw / marked / "episode.json")
    ep.update(dialect="browser-use-0.5", marks=True)
    write_json(raw / marked / "episode.json", ep, sort_keys=False)
    write_results(raw)
    filter_rows(raw, tmp_path / "rows" / "v1", tmp_path / "metrics", val_share=0.5, image_size=SIZE)
    make_view(tmp_path / "rows" / "v1", raw, tmp_path / "view")
    page = (tmp_path / "view" / "chains" / f"{marked}.html").read_text()
    assert '<dd id="marks">browser-use-0.5&#39;s set-of-marks drawn, as its agent sends it</dd>' in page
    assert 'id="marks"' not in (tmp_path / "view" / "chains" / f"{plain}.html").read_text()
