"""Task generation (pure): every macro on every site, instructions that write every value they need, checks
and scopes per the contract, expected values from the spec's rows, seeded and reproducible — and the
committed pool's tasks are exactly what generation makes today."""

from __future__ import annotations

import re
from collections import Counter

from bundled import NAMES, POOL_DIR, SPECS

from plandvc.io import read_json
from plandvc.macros import FAMILY_OF, MACROS, REGISTRY
from plandvc.macros.make import fmt, page_params
from plandvc.pool.recorder import task_file
from plandvc.pool.tasks import generate
from plandvc.sites.spec import load_split

TASKS = generate(SPECS, 0, NAMES)
BY_ID = {t["task_id"]: t for t in TASKS}
CHECK_OF = {
    "navigate_to_page": "visited", "open_entry": "visited", "navigate_home": "visited",
    "filter_by_dropdown": "query", "filter_by_options": "query", "filter_by_slider": "query",
    "filter_by_date_range": "query", "sort_by_form": "query", "search_by_text": "visited",
    "create_entry": "entry_created", "edit_entry": "entry_updated", "report_information": "answer",
    "count_entries": "answer", "copy_value": "clipboard", "go_to_page": "query", "switch_tab": "query",
    "choose_suggestion": "visited", "delete_entry": "entry_deleted",
}  # fmt: skip
# macros of the generated world's widgets: the bundled sites have none of their pieces, so none of their tasks
# (tests/test_world_go_to_page.py and tests/test_world_macros.py cover them)
WORLD_ONLY = frozenset({"go_to_page", "switch_tab", "choose_suggestion", "delete_entry"})
ORIGINAL = [m for m in MACROS if m not in WORLD_ONLY]


def test_every_site_has_every_macro_and_ids_are_unique() -> None:
    assert len(BY_ID) == len(TASKS)
    have = {(t["site"], t["macro"]) for t in TASKS}
    assert have == {(s, m) for s in SPECS for m in ORIGINAL}
    for t in TASKS:
        assert t["task_id"].startswith(f"{t['site']}-{t['macro']}-")
        assert t["check"]["kind"] == CHECK_OF[t["macro"]]
        assert t["macro"] in FAMILY_OF


def test_every_macro_on_four_training_sites() -> None:
    train = set(load_split(POOL_DIR.parent / "sites")["train"])
    per = Counter(m for s, m in {(t["site"], t["macro"]) for t in TASKS} if s in train)
    assert set(per) == set(ORIGINAL) and min(per.values()) >= 4


def test_three_phrasings_per_macro_and_they_are_used() -> None:
    used: dict[str, set[str]] = {}
    for t in TASKS:
        used.setdefault(t["macro"], set()).add(re.sub(r'"[^"]*"|\d+', "", t["instruction"]))
    for macro in MACROS:
        assert len(REGISTRY[macro].phrases) >= 3
    for macro in ORIGINAL:
        assert len(used[macro]) >= 2, macro


def test_instruction_writes_every_value_it_needs() -> None:
    for t in TASKS:
        text, check, target = t["instruction"], t["check"], t["target"]
        if t["macro"] == "filter_by_dropdown" or t["macro"] == "count_entries":
            assert f'"{target["value"]}"' in text, t["task_id"]
        if t["macro"] == "filter_by_slider":
            assert re.search(rf"\b{re.escape(target['value'])}\b", text), t["task_id"]
        if t["macro"] == "filter_by_date_range":
            assert f'"{target["start"]}"' in text and f'"{target["end"]}"' in text
        for c in SPECS[t["site"]].page(target["page"]).controls if target.get("control_id") else ():
            if c.control_id == target["control_id"] and c.kind not in ("sort", "search"):
                assert c.label in text, t["task_id"]
        if t["macro"] == "search_by_text":
            assert f'"{target["text"]}"' in text
        if t["macro"] == "filter_by_options":
            for v in target["values"]:
                assert f'"{v}"' in text
        if t["macro"] == "create_entry":
            for v in check["fields"].values():
                assert f'"{fmt(v)}"' in text, (t["task_id"], v)
        if t["macro"] == "edit_entry":
            assert f'"{fmt(next(iter(check["fields"].values())))}"' in text
        if t["macro"] in ("open_entry", "report_information", "copy_value", "edit_entry"):
            assert re.search(r'"[^"]+"', text), t["task_id"]


def test_sort_instruction_names_column_label_and_direction() -> None:
    for t in (t for t in TASKS if t["macro"] == "sort_by_form"):
        spec = SPECS[t["site"]]
        page = spec.page(t["target"]["page"])
        label = spec.table_of(page).column(t["target"]["column"]).label
        word = "ascending" if t["target"]["dir"] == "asc" else "descending"
        assert f'"{label}"' in t["instruction"] and word in t["instruction"]


