"""pool-items over tiny pool directories in the pool format (docs/FORMATS.md): records, the rules that drop, bad files."""

from __future__ import annotations

from pathlib import Path

import pytest
from chain_pools import check_rules, task_files, write_pool
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from plandvc.chains.items import pool_items
from plandvc.chains.walk import chain_specs
from plandvc.io import InputError, write_json
from plandvc.macros import FAMILY_OF


def basic_parts() -> list:
    return [
        task_files("shop-filter_by_dropdown-0001"),  # fresh, stays on /sites/shop/orders
        task_files("shop-sort_by_form-0002", macro="sort_by_form"),
        task_files(
            "shop-navigate_to_page-0003",
            macro="navigate_to_page",
            start="/sites/shop",
            control={"control_id": "nav-orders", "role": "link", "prep": {}},
            check={"kind": "visited", "path": "/sites/shop/orders", "last": True},
            end="/sites/shop/orders",
        ),
        task_files(
            "shop-count_entries-0004",
            macro="count_entries",
            check={"kind": "answer", "expected": "7"},
            answer="7",
            end="/sites/shop/orders?status=Shipped",
        ),
        task_files("fleet-sort_by_form-0005", site="fleet", macro="sort_by_form"),  # a test site
        task_files(
            "shop-open_entry-0006", macro="open_entry", start_kind="mid_chain", history_macro="filter"
        ),
        task_files("shop-copy_value-0007", macro="copy_value", history_macro="open_entry"),
        task_files("shop-teleport-0008", macro="teleport"),
    ]


def test_records_and_drops(tmp_path: Path) -> None:
    pool, sites = write_pool(tmp_path, basic_parts())
    records, report = pool_items(pool, sites)
    ids = [r["id"] for r in records]
    assert (
        ids
        == sorted(ids)
        == [
            "shop-count_entries-0004",
            "shop-filter_by_dropdown-0001",
            "shop-navigate_to_page-0003",
            "shop-sort_by_form-0002",
        ]
    )
    assert report["dropped"] == {"history_macro": 1, "mid_chain": 1, "test_site": 1, "unknown_macro": 1}
    assert report["unreadable"] == []
    assert report["by_site"] == {"shop": 4}
    by = {r["id"]: r for r in records}
    f = by["shop-filter_by_dropdown-0001"]
    assert f == {
        "id": "shop-filter_by_dropdown-0001",
        "run": "r1",
        "dir": "runs/r1/accepted/shop-filter_by_dropdown-0001",
        "site": "shop",
        "macro": "filter_by_dropdown",
        "family": "Filter",
        "start": "/sites/shop/orders",
        "control": "c-shop-filter_by_dropdown-0001",
        "scope": ["query:/sites/shop/orders:shop-filter_by_dropdown-0001"],
        "answers": False,
        "fresh": True,
        "stays": True,
        "home_start": False,
        "instruction": "Task shop-filter_by_dropdown-0001.",
    }
    nav = by["shop-navigate_to_page-0003"]
    assert nav["home_start"] and not nav["stays"] and nav["family"] == "Navigation"
    assert by["shop-count_entries-0004"]["answers"]
    assert not any(r["site"] == "fleet" for r in records)


def test_no_qa_leaves_the_question_macros_out(tmp_path: Path) -> None:
    pool, sites = write_pool(tmp_path, basic_parts())
    records, _ = pool_items(pool, sites, qa=False)
    assert "shop-count_entries-0004" not in {r["id"] for r in records}
    ids = tmp_path / "ids.txt"
    ids.write_text("shop-sort_by_form-0002\n")
    records, report = pool_items(pool, sites, ids=ids, qa=False)
    assert [r["id"] for r in records] == ["shop-sort_by_form-0002"]
    assert report["chosen"] == 1


def test_home_start_rules(tmp_path: Path) -> None:
    home = "/sites/shop"
    parts = [
        task_files("shop-a-1", start=home),
        task_files("shop-a-2", start=home, keep=True),
        task_files("shop-a-3", start=home, control={"control_id": "x", "role": "prepared", "prep": {}}),
        task_files(
            "shop-a-4",
            start=home,
            control={
                "control_id": "y",
                "role": "entry",
                "prep": {"create": {"table": "orders", "page": "orders", "fields": {}}},
            },
        ),
        task_files("shop-a-5", start="/sites/shop/orders"),
        task_files("shop-a-6", start=home + "/?tab=1"),
    ]
    records, _ = pool_items(*write_pool(tmp_path, parts))
    assert {r["id"]: r["home_start"] for r in records} == {
        "shop-a-1": True,
        "shop-a-2": False,  # keeps state
        "shop-a-3": False,  # a flagged role
        "shop-a-4": False,  # control prep
        "shop-a-5": False,  # not the home page
        "shop-a-6": True,  # the home page, with a trailing slash and a query
    }
    assert {r["id"]: r["fresh"] for r in records}["shop-a-2"] is False


