"""The bundled site specs meet the brief, and the spec validator rejects broken specs naming file and key."""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest
from bundled import SITES_DIR, SPECS

from plandvc.io import InputError
from plandvc.sites.spec import CONTROL_KINDS, load_sites, load_spec, load_split, site_name

RAW = orjson.loads((SITES_DIR / "shop" / "site.json").read_bytes())


def test_at_least_six_sites_with_a_split():
    split = load_split(SITES_DIR)
    assert len(SPECS) >= 6
    assert len(split["train"]) >= 5 and len(split["test"]) >= 1
    assert sorted(split["train"] + split["test"]) == sorted(SPECS)


@pytest.mark.parametrize("site", sorted(SPECS))
def test_site_meets_the_brief(site: str):
    spec = SPECS[site]
    first = (SITES_DIR / site / "doc" / "README.md").read_text(encoding="utf-8").split("\n")[0]
    assert re.match(r"^# .+ \(.+\)$", first), first
    assert site_name(SITES_DIR, site) == spec.name
    assert len(spec.pages) >= 2
    assert {c.kind for _, c in spec.controls} == set(CONTROL_KINDS)
    for page in spec.pages:
        assert len(spec.table_of(page).rows) >= 15
    assert any(t.create for t in spec.tables.values()) and any(t.edit for t in spec.tables.values())
    assert all(t.copy for t in spec.tables.values())
    assert spec.theme.font == "DejaVu Sans"


def test_sites_differ_in_layout_and_theme():
    assert len({s.theme.layout for s in SPECS.values()}) >= 3
    assert len({s.theme.accent for s in SPECS.values()}) == len(SPECS)
    assert len({s.name for s in SPECS.values()}) == len(SPECS)


def test_site_name_falls_back_to_the_folder(tmp_path: Path):
    assert site_name(tmp_path, "nosuch") == "nosuch"
    (tmp_path / "x" / "doc").mkdir(parents=True)
    (tmp_path / "x" / "doc" / "README.md").write_text("# Acme Depot (warehouse)\n\nText.\n")
    assert site_name(tmp_path, "x") == "Acme Depot"


def _orders(raw: dict) -> dict:
    return raw["tables"]["orders"]


def _first_control(raw: dict) -> dict:
    return raw["pages"][0]["controls"][0]


def _set(path: Callable[[dict], dict], key: str, value: Any) -> Callable[[dict], None]:
    def mutate(raw: dict) -> None:
        path(raw)[key] = value

    return mutate


def _del(path: Callable[[dict], dict], key: str) -> Callable[[dict], None]:
    return lambda raw: path(raw).pop(key)


# (mutation, the key the error must name, a word of the message)
BROKEN: list[tuple[str, Callable[[dict], None], str, str]] = [
    ("unknown control kind", _set(_first_control, "kind", "knob"), "pages[0].controls[0].kind", "knob"),
    ("control column missing", _set(_first_control, "column", "colour"), "pages[0].controls[0].column", "colour"),
    ("slider on a text column", lambda r: r["pages"][0]["controls"][2].update(column="customer"),
     "pages[0].controls[2].column", "number"),
    ("sort column missing", lambda r: r["pages"][0]["controls"][4]["columns"].append("weight"),
     "pages[0].controls[4].columns", "weight"),
    ("too few rows", lambda r: _orders(r).update(rows=_orders(r)["rows"][:14]), "tables.orders.rows", "15"),
    ("row value not an enum option", lambda r: _orders(r)["rows"][3].update(status="Lost"),
     "tables.orders.rows[3].status", "Lost"),
    ("row with a bad date", lambda r: _orders(r)["rows"][5].update(placed="2026-02-30"),
     "tables.orders.rows[5].placed", "date"),
    ("row with a string number", lambda r: _orders(r)["rows"][0].update(total="12"),
     "tables.orders.rows[0].total", "number"),
    ("row missing a column", lambda r: _orders(r)["rows"][2].pop("channel"), "tables.orders.rows[2]", "channel"),
    ("duplicate id", lambda r: _orders(r)["rows"][1].update(id=_orders(r)["rows"][0]["id"]),
     "tables.orders.rows[1].id", "duplicate"),
    ("missing table key", _del(_orders, "key"), "tables.orders.key", "missing"),
    ("label column missing", _set(_orders, "label", "nickname"), "tables.orders.label", "nickname"),
    ("create field missing", lambda r: _orders(r)["create"].append("colour"), "tables.orders.create", "colour"),
    ("unknown column type", lambda r: _orders(r)["columns"][1].update(type="money"),
     "tables.orders.columns[1].type", "money"),
    ("unknown layout", lambda r: r["theme"].update(layout="grid"), "theme.layout", "grid"),
    ("colour that could inject CSS", lambda r: r["theme"].update(accent="red;}body{"), "theme.accent", "colour"),
    ("bad today", _set(lambda r: r, "today", "14/03/2026"), "today", "date"),
    ("page on a missing table", lambda r: r["pages"][1].update(table="invoices"), "pages[1].table", "invoices"),
    ("duplicate control id", lambda r: r["pages"][1]["controls"][0].update(control_id="orders-status"),
     "pages", "control_id"),
    ("query parameter used twice on a page", lambda r: r["pages"][0]["controls"][5].update(param="status"),
     "pages[0].controls[5]", "status"),
    ("slider min above max", lambda r: r["pages"][0]["controls"][2].update(min=900),
     "pages[0].controls[2]", "min < max"),
]  # fmt: skip


