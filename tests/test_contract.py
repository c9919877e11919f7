"""The pool and site contract: the schemas, check-pool clean on the sample pool, and every kind of damage named.

The damaged pool is a copy of part of the committed sample pool with one distinct kind of damage per part (and
a few in the index files and the sites); check-pool must name each with its file, key and reason, and
pool-items must skip the parts whose files break the contract, counting each with its reason.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from jsonschema import Draft202012Validator

from plandvc.chains.items import pool_items
from plandvc.cli import cli
from plandvc.contract.pool import check_pool
from plandvc.pool.schema import SCHEMAS, schema, validate

ROOT = Path(__file__).resolve().parents[1]
POOL, SITES = ROOT / "data" / "pool", ROOT / "data" / "sites"


def run(*args: str) -> tuple[int, str, str]:
    r = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    return r.exit_code, r.stdout, r.stderr


def test_schemas_are_valid_and_can_fail() -> None:
    for name in SCHEMAS:
        Draft202012Validator.check_schema(schema(name))
    task = json.loads((POOL / "runs/r1/accepted/shop-filter_by_dropdown-0000/task.json").read_text())
    assert validate("task", task, "t") == []
    bad = {**task, "start": {"url": 7, "kind": "fresh"}, "check": {"kind": "query"}, "extra": 1}
    del bad["instruction"]
    lines = {p.line() for p in validate("task", bad, "t")}
    assert "t: instruction: missing" in lines
    assert "t: start.url: 7 is not of type 'string'" in lines
    assert "t: check.path: missing" in lines and "t: check.params: missing" in lines
    assert any(line.startswith("t: unknown key") and "'extra'" in line for line in lines), lines


@pytest.mark.slow
def test_check_pool_is_clean_on_the_sample_pool() -> None:
    code, out, err = run("check-pool", "--pool", str(POOL), "--sites", str(SITES))
    assert code == 0, out[-3000:]
    assert out == ""
    assert "0 problems in 0 files" in err and "646 kept parts (646 sound" in err


# ── a damaged copy ────────────────────────────────────────────────────────────


def load(p: Path) -> Any:
    return json.loads(p.read_text())


def dump(p: Path, v: Any) -> None:
    p.write_text(json.dumps(v, indent=2))


SHOP = [
    "shop-filter_by_dropdown-0000",
    "shop-filter_by_dropdown-0001",
    "shop-sort_by_form-0000",
    "shop-search_by_text-0000",
    "shop-open_entry-0000",
    "shop-create_entry-0000",
    "shop-edit_entry-0000",
    "shop-copy_value-0000",
    "shop-filter_by_slider-0000",
    "shop-filter_by_date_range-0000",
    "shop-navigate_home-0000",
    "shop-count_entries-0000",
    "shop-filter_by_options-0000",
    "shop-report_information-0000",
]


@pytest.fixture(scope="module")
def damaged(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, list[tuple[str, str, str]]]:
    """(pool, sites, [(file suffix, key, reason fragment)] of each damage done)."""
    root = tmp_path_factory.mktemp("damaged")
    pool, sites = root / "pool", root / "sites"
    shutil.copytree(SITES, sites)
    kept = {r["id"]: r for r in map(json.loads, (POOL / "kept.jsonl").read_text().splitlines())}
    ids = [i for i in SHOP if i in kept]
    assert len(ids) == len(SHOP), sorted(set(SHOP) - set(kept))
    for i in ids:
        shutil.copytree(POOL / "runs/r1/accepted" / i, pool / "runs/r1/accepted" / i)
    lines = [json.dumps(kept[i]) for i in ids]
    lines += ['{"id": "shop-lost-0001"}', json.dumps(kept[ids[1]])]  # no run; a repeated id
    (pool / "kept.jsonl").write_text("\n".join(lines) + "\n")
    (pool / "pool_ids.txt").write_text("\n".join([*ids, "shop-ghost-0009"]) + "\n")
    acc = pool / "runs/r1/accepted"
    want: list[tuple[str, str, str]] = []

    def edit(path: Path, change: Callable[[Any], Any]) -> Any:
        """Load a JSON file, change it in place, write it back; returns the changed value."""
        value = load(path)
        change(value)
        dump(path, value)
        return value

    def part(n: int, f: str) -> Path:
        return acc / ids[n] / f

    part(0, "task.json").write_text("{not json")
    want.append((f"{ids[0]}/task.json", "", "not valid JSON"))
    part(1, "trajectory.json").unlink()
    want.append((f"{ids[1]}/trajectory.json", "", "file not found"))
    edit(part(2, "task.json"), lambda t: t.pop("instruction"))
    want.append((f"{ids[2]}/task.json", "instruction", "missing"))
    edit(part(3, "task.json"), lambda t: t.update(macro="teleport"))
    want.append((f"{ids[3]}/task.json", "macro", "'teleport' is not a known value"))
    edit(part(4, "task.json"), lambda t: t.update(task_id="shop-open_entry-9999"))
    want.append((f"{ids[4]}/task.json", "task_id", "is not its folder's id"))
    edit(part(5, "trajectory.json"), lambda j: j["steps"][0].update(element=42))
    want.append((f"{ids[5]}/trajectory.json", "steps[0].element", "42 is not an index of elements.json"))
    edit(part(6, "elements.json"), lambda e: (e[0]["attrs"].update(onclick="x()"), e[0].pop("tag")))
    want.append((f"{ids[6]}/elements.json", "[0].tag", "missing"))
    want.append((f"{ids[6]}/elements.json", "[0].attrs", "unknown key 'onclick'"))
    edit(part(7, "task.json"), lambda t: t["control"].update(control_id="shop-no-such-control"))
    want.append((f"{ids[7]}/task.json", "control.control_id", "has no control 'shop-no-such-control'"))
    edit(part(8, "task.json"), lambda t: t["start"].update(url="/sites/shop/warehouse"))
    want.append((f"{ids[8]}/task.json", "start.url", "has no page 'warehouse'"))
    edit(part(9, "elements.json"), lambda e: e[0]["attrs"].update({"data-control-id": "orders-nowhere"}))
    want.append((f"{ids[9]}/trajectory.json", "steps[0].element", "no element like <"))
    edit(part(10, "trajectory.json"), lambda j: j.update(end="/sites/shop/customers"))
    want.append((f"{ids[10]}/trajectory.json", "end", "the steps end on"))
    t = edit(part(11, "task.json"), lambda t: t["scope"].append("table:invoices"))
    want.append((f"{ids[11]}/task.json", f"scope[{len(t['scope']) - 1}]", "has no table 'invoices'"))
    edit(part(12, "task.json"), lambda t: t.update(site="garden"))
    want.append((f"{ids[12]}/trajectory.json", "site", "differs from task.json's 'garden'"))
    want.append(("kept.jsonl:13", "site", "'shop' differs from task.json's 'garden'"))  # its line says shop
    step = {"action": "select", "element": 0, "value": 3, "memory": "x"}
    j = edit(part(13, "trajectory.json"), lambda j: j["steps"].append(step))
    want.append(
        (f"{ids[13]}/trajectory.json", f"steps[{len(j['steps']) - 1}].value", "3 is not of type 'string'")
    )
    want.append(("kept.jsonl:15", "run", "missing"))
    want.append(("kept.jsonl:16", "id", "is already on line 2"))
    want.append(("pool_ids.txt:15", "", "'shop-ghost-0009' is not in kept.jsonl"))
    edit(sites / "hotel" / "site.json", lambda s: s["theme"].update(layout="grid"))
    want.append(("hotel/site.json", "theme.layout", "'grid' is not one of"))
    edit(sites / "clinic" / "site.json", lambda s: s["pages"][0].update(table="rooms"))
    want.append(("clinic/site.json", "pages[0].table", "table 'rooms' is missing from tables"))
    return pool, sites, want


def test_check_pool_names_every_damage(damaged: tuple[Path, Path, list[tuple[str, str, str]]]) -> None:
    pool, sites, want = damaged
    code, out, err = run("check-pool", "--pool", str(pool), "--sites", str(sites))
    assert code == 1
    lines = out.splitlines()
    for suffix, key, reason in want:
        hits = [
            line
            for line in lines
            if line.split(": ")[0].endswith(suffix)
            and (f": {key}: " in line if key else True)
            and reason in line
        ]
        assert hits, f"no line for {suffix} {key} {reason!r} in:\n{out}"
    assert (
        len({(s, k) for s, k, _ in want}) >= 12 + 6
    )  # a dozen kinds in the parts, more in the indexes and sites
    report = check_pool(pool, sites)
    assert len(report.problems) == len(lines) and report.parts_ok == 0
    assert f"{len(lines)} problems in" in err and "by file: elements.json 2, kept.jsonl 3," in err
    assert all(str(pool) in line or str(sites) in line for line in lines)  # every line names its file


def test_pool_items_skips_the_same_bad_files(damaged: tuple[Path, Path, list[tuple[str, str, str]]]) -> None:
    """pool-items uses the same file validation: each part whose files break the contract is skipped and named
    with the same reason; site-level problems are check-pool's (run-chains reports those per chain)."""
    pool, sites, _ = damaged
    records, report = pool_items(pool, sites)
    bad = {u["file"]: u["error"] for u in report["unreadable"]}
    for n, (suffix, reason) in {
        0: ("task.json", "not valid JSON"),
        1: ("trajectory.json", "file not found"),
        2: ("task.json: instruction", "missing"),
        4: ("task.json: task_id", "is not its folder's id"),
        5: ("trajectory.json: steps[0].element", "is not an index"),
        6: ("elements.json: [0].tag", "missing"),
        12: ("trajectory.json: site", "differs from task.json's"),
        13: ("trajectory.json: steps[", "is not of type 'string'"),
    }.items():
        err = bad[f"runs/r1/accepted/{SHOP[n]}"]
        assert suffix in err and reason in err, err
    assert report["dropped"].get("unknown_macro") == 1  # SHOP[3]: a rule, counted as before
    assert "kept.jsonl:15" in bad and "kept.jsonl:16" in bad
    assert len(report["unreadable"]) == 10
    assert {r["id"] for r in records} <= {SHOP[n] for n in (7, 8, 9, 10, 11)}
    assert all(str(pool) not in e for e in bad.values())


