"""`plandvc make-sites`: the generated world is byte-reproducible, covers the domains, layout families,
navigation, pagination, banners and every control implementation, and each site passes the spec validator."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from plandvc.cli import cli
from plandvc.io import InputError
from plandvc.sites.model import FAMILIES, FORMS, IMPLS, NAVS
from plandvc.sites.spec import load_sites, load_split
from plandvc.world.make import DOMAINS, make_world


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("world") / "sites"
    make_world(out, seed=0)
    return out


def test_twice_the_same_bytes_and_another_seed_differs(world: Path, tmp_path: Path):
    r = CliRunner().invoke(
        cli, ["make-sites", "--seed", "0", "--out", str(tmp_path / "a")], catch_exceptions=False
    )
    assert r.exit_code == 0, r.output
    assert "wrote 30 sites of 15 domains" in r.output
    assert _tree(tmp_path / "a") == _tree(world)
    make_world(tmp_path / "b", seed=1)
    assert _tree(tmp_path / "b") != _tree(world)


def test_world_size_domains_and_split(world: Path):
    specs = load_sites(world)
    assert len(DOMAINS) >= 15 and len(specs) >= 30
    per_domain = Counter(s.domain for s in specs.values())
    assert len(per_domain) >= 15 and min(per_domain.values()) >= 2
    split = load_split(world)
    test_domains = {specs[s].domain for s in split["test"]}
    assert len(test_domains) == 3
    assert not test_domains & {specs[s].domain for s in split["train"]}
    for spec in specs.values():
        assert all(len(t.rows) >= 40 for t in spec.tables.values())
        assert {c.kind for _, c in spec.controls} == {
            "dropdown",
            "options",
            "slider",
            "date_range",
            "sort",
            "search",
        }
        assert any(t.create for t in spec.tables.values()) and any(t.edit for t in spec.tables.values())
        assert any(t.copy for t in spec.tables.values())


def test_every_look_and_implementation_is_used(world: Path):
    specs = load_sites(world).values()
    assert {s.theme.layout for s in specs} == set(FAMILIES)
    assert {s.theme.nav for s in specs} == set(NAVS)
    assert {s.theme.pagination for s in specs} == {"numbered", "nextprev", "loadmore"}
    assert {s.theme.banner for s in specs} == {"none", "cookie", "newsletter"}
    assert {t.form for s in specs for t in s.tables.values()} == set(FORMS)
    used = {(c.kind, c.implementation) for s in specs for _, c in s.controls}
    assert used == {(k, i) for k, impls in IMPLS.items() for i in impls}
    by_domain: dict[str, set[str]] = {}
    for s in specs:
        by_domain.setdefault(s.domain, set()).add(s.theme.layout)
    assert all(len(f) == 2 for f in by_domain.values()), "the two sites of a domain share a layout family"


def test_manifest_names_every_site(world: Path):
    manifest = json.loads((world / "world.json").read_text())
    assert sorted(e["site"] for e in manifest["sites"]) == sorted(load_sites(world))


def test_refuses_to_replace_an_unrelated_folder(tmp_path: Path):
    (tmp_path / "keep.txt").write_text("mine")
    r = CliRunner().invoke(cli, ["make-sites", "--out", str(tmp_path)])
    assert r.exit_code != 0 and "not a previous output of make-sites" in r.output
    assert (tmp_path / "keep.txt").read_text() == "mine"


def test_every_site_meets_the_site_schema(world: Path):
    from plandvc.pool.schema import validate

    for path in sorted(world.glob("*/site.json")):
        assert validate("site", json.loads(path.read_text()), str(path)) == [], path


def test_shoot_picks_one_site_per_family_and_fills_the_doc(world: Path, tmp_path: Path):
    from plandvc.world.shoot import BEGIN, END, pick_sites, table_md, write_doc

    entries = json.loads((world / "world.json").read_text())["sites"]
    chosen = pick_sites(entries, 8)
    assert len(chosen) == 8 and len({e["domain"] for e in chosen}) == 8
    assert {e["family"] for e in chosen} == set(FAMILIES)
    table = table_md(entries, chosen)
    assert table.count("\n") == len(entries) + 2 and table.count("| yes |") == 8
    doc = tmp_path / "WORLD.md"
    doc.write_text(f"# World\n\n{BEGIN}\nold\n{END}\n\nafter\n")
    write_doc(doc, tmp_path / "shots", world, chosen)
    text = doc.read_text()
    assert "old" not in text and text.endswith(f"{END}\n\nafter\n") and "![home](shots/" in text
    doc.write_text("no markers\n")
    with pytest.raises(InputError, match="world:begin"):
        write_doc(doc, tmp_path / "shots", world, chosen)


def test_radios_get_one_value_checkboxes_and_chips_one_or_two(world: Path):
    """A radio group holds one value, so the options generator asks for one; the other options take pairs too."""
    import random

    from plandvc.macros import macro
    from plandvc.macros.make import TaskMaker

    m = macro("filter_by_options")
    sizes: dict[str, set[int]] = {}
    for _site, spec in sorted(load_sites(world).items()):
        impl = {c.control_id: c.implementation for p in spec.pages for c in p.controls}
        for t in m.tasks(TaskMaker(spec, spec.name, m.name, m.phrases), random.Random(0)):
            n = len(t["target"]["values"])
            sizes.setdefault(impl[t["target"]["control_id"]], set()).add(n)
    assert sizes["radios"] == {1}, sizes
    assert sizes["checkboxes"] == sizes["chips"] == {1, 2}, sizes