def test_malformed_files_are_named_and_counted(tmp_path: Path) -> None:
    pool, sites = write_pool(tmp_path, basic_parts())
    acc = pool / "runs" / "r1" / "accepted"
    (acc / "shop-filter_by_dropdown-0001" / "trajectory.json").write_text("{not json")
    (acc / "shop-sort_by_form-0002" / "elements.json").unlink()
    task = task_files("shop-navigate_to_page-0003")[0]
    del task["scope"]
    write_json(acc / "shop-navigate_to_page-0003" / "task.json", task)
    with (pool / "kept.jsonl").open("a") as f:
        f.write('{"run": "r1"}\n')
    records, report = pool_items(pool, sites)
    assert [r["id"] for r in records] == ["shop-count_entries-0004"]
    bad = {u["file"]: u["error"] for u in report["unreadable"]}
    assert len(report["unreadable"]) == 4
    assert "trajectory.json: not valid JSON" in bad["runs/r1/accepted/shop-filter_by_dropdown-0001"]
    assert "elements.json: file not found" in bad["runs/r1/accepted/shop-sort_by_form-0002"]
    assert "task.json: scope: missing" in bad["runs/r1/accepted/shop-navigate_to_page-0003"]
    assert "kept.jsonl:9" in bad
    assert all(str(tmp_path) not in e for e in bad.values())  # no absolute paths in the report


def test_missing_pool_files_are_input_errors(tmp_path: Path) -> None:
    pool, sites = write_pool(tmp_path, basic_parts())
    with pytest.raises(InputError, match=r"site_split\.json: file not found"):
        pool_items(pool, tmp_path / "nowhere")
    with pytest.raises(InputError, match=r"pool_ids\.txt\.missing: file not found"):
        pool_items(pool, sites, ids=pool / "pool_ids.txt.missing")
    write_json(sites / "site_split.json", {"train": ["shop"]})
    with pytest.raises(InputError, match="key 'test'"):
        pool_items(pool, sites)
    (pool / "kept.jsonl").unlink()
    write_json(sites / "site_split.json", {"train": ["shop"], "test": []})
    with pytest.raises(InputError, match=r"kept\.jsonl: file not found"):
        pool_items(pool, sites)


def test_site_outside_the_split_is_dropped(tmp_path: Path) -> None:
    pool, sites = write_pool(tmp_path, basic_parts(), train=["clinic"], test=["fleet"])
    records, report = pool_items(pool, sites)
    assert records == []
    assert report["dropped"] == {"not_in_site_split": 6, "test_site": 1, "unknown_macro": 1}


# ── property: generated pool directories -> records -> chains obey the rules ───

MACROS = sorted(FAMILY_OF)
PART = st.tuples(
    st.sampled_from(["shop", "clinic", "fleet"]),
    st.sampled_from([*MACROS, "teleport"]),
    st.sampled_from(["/sites/{s}", "/sites/{s}/orders", "/sites/{s}/items"]),
    st.sampled_from(["fresh", "fresh", "fresh", "mid_chain"]),
    st.booleans(),  # stays
    st.integers(0, 4),  # control
    st.integers(0, 5),  # scope
)


@settings(max_examples=15, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(st.lists(PART, min_size=1, max_size=14), st.integers(0, 99))
def test_generated_pool_dirs(tmp_path_factory: pytest.TempPathFactory, parts: list, seed: int) -> None:
    root = tmp_path_factory.mktemp("pool")
    files = []
    for k, (site, macro, start, kind, stays, control, scope) in enumerate(parts):
        start = start.format(s=site)
        answers = macro in ("report_information", "count_entries")
        files.append(
            task_files(
                f"{site}-{macro}-{k:04d}",
                site=site,
                macro=macro,
                start=start,
                start_kind=kind,
                history_macro="filter_by_dropdown" if kind == "mid_chain" else None,
                control={"control_id": f"c{control}", "role": "dropdown", "prep": {}},
                scope=[f"scope{scope}"],
                end=start if stays else "/sites/elsewhere",
                answer="3" if answers else None,
                check={"kind": "answer", "expected": "3"} if answers else None,
            )
        )
    pool, sites = write_pool(root, files)
    records, report = pool_items(pool, sites)
    assert all(r["site"] in ("shop", "clinic") for r in records)
    assert report["records"] + sum(report["dropped"].values()) + len(report["unreadable"]) == report["chosen"]
    assert report["chosen"] == len(files)
    n_test = sum(1 for f in files if f[1]["site"] == "fleet" and f[1]["macro"] != "teleport")
    assert report["dropped"].get("test_site", 0) == n_test
    chains = chain_specs(records, 20, seed=seed)
    check_rules(chains, records)
