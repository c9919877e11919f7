"""The pool loader: a part loads whole; a missing or malformed file is an InputError naming it; the
pool-wide loader skips such parts and counts them."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from bundled import POOL_DIR, kept

from plandvc.io import InputError, read_json, write_json
from plandvc.pool.load import Skipped, iter_kept, load_part, load_task, read_kept, read_pool_ids


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
    r = read_kept(pool)[0]
    return r["id"], pool / "runs" / r["run"] / "accepted" / r["id"]


def test_a_part_loads_whole(pool: Path) -> None:
    for r in read_kept(pool):
        part = load_part(pool, r["run"], r["id"])
        assert part["task"]["task_id"] == r["id"] == part["traj"]["task_id"]
        assert part["dir"] == f"runs/{r['run']}/accepted/{r['id']}"
        assert load_task(pool, r["run"], r["id"]) == part["task"]
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
        ("task.json", b"[1, 2]", "task_id: missing"),
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
        load_part(pool, "r1", tid)
    assert str(d / name) in str(e.value) and says in str(e.value)
    assert "\n" not in str(e.value)


def test_a_step_naming_a_missing_element_is_named(pool: Path) -> None:
    tid, d = _first(pool)
    traj = read_json(d / "trajectory.json")
    traj["steps"][0]["element"] = 99
    write_json(d / "trajectory.json", traj)
    with pytest.raises(InputError, match=r"trajectory\.json: steps\[0\]\.element: 99"):
        load_part(pool, "r1", tid)


def test_an_unknown_macro_is_named(pool: Path) -> None:
    tid, d = _first(pool)
    task = read_json(d / "task.json")
    task["macro"] = "fly_to_the_moon"
    write_json(d / "task.json", task)
    with pytest.raises(InputError, match="unknown macro 'fly_to_the_moon'"):
        load_task(pool, "r1", tid)


def test_pool_wide_load_skips_and_counts_bad_parts(pool: Path) -> None:
    rows = read_kept(pool)
    d1 = pool / "runs" / rows[1]["run"] / "accepted" / rows[1]["id"]
    d3 = pool / "runs" / rows[3]["run"] / "accepted" / rows[3]["id"]
    (d1 / "elements.json").unlink()
    (d3 / "trajectory.json").write_text("{not json")
    skipped = Skipped()
    parts = list(iter_kept(pool, skipped))
    assert len(parts) == len(rows) - 2
    assert skipped.count == 2
    assert str(d1 / "elements.json") in skipped.reasons[rows[1]["id"]]
    assert str(d3 / "trajectory.json") in skipped.reasons[rows[3]["id"]]
    assert {p["id"] for p in parts} == {r["id"] for r in rows} - {rows[1]["id"], rows[3]["id"]}


def test_a_missing_or_bad_index_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"kept\.jsonl: file not found"):
        list(iter_kept(tmp_path))
    (tmp_path / "kept.jsonl").write_text('{"id": "x"}\n')
    with pytest.raises(InputError, match=r"kept\.jsonl:1: a kept line needs"):
        read_kept(tmp_path)
    with pytest.raises(InputError, match=r"pool_ids\.txt: file not found"):
        read_pool_ids(tmp_path)


def test_committed_pool_index_is_consistent() -> None:
    rows = kept()
    assert [r["id"] for r in rows] == sorted(r["id"] for r in rows)
    ids = read_pool_ids(POOL_DIR)
    assert ids == sorted(ids)
    assert set(ids) == {r["id"] for r in rows if r["macro"] not in ("report_information", "count_entries")}
    skipped = Skipped()
    assert sum(1 for _ in iter_kept(POOL_DIR, skipped)) == len(rows)
    assert skipped.count == 0, skipped.reasons


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