def test_check_pool_bad_folders() -> None:
    code, _, err = run("check-pool", "--pool", "/nonexistent/pool", "--sites", str(SITES))
    assert code != 0 and "pool" in err


def test_an_app_pool_meets_the_app_branch_and_fails_off_it(tmp_path: Path) -> None:
    """Trac's committed pool passes check-pool by the app branch (pool.json: its own paths, no spec control);
    the same parts fail the generated branch, and a broken path, a kept line of another site and an unknown
    site kind each fail with their key."""
    from plandvc.apps import REGISTRY as APPS
    from plandvc.eval.apps import app_pool
    from plandvc.io import InputError
    from plandvc.pool.store import Pool

    pool = tmp_path / "trac"
    shutil.copytree(ROOT / "data" / "apps" / "trac" / "pool", pool)
    assert load(pool / "pool.json") == {"site": "trac", "site_kind": "app"}
    code, out, err = run("check-pool", "--pool", str(pool))
    assert code == 0 and out == "" and "check-pool: app trac," in err and " 0 problems in 0 files" in err, err
    store = app_pool(pool, APPS["trac"])
    first = store.kept[0]["id"]
    assert store.part(first)["task"]["site"] == "trac"
    with pytest.raises(InputError, match="not oscar's pool"):
        app_pool(pool, APPS["oscar"])

    (pool / "pool.json").rename(tmp_path / "pool.json")  # the generated branch: a spec control, /sites/ paths
    problems = {(p.key, p.reason) for p in Pool.scan(pool).check(first).problems}
    assert ("control", "missing") in problems and any(k == "start.url" for k, _ in problems), problems
    code, _, err = run("check-pool", "--pool", str(pool))
    assert code != 0 and "--sites" in err
    (tmp_path / "pool.json").rename(pool / "pool.json")

    task_file = pool / store.dir_of(first) / "task.json"
    dump(task_file, {**load(task_file), "start": {"kind": "fresh", "url": "query"}})
    lines = (pool / "kept.jsonl").read_text().splitlines()
    lines[1] = lines[1].replace('"site":"trac"', '"site":"oscar"')
    (pool / "kept.jsonl").write_text("\n".join(lines) + "\n")
    code, out, _ = run("check-pool", "--pool", str(pool))
    assert code == 1
    assert f"{store.dir_of(first)}/task.json: start.url: 'query' does not match" in out, out
    assert "kept.jsonl:2: site: 'oscar' is not the pool's site 'trac' (pool.json)" in out, out
    dump(pool / "pool.json", {"site": "trac", "site_kind": "bogus"})
    code, out, _ = run("check-pool", "--pool", str(pool))
    assert code == 1 and "pool.json: site_kind: 'bogus' is not one of generated, app" in out, out