@pytest.mark.parametrize(("what", "mutate", "key", "word"), BROKEN, ids=[b[0] for b in BROKEN])
def test_validator_rejects_a_broken_spec(tmp_path: Path, what: str, mutate, key: str, word: str):
    raw = copy.deepcopy(RAW)
    mutate(raw)
    path = tmp_path / "shop" / "site.json"
    path.parent.mkdir()
    path.write_bytes(orjson.dumps(raw))
    with pytest.raises(InputError) as e:
        load_spec(path)
    msg = str(e.value)
    assert msg.startswith(f"{path}: {key}"), msg
    assert word in msg and "\n" not in msg


def test_the_unbroken_copy_loads(tmp_path: Path):
    """The mutations above are the only thing wrong: the same spec, unchanged, loads."""
    path = tmp_path / "shop" / "site.json"
    path.parent.mkdir()
    path.write_bytes(orjson.dumps(RAW))
    assert load_spec(path).tables["orders"].rows == SPECS["shop"].tables["orders"].rows


def test_folder_name_must_match(tmp_path: Path):
    path = tmp_path / "store" / "site.json"
    path.parent.mkdir()
    path.write_bytes(orjson.dumps(RAW))
    with pytest.raises(InputError, match="folder name"):
        load_spec(path)


def test_not_json_and_missing_dir(tmp_path: Path):
    (tmp_path / "shop").mkdir()
    (tmp_path / "shop" / "site.json").write_text("{not json")
    with pytest.raises(InputError, match=r"shop/site\.json: not valid JSON"):
        load_sites(tmp_path)
    with pytest.raises(InputError, match="sites directory not found"):
        load_sites(tmp_path / "nope")
    with pytest.raises(InputError, match=r"no <site>/site\.json"):
        load_sites(tmp_path / "shop")


def test_split_rejects_overlap_and_unknown_sites(tmp_path: Path):
    (tmp_path / "shop").mkdir()
    (tmp_path / "shop" / "site.json").write_bytes(orjson.dumps(RAW))
    (tmp_path / "site_split.json").write_bytes(orjson.dumps({"train": ["shop"], "test": ["shop"]}))
    with pytest.raises(InputError, match="both train and test"):
        load_split(tmp_path)
    (tmp_path / "site_split.json").write_bytes(orjson.dumps({"train": ["shop"], "test": ["mall"]}))
    with pytest.raises(InputError, match="'mall' is not a site folder"):
        load_split(tmp_path)
    (tmp_path / "site_split.json").write_bytes(orjson.dumps({"train": ["shop"], "test": []}))
    assert load_split(tmp_path) == {"train": ["shop"], "test": []}


def test_the_generator_reproduces_the_committed_sites(tmp_path: Path):
    """plandvc.sites.bundled (seeded) writes exactly the committed site.json and README files."""
    from plandvc.sites import bundled

    bundled.main([str(tmp_path)])
    made = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file())
    assert len(made) == 2 * len(SPECS) + 1
    for rel in made:
        assert (tmp_path / rel).read_bytes() == (SITES_DIR / rel).read_bytes(), rel
