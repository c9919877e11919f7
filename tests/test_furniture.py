"""`make-sites --furniture v3` (issue 40, item 5): home pages in five structures, list filters as a facet
sidebar with counts, one form's Apply or applied on change, and Edit / Delete on each row; v2 stays the
world as it was, byte for byte (its specs, its rendered pages and its recordings)."""

from __future__ import annotations

import hashlib
import json
import re
import sys
from html import unescape
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import pytest
import yaml
from click.testing import CliRunner

from plandvc.checks import gate
from plandvc.cli import cli
from plandvc.io import read_json
from plandvc.macros import MACROS
from plandvc.pool.tasks import site_tasks
from plandvc.ports import free_ports
from plandvc.sites.query import select_rows
from plandvc.sites.server import App
from plandvc.sites.spec import load_sites
from plandvc.world.make import make_world, sub_world

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from test_committed_pool import dvc_dir_md5  # noqa: E402

from plandvc.bench.structures import measure  # noqa: E402

# the rendered pages of `pages(...)` on the v2 world's recipes and store sites, from the code before v3
V2_PAGES_SHA256 = "42b70ea035f8b1c5d0d6b163118e86f85d9a23ec8152e1d9a1b3a6fb87a4c263"
# one site of each new home structure, and between them every v3 filter form (seed 0)
V3_SAMPLE = {
    "recipes-weeknight-kitchen": ("portal", "change"),
    "recipes-pantry-stories": ("magazine", "form"),
    "store-northwind-goods": ("search", "facets"),
    "store-baskety": ("dashboard", "change"),
}


def pages(app: App, site: str) -> list[str]:
    """The URLs of a site's home, lists (filtered, sorted, paged), entries, tabs and forms."""
    spec = app.specs[site]
    urls = [f"/sites/{site}"]
    for p in spec.pages:
        t = spec.table_of(p)
        base = f"/sites/{site}/{p.page}"
        urls += [base, f"{base}?page=2"]
        for c in p.controls:
            if c.kind in ("dropdown", "options"):
                urls.append(f"{base}?{c.param}={t.column(str(c.column)).values[0]}")
            if c.kind == "sort":
                urls.append(f"{base}?sort={c.columns[0]}&dir=desc")
        rid = t.rows[0][t.key]
        urls += [f"{base}/{rid}", f"{base}/{rid}?tab=details", f"{base}/{rid}/edit", f"{base}/new"]
    return urls


def rendered_hash(sites: Path) -> str:
    app = App(load_sites(sites))
    h = hashlib.sha256()
    for site in sorted(app.specs):
        for url in pages(app, site):
            r = app.handle("GET", url, "s")
            h.update(f"{url} {r.status}\n".encode() + r.body)
    return h.hexdigest()