def test_expected_values_come_from_the_spec_rows() -> None:
    """Counted and reported values, recomputed here straight from the rows (not through the generator)."""
    for t in TASKS:
        spec = SPECS[t["site"]]
        page = spec.page(t["target"].get("page", "")) if t["target"].get("page") else None
        if t["macro"] == "count_entries":
            c = page.control(t["target"]["control_id"])
            n = sum(1 for r in spec.table_of(page).rows if r[c.column] == t["target"]["value"])
            assert t["check"]["expected"] == str(n) and n > 0
        if t["macro"] == "report_information":
            table = spec.table_of(page)
            row = next(r for r in table.rows if str(r[table.key]) == t["target"]["entry"])
            assert t["check"]["expected"] == fmt(row[t["target"]["column"]])
            assert f'"{row[table.label]}"' in t["instruction"]
        if t["macro"] == "copy_value":
            table = spec.table_of(page)
            row = next(r for r in table.rows if str(r[table.key]) == t["target"]["entry"])
            assert t["check"]["value"] == str(row[table.copy])


def test_scope_rules() -> None:
    for t in TASKS:
        spec = SPECS[t["site"]]
        scope = set(t["scope"])
        assert t["scope"] == sorted(scope)
        page = spec.page(t["target"]["page"]) if t["target"].get("page") else None
        lp = f"/sites/{t['site']}/{page.page}" if page else None
        every = {f"query:{lp}:{q}" for q in page_params(page)} if page else set()
        if t["macro"] in ("count_entries", "open_entry"):
            assert every <= scope, t["task_id"]
        if t["macro"] == "count_entries":
            assert f"table:{page.table}" in scope
        if t["macro"] in ("create_entry", "edit_entry"):
            assert f"table:{page.table}" in scope
            assert t["verifier"] == {"exclusive": True}
        if t["check"]["kind"] == "query":
            assert scope == {f"query:{lp}:{p}" for p in t["check"]["params"]}
        if t["start"]["url"] == lp and t["macro"] in ("copy_value", "report_information"):
            assert every <= scope, t["task_id"]  # it reads the list's rows to find the entry


def test_starts_vary_and_some_need_prep_or_start_mid_chain() -> None:
    homes = [t for t in TASKS if t["start"]["url"] == f"/sites/{t['site']}"]
    details = [t for t in TASKS if t["start"]["url"].count("/") == 4]
    lists = [t for t in TASKS if t["start"]["url"].count("/") == 3]
    assert homes and details and lists
    mid = [t for t in TASKS if t["start"]["kind"] == "mid_chain"]
    assert mid and all(t["history_macro"] for t in mid)
    assert all(t["history_macro"] is None for t in TASKS if t["start"]["kind"] == "fresh")
    assert any(t["start"]["keep"] for t in TASKS)
    prepared = [t for t in TASKS if t["control"]["prep"]]
    assert prepared and all(t["control"]["role"] == "prepared" for t in prepared)
    for t in prepared:
        assert t["check"]["id"] == t["start"]["url"].rsplit("/", 1)[1]


def test_generation_is_seeded() -> None:
    assert generate(SPECS, 0, NAMES) == TASKS
    other = generate(SPECS, 1, NAMES)
    assert [t["task_id"] for t in other] != [] and other != TASKS


def test_committed_pool_tasks_are_what_generation_makes_today() -> None:
    """Fails when the sites (or the generator) changed and data/pool was not regenerated."""
    runs = POOL_DIR / "runs" / "r1"
    on_disk = {}
    for verdict in ("accepted", "rejected"):
        for d in sorted((runs / verdict).iterdir()) if (runs / verdict).is_dir() else []:
            on_disk[d.name] = read_json(d / "task.json")
    assert sorted(on_disk) == sorted(BY_ID), (
        "data/pool is stale: run plandvc make-pool --sites data/sites --out data/pool"
    )
    for tid, task in on_disk.items():
        assert task == task_file(BY_ID[tid]), tid


def test_the_check_of_the_committed_comparison_would_fail_on_a_changed_spec() -> None:
    """The comparison above catches a site change: a spec with one row's label changed makes other tasks."""
    import copy
    import dataclasses

    site = sorted(SPECS)[0]
    spec = SPECS[site]
    table_name = spec.pages[0].table
    table = spec.tables[table_name]
    rows = [dict(r) for r in table.rows]
    rows[0][table.label] = rows[0][table.label] + " Changed"
    changed = dataclasses.replace(
        spec, tables={**spec.tables, table_name: dataclasses.replace(table, rows=tuple(rows))}
    )
    specs = {**copy.copy(SPECS), site: changed}
    assert generate(specs, 0, NAMES) != TASKS
