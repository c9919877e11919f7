"""World data versions (`make-sites --data`, issue 45 item 4): v4 draws the world without v3's data bugs (a
slider over whole numbers stepping by fractions, a team against itself, garbled titles), each shown present in
v3's world and gone in v4's; v4 written twice byte for byte; v3 stays the pipeline's world
(tests/test_furniture.py holds the default world to dvc.lock's hash)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from plandvc.chains.items import site_specs
from plandvc.cli import cli
from plandvc.io import read_json
from plandvc.sites.model import Spec
from plandvc.world.make import make_world

DOMAINS = ("sports", "search", "recipes", "papers", "store")
GARBLED = re.compile(
    r"^(?:Best|How to|Why) (?:the|a|an)\b|^(?:Ten facts about|History of|Guide to) [a-z]+ a\b"
)


def bugs(specs: dict[str, Spec]) -> dict[str, list[str]]:
    """Each data bug the world has, by kind, one line each."""
    found: dict[str, list[str]] = {"fraction_step": [], "self_match": [], "garbled": []}
    for site, spec in sorted(specs.items()):
        for page in spec.pages:
            table = spec.table_of(page)
            for c in page.controls:
                if c.kind != "slider" or c.column is None:
                    continue
                whole = all(float(r[c.column]).is_integer() for r in table.rows)
                if whole and not float(c.step or 1).is_integer():
                    found["fraction_step"].append(f"{site}/{page.page}: {c.label} steps by {c.step}")
        for table in spec.tables.values():
            for row in table.rows:
                name = str(row[table.label])
                teams = name.split(" vs ")
                if len(teams) == 2 and teams[0] == teams[1]:
                    found["self_match"].append(f"{site}: {name}")
                if GARBLED.search(name):
                    found["garbled"].append(f"{site}: {name}")
    return found


@pytest.fixture(scope="module")
def worlds(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = {}
    for data in ("v3", "v4"):
        out[data] = tmp_path_factory.mktemp(data) / "world"
        make_world(out[data], seed=0, domains=DOMAINS, data=data)
    return out


def test_v3s_bugs_are_there_and_v4_has_none(worlds: dict[str, Path]) -> None:
    v3, v4 = bugs(site_specs(worlds["v3"])), bugs(site_specs(worlds["v4"]))
    assert all(v3[k] for k in v3), v3  # the check finds each bug where it is
    assert v4 == {k: [] for k in v3}
    assert "furniture" in read_json(worlds["v4"] / "world.json")
    assert read_json(worlds["v4"] / "world.json")["data"] == "v4"
    assert "data" not in read_json(worlds["v3"] / "world.json")


def test_v4_keeps_every_other_site_and_is_written_twice_the_same(
    worlds: dict[str, Path], tmp_path: Path
) -> None:
    make_world(tmp_path / "again", seed=0, domains=DOMAINS, data="v4")
    files = sorted(p.relative_to(worlds["v4"]) for p in worlds["v4"].rglob("*") if p.is_file())
    assert files == sorted(
        p.relative_to(tmp_path / "again") for p in (tmp_path / "again").rglob("*") if p.is_file()
    )
    assert all((worlds["v4"] / f).read_bytes() == (tmp_path / "again" / f).read_bytes() for f in files)
    # a domain with no v4 way of drawing and no fractional slider step keeps its bytes; the others change
    same = {p.parent.name for p in worlds["v4"].glob("*/site.json")
            if p.read_bytes() == (worlds["v3"] / p.parent.name / "site.json").read_bytes()}  # fmt: skip
    assert same and all(s.startswith("store-") for s in same)


def test_a_bad_data_version_is_one_line(tmp_path: Path) -> None:
    r = CliRunner().invoke(cli, ["make-sites", "--seed", "0", "--data", "v9", "--out", str(tmp_path / "w")])
    assert r.exit_code == 2 and "'--data'" in r.output and not (tmp_path / "w").exists()
    from plandvc.errors import InputError

    with pytest.raises(InputError, match="--data: no version 'v9'"):
        make_world(tmp_path / "w", seed=0, domains=("sports",), data="v9")


def slider_values(specs: dict[str, Spec]) -> list[str]:
    """Every value the pool's slider tasks would ask for on these sites (the macro's own choices)."""
    from plandvc.macros.filter_by_slider import choices

    return [
        str(ch.target["value"])
        for spec in specs.values()
        for page in spec.pages
        for c in page.controls
        if c.kind == "slider"
        for ch in choices(page, c, spec.table_of(page))
    ]


def test_the_slider_tasks_of_v4_ask_whole_numbers_only(worlds: dict[str, Path]) -> None:
    """The tasks make-pool would record: v3's ask for "42.5" and "2.4000000000000004", v4's for whole
    numbers (the store's price sliders too: their steps were whole already)."""
    v3, v4 = slider_values(site_specs(worlds["v3"])), slider_values(site_specs(worlds["v4"]))
    assert "42.5" in v3 and "2.4000000000000004" in v3
    assert v4 and all(v.isdigit() for v in v4), [v for v in v4 if not v.isdigit()]
