"""The pool's one reader (`plandvc.pool.store.Pool`): a part loads whole and typed; a missing or malformed file
is an InputError naming it and its key; every problem of a part is listed by `check`; the index is checked once."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from bundled import POOL_DIR, kept

from plandvc.browser.actions import NAMES, targets_element
from plandvc.io import InputError, read_json, write_json
from plandvc.pool.schema import schema
from plandvc.pool.store import PART_FILES, Pool


@pytest.fixture
def pool(tmp_path: Path) -> Path:
    """A copy of six kept parts of the committed pool, with their own kept index."""
    rows = kept()[:: max(1, len(kept()) // 6)][:6]
    out = tmp_path / "pool"
    for r in rows:
        src = POOL_DIR / "runs" / r["run"] / "accepted" / r["id"]
        shutil.copytree(src, out / "runs" / r["run"] / "accepted" / r["id"])
    (out / "kept.jsonl").write_text(
        "".join(
            f'{{"id":"{r["id"]}","run":"{r["run"]}","site":"{r["site"]}","macro":"{r["macro"]}"}}\n'
            for r in rows
        )
    )
    return out


def _first(pool: Path) -> tuple[str, Path]:
    r = Pool.open(pool).kept[0]
    return r["id"], pool / "runs" / r["run"] / "accepted" / r["id"]


def test_a_part_loads_whole(pool: Path) -> None:
    store = Pool.open(pool)
    for r in store.kept:
        part = store.part(r["id"])
        assert part["task"]["task_id"] == r["id"] == part["traj"]["task_id"]
        assert part["dir"] == f"runs/{r['run']}/accepted/{r['id']}"
        assert store.part_files(r["id"]) == [pool / part["dir"] / f for f in PART_FILES]
        for st in part["traj"]["steps"]:
            if st["element"] is not None:
                assert 0 <= st["element"] < len(part["elements"])


@pytest.mark.parametrize(
    "name, breakage, says",
    [
        ("trajectory.json", None, "file not found"),
        ("elements.json", None, "file not found"),
        ("task.json", None, "file not found"),
        ("trajectory.json", b'{"steps": [', "not valid JSON"),
        ("task.json", b"[1, 2]", "is not of type 'object'"),
        ("task.json", b'{"task_id": "x"}', "task.json: check: missing (and 6 more"),
    ],
)
def test_a_missing_or_malformed_file_is_named(
    pool: Path, name: str, breakage: bytes | None, says: str
) -> None:
    tid, d = _first(pool)
    if breakage is None:
        (d / name).unlink()
    else:
        (d / name).write_bytes(breakage)
    with pytest.raises(InputError) as e:
        Pool.open(pool).part(tid)
    assert str(d / name) in str(e.value) and says in str(e.value)
    assert "\n" not in str(e.value)


def test_a_step_naming_a_missing_element_is_named(pool: Path) -> None:
    tid, d = _first(pool)
    traj = read_json(d / "trajectory.json")
    traj["steps"][0]["element"] = 99
    write_json(d / "trajectory.json", traj)
    with pytest.raises(InputError, match=r"trajectory\.json: steps\[0\]\.element: 99 is not an index"):
        Pool.open(pool).part(tid)


def test_an_unknown_macro_is_named(pool: Path) -> None:
    tid, d = _first(pool)
    task = read_json(d / "task.json")
    task["macro"] = "fly_to_the_moon"
    write_json(d / "task.json", task)
    with pytest.raises(InputError, match=r"task\.json: macro: 'fly_to_the_moon' is not a known value"):
        Pool.open(pool).part(tid)


def test_check_names_every_problem_of_a_part_and_part_the_first(pool: Path) -> None:
    store = Pool.open(pool)
    rows = store.kept
    d1 = pool / "runs" / rows[1]["run"] / "accepted" / rows[1]["id"]
    d3 = pool / "runs" / rows[3]["run"] / "accepted" / rows[3]["id"]
    (d1 / "elements.json").unlink()
    (d3 / "trajectory.json").write_text("{not json")
    task = read_json(d3 / "task.json")
    del task["instruction"]
    task["site"] = 7
    write_json(d3 / "task.json", task)
    bad = {r["id"]: store.check(r["id"]).problems for r in rows}
    assert [tid for tid, p in bad.items() if p] == [rows[1]["id"], rows[3]["id"]]
    rel = f"runs/{rows[3]['run']}/accepted/{rows[3]['id']}"
    assert [p.line() for p in bad[rows[3]["id"]]] == [
        f"{rel}/task.json: instruction: missing",
        f"{rel}/task.json: site: 7 is not of type 'string'",
        f"{rel}/trajectory.json: not valid JSON (unexpected character, expected a string key: line 1 column 2 (char 1))",
    ]
    with pytest.raises(InputError) as e:
        store.part(rows[3]["id"])
    assert (
        str(e.value)
        == f"{pool}/{rel}/task.json: instruction: missing (and 2 more; check-pool names every one)"
    )
    assert store.check(rows[1]["id"]).part is None and store.check(rows[0]["id"]).part == store.part(
        rows[0]["id"]
    )


def test_a_missing_or_bad_index_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"kept\.jsonl: file not found"):
        Pool.open(tmp_path)
    (tmp_path / "kept.jsonl").write_text('{"id": "x"}\n{"id": "y", "run": "r"}\n{"id": "y", "run": "r"}\n')
    with pytest.raises(
        InputError, match=r"kept\.jsonl:1: run: missing \(and 1 more; check-pool names every one\)$"
    ):
        Pool.open(tmp_path)
    scanned = Pool.scan(tmp_path)
    assert [p.line() for p in scanned.problems] == [
        "kept.jsonl:1: run: missing",
        "kept.jsonl:3: id: 'y' is already on line 2",
    ]
    assert [r["id"] for r in scanned.kept] == ["y"] and "y" in scanned and "x" not in scanned
    with pytest.raises(InputError, match=r"pool_ids\.txt: file not found"):
        scanned.ids()
    with pytest.raises(InputError, match=r"kept\.jsonl: 'x' is not a kept trajectory"):
        scanned.part("x")


def test_files_hash_follows_the_bytes_and_the_order(pool: Path) -> None:
    store = Pool.open(pool)
    a, b = store.kept[0]["id"], store.kept[1]["id"]
    h = store.files_hash([a, b])
    assert h == Pool.open(pool).files_hash([a, b]) and h != store.files_hash([b, a])
    (store.part_files(a)[2]).write_bytes(store.part_files(a)[2].read_bytes() + b"\n")
    assert store.files_hash([a, b]) != h


def test_committed_pool_index_is_consistent() -> None:
    store = Pool.open(POOL_DIR)
    rows = store.kept
    assert [r["id"] for r in rows] == sorted(r["id"] for r in rows)
    ids = store.ids()
    assert ids == sorted(ids)
    assert set(ids) == {r["id"] for r in rows if r["macro"] not in ("report_information", "count_entries")}
    bad = {r["id"]: store.check(r["id"]).problems for r in rows}
    assert {k: v for k, v in bad.items() if v} == {}


def test_committed_pool_covers_every_macro_on_four_training_sites_and_the_test_site() -> None:
    from plandvc.sites.spec import load_split

    split = load_split(POOL_DIR.parent / "sites")
    rows = kept()
    assert len(rows) >= 500
    sites_of: dict[str, set[str]] = {}
    for r in rows:
        sites_of.setdefault(r["macro"], set()).add(r["site"])
    assert all(len(s & set(split["train"])) >= 4 for s in sites_of.values()), sites_of
    assert len(sites_of) == 14
    assert set(split["test"]) <= {r["site"] for r in rows}


def test_the_trajectory_schema_names_the_actions_of_the_action_table() -> None:
    """The pool's step check (the schema) and the actions a session can do are the same list."""
    steps = schema("trajectory")["properties"]["steps"]["items"]  # type: ignore[index]
    assert sorted(steps["properties"]["action"]["enum"]) == sorted(NAMES)
    targeting = steps["allOf"][0]["if"]["properties"]["action"]["enum"]
    assert sorted(targeting) == sorted(n for n in NAMES if targets_element(n))