@pytest.fixture(scope="module")
def v3(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("v3") / "world"
    make_world(out, seed=0, domains=("recipes", "store", "maker", "hotels", "flights"), furniture="v3")
    return out


# ── v2: the world as it was ──────────────────────────────────────────────────────────────────────────


# dataset v2's `data/world` in its dvc.lock: (files, DVC's directory md5)
V2_WORLD = (62, "08d21e4b1f36a6a8deef63aea0036df1.dir")


def test_v2_world_is_dataset_v2s_byte_for_byte(tmp_path: Path) -> None:
    """`--furniture v2` writes dataset v2's world folder (the whole world, every file, hashed as DVC does)."""
    r = CliRunner().invoke(
        cli, ["make-sites", "--seed", "0", "--furniture", "v2", "--out", str(tmp_path / "w")]
    )
    assert r.exit_code == 0, r.output
    files = sorted(p for p in (tmp_path / "w").rglob("*") if p.is_file())
    assert (len(files), dvc_dir_md5(tmp_path / "w", files)) == V2_WORLD
    assert "furniture" not in read_json(tmp_path / "w" / "world.json")


def test_the_default_world_is_the_pipelines_byte_for_byte(tmp_path: Path) -> None:
    """The default world (v3, as params.yaml's world.furniture) hashes to dvc.lock's `data/world`."""
    params = yaml.safe_load((ROOT / "params.yaml").read_text())
    assert params["world"]["furniture"] == "v3" and params["world"]["data"] == "v3"
    r = CliRunner().invoke(cli, ["make-sites", "--seed", "0", "--out", str(tmp_path / "w")])
    assert r.exit_code == 0, r.output
    lock = yaml.safe_load((ROOT / "dvc.lock").read_text())
    want = next(o for o in lock["stages"]["make_sites"]["outs"] if o["path"] == "data/world")
    files = sorted(p for p in (tmp_path / "w").rglob("*") if p.is_file())
    assert (len(files), dvc_dir_md5(tmp_path / "w", files)) == (want["nfiles"], want["md5"])
    assert read_json(tmp_path / "w" / "world.json")["furniture"] == "v3"


def test_v2_pages_render_as_before(tmp_path: Path) -> None:
    """Every page kind of the v2 sites renders to the bytes the code before v3 rendered."""
    make_world(tmp_path / "w", seed=0, domains=("recipes", "store"), furniture="v2")
    assert rendered_hash(tmp_path / "w") == V2_PAGES_SHA256


# ── v3: what the sites show ──────────────────────────────────────────────────────────────────────────


def test_v3_is_recorded_in_the_specs_and_covers_every_choice(v3: Path) -> None:
    manifest = read_json(v3 / "world.json")
    assert manifest["furniture"] == "v3"
    themes = {e["site"]: read_json(v3 / e["site"] / "site.json")["theme"] for e in manifest["sites"]}
    assert {t["home"] for t in themes.values()} == {"classic", "portal", "search", "dashboard", "magazine"}
    assert {t["filters"] for t in themes.values()} == {"facets", "form", "change"}
    assert all(t["row_actions"] for t in themes.values())
    for site, (home, filters) in V3_SAMPLE.items():
        assert (themes[site]["home"], themes[site]["filters"]) == (home, filters)


def facet_links(html: str, cid: str) -> list[tuple[str, str, int]]:
    """(value, href, count) of each facet link of control `cid` on a page."""
    got = re.findall(
        rf'<a href="([^"]*)" data-control-id="{cid}-facet"[^>]*>([^<]*)</a> <span class="facet-count">\((\d+)\)',
        html,
    )
    return [(unescape(text), unescape(href), int(n)) for href, text, n in got]


def test_a_facet_count_is_the_rows_its_link_shows(v3: Path) -> None:
    """On a facet sidebar, each dropdown value's count is the number of rows its link's query returns (the
    server's own count line), under another filter too; and the session's rows are counted (after a delete)."""
    app = App(load_sites(v3))
    spec = app.specs["store-northwind-goods"]
    page = spec.pages[0]
    table = spec.table_of(page)
    dd = next(c for c in page.controls if c.kind == "dropdown")
    op = next(c for c in page.controls if c.kind == "options")
    base = f"/sites/{spec.site}/{page.page}"
    other = table.column(str(op.column)).values[0]
    checked = zero = 0
    for start in (base, f"{base}?{op.param}={other}"):
        html = app.handle("GET", start, "s").body.decode()
        links = facet_links(html, dd.control_id)
        assert len(links) >= 2, start
        for value, href, n in links:
            shown = app.handle("GET", href, "s").body.decode()
            assert f'data-count="{n}"' in shown, (href, n)
            pairs = parse_qsl(urlsplit(href).query)
            assert n == len(select_rows(page, table, list(table.rows), pairs))
            assert (dd.param, value) in pairs
            checked += 1
            zero += n == 0
    assert checked >= 4 and zero, "no value without rows under another filter was checked"
    # a deleted row is no longer counted in that session's sidebar (the orders list deletes)
    page = spec.pages[-1]
    table = spec.table_of(page)
    assert table.delete
    dd = next(c for c in page.controls if c.kind == "dropdown")
    base = f"/sites/{spec.site}/{page.page}"
    first = table.rows[0]
    value = str(first[str(dd.column)])
    before = dict(
        (v, n) for v, _, n in facet_links(app.handle("GET", base, "t").body.decode(), dd.control_id)
    )
    assert app.handle("POST", f"{base}/{first[table.key]}/delete", "t", b"").status == 303
    after = dict((v, n) for v, _, n in facet_links(app.handle("GET", base, "t").body.decode(), dd.control_id))
    assert after[value] == before[value] - 1


def test_list_pages_show_their_furniture(v3: Path) -> None:
    app = App(load_sites(v3))
    html = {
        s: app.handle("GET", f"/sites/{s}/{app.specs[s].pages[-1].page}", "s").body.decode()
        for s in V3_SAMPLE
    }
    form = html["recipes-pantry-stories"]
    assert (
        form.count('class="filter-form"') == 1
        and "Apply filters" in form
        and " data-autosubmit aria-label" not in form
    )
    change = html["recipes-weeknight-kitchen"]
    assert " data-autosubmit aria-label" in change and "Apply filters" not in change
    assert 'class="facet-sidebar"' in html["store-northwind-goods"]
    for s, text in html.items():  # each of these lists has an edit form: Edit and Delete on every row
        spec = app.specs[s]
        t = spec.table_of(spec.pages[-1])
        if t.edit:
            assert text.count("-row-edit") == text.count("-row-delete") >= 5, s


@pytest.mark.timeout(300)
def test_v3_has_at_least_four_home_structures_in_chromium(v3: Path) -> None:
    """The bench's measure (plandvc/bench/structures.py): every site's home in Chromium, the tag structure of its
    <main>; v3's five structures (the classic one among them) are five distinct strings."""
    got = measure(v3)
    homes = got.distinct("home")
    assert len(homes) >= 5, homes
    by_kind: dict[str, set[str]] = {}
    for site, s in got.pages["home"].items():
        by_kind.setdefault(read_json(v3 / site / "site.json")["theme"]["home"], set()).add(s)
    assert all(len(v) == 1 for v in by_kind.values()) and len(set().union(*by_kind.values())) == 5


# ── recorded and gated ───────────────────────────────────────────────────────────────────────────────


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_every_macro_recorded_and_gated_on_each_new_structure(v3: Path, tmp_path: Path) -> None:
    """make-pool on one site of each new home structure (and so every v3 filter form): every macro the site
    offers is kept there; the trajectories click the facet link, press the one "Apply filters", or only set
    the field on a form that applies on change, and edit and delete through the row's own actions."""
    sites = sub_world(v3, sorted(V3_SAMPLE), tmp_path / "sites")
    ports = ",".join(str(p) for p in free_ports(2))
    out = tmp_path / "pool"
    r = CliRunner().invoke(
        cli,
        ["make-pool", "--sites", str(sites), "--out", str(out), "--per-macro", "1", "--workers", "2",
         "--ports", ports],
        catch_exceptions=False,
    )  # fmt: skip
    assert r.exit_code == 0, r.output
    kept: dict[str, set[str]] = {s: set() for s in V3_SAMPLE}
    steps: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for d in sorted((out / "runs" / "r1" / "accepted").iterdir()):
        task = read_json(d / "task.json")
        kept[task["site"]].add(task["macro"])
        els = read_json(d / "elements.json")
        traj = read_json(d / "trajectory.json")
        steps[(task["site"], task["macro"])] = [{**s, "el": els[s["element"]]} for s in traj["steps"]]
    assert not list((out / "runs" / "r1").glob("rejected/*")), "rejected tasks"
    specs = load_sites(sites)
    for (
        site
    ) in V3_SAMPLE:  # every macro the site offers (go_to_page: not on load-more lists; switch_tab: tabs)
        assert kept[site] == {t["macro"] for t in site_tasks(specs[site], 0, per_macro=1)}, site
    assert set().union(*kept.values()) == set(MACROS)

    def cids(site: str, macro: str) -> list[str]:
        return [str(s["el"]["attrs"].get("data-control-id", "")) for s in steps[(site, macro)]]

    assert any(c.endswith("-facet") for c in cids("store-northwind-goods", "filter_by_dropdown"))
    assert cids("recipes-pantry-stories", "filter_by_dropdown")[-1].endswith("-filters-apply")
    assert not any(c.endswith("-apply") for c in cids("recipes-weeknight-kitchen", "filter_by_dropdown"))
    for site in V3_SAMPLE:
        assert any(c.endswith("-row-edit") for c in cids(site, "edit_entry")), site
        assert any(c.endswith("-row-delete") for c in cids(site, "delete_entry")), site
    r = CliRunner().invoke(
        cli, ["check-pool", "--pool", str(out), "--sites", str(sites)], catch_exceptions=False
    )
    assert r.exit_code == 0, r.output


def test_a_facet_gate_fails_on_another_facet(v3: Path) -> None:
    """The query gate of "filter by X" passes on X's facet link and fails on another value's link (and on the
    list left unfiltered): the facet's URL is the same query the dropdown made."""
    app = App(load_sites(v3))
    spec = app.specs["store-northwind-goods"]
    page = spec.pages[0]
    dd = next(c for c in page.controls if c.kind == "dropdown")
    base = f"/sites/{spec.site}/{page.page}"
    links = facet_links(app.handle("GET", base, "s").body.decode(), dd.control_id)
    (want, href, _), (_, other, _) = links[0], links[1]
    check: Any = {"kind": "query", "path": base, "params": {str(dd.param): [want]}}

    def state(url: str) -> dict[str, Any]:
        return {"url": url, "seen": [url], "entries": {}, "changes": [], "answer": None}

    assert gate(check, {"exclusive": True}, state(href))[0]
    ok, detail = gate(check, {"exclusive": True}, state(other))
    assert not ok and str(dd.param) in detail
    assert not gate(check, {}, state(base))[0]
    assert json.dumps(check)  # the check is the pool's JSON, unchanged by the furniture


def test_the_site_schema_names_the_same_choices() -> None:
    from plandvc.pool.schema import schema
    from plandvc.sites.model import FILTER_FORMS, HOMES

    theme = schema("site")["properties"]["theme"]["properties"]
    assert (tuple(theme["home"]["enum"]), tuple(theme["filters"]["enum"])) == (HOMES, FILTER_FORMS)
