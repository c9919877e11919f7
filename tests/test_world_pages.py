"""The world's pages (no browser, the server's own App): each layout family has its own DOM structure, while
a query selects the same rows on every family (so the same task is checked by the same gate); pagination
keeps the filters; the classic sites are untouched by the world's keys."""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from plandvc.sites.model import FAMILIES, PAGE_PARAM
from plandvc.sites.server import App
from plandvc.sites.spec import Spec, load_sites, parse_spec
from plandvc.world.make import make_world

STRUCTURE = {  # what only this family's list page has
    "datatable": '<table class="rows"',
    "cardgrid": '<article class="card">',
    "facets": '<aside class="facets"',
    "splitview": '<div class="master">',
    "dashboard": 'role="tablist"',
}


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Spec]:
    out = tmp_path_factory.mktemp("world") / "sites"
    make_world(out, seed=0)
    return load_sites(out)


def _variant(spec: Spec, **theme: Any) -> Spec:
    raw = copy.deepcopy(spec.raw)
    raw["theme"].update(theme)
    return parse_spec(raw, Path(f"{spec.site}/site.json"))


def _get(app: App, url: str) -> str:
    r = app.handle("GET", url, "s")
    assert r.status == 200, (url, r.status, r.body[-300:])
    return r.body.decode()


def _all_entries(app: App, url: str) -> tuple[int, list[str]]:
    """The "Showing N" count and every entry link of a list, walking its pages."""
    html = _get(app, url)
    count = int(re.search(r'data-count="(\d+)"', html).group(1))  # type: ignore[union-attr]
    path = urlsplit(url).path
    links: list[str] = []
    for _ in range(20):
        links += [
            h for h in re.findall(r'href="([^"?]+)"', html) if h.startswith(path + "/") and "/new" not in h
        ]
        nxt = re.search(r'href="([^"]+)"[^>]*data-(?:page-next|load-more)', html)
        if not nxt:
            break
        html = _get(app, nxt.group(1).replace("&amp;", "&"))
    return count, list(dict.fromkeys(links))


def test_each_family_has_its_own_structure(world: dict[str, Spec]):
    spec = next(iter(world.values()))
    page = spec.pages[0]
    for family in FAMILIES:
        v = _variant(spec, layout=family)
        html = _get(App({v.site: v}), f"/sites/{v.site}/{page.page}")
        assert STRUCTURE[family] in html, family
        for other in set(FAMILIES) - {family}:
            assert STRUCTURE[other] not in html or (other == "datatable" and family == "dashboard"), (
                family,
                other,
            )


def test_a_query_selects_the_same_entries_on_every_family(world: dict[str, Spec]):
    spec = world[sorted(world)[0]]
    page = spec.pages[0]
    table = spec.table_of(page)
    dd = next(c for c in page.controls if c.kind == "dropdown")
    value = table.rows[0][str(dd.column)]
    sort = next(c for c in page.controls if c.kind == "sort")
    url = f"/sites/{spec.site}/{page.page}?{dd.param}={value}&{sort.params[0]}={sort.columns[0]}&{sort.params[1]}=desc"
    seen = set()
    for family in FAMILIES:
        for pagination in ("numbered", "nextprev", "loadmore"):
            v = _variant(spec, layout=family, pagination=pagination, page_size=5)
            count, links = _all_entries(App({v.site: v}), url)
            assert len(links) == count
            seen.add((count, tuple(links)))
    assert len(seen) == 1, "the layout changed which rows the query selects"
    assert next(iter(seen))[0] == sum(1 for r in table.rows if r[str(dd.column)] == value)


def test_pagination_links_keep_the_filters_and_bad_pages_are_400(world: dict[str, Spec]):
    spec = _variant(next(iter(world.values())), pagination="numbered", page_size=5)
    app = App({spec.site: spec})
    page = spec.pages[0]
    search = next(c for c in page.controls if c.kind == "search")
    html = _get(app, f"/sites/{spec.site}/{page.page}?{search.param}=a")
    pages = re.findall(r'href="([^"]+)" data-page="(\d+)"', html)
    assert pages, "no numbered page links"
    for href, n in pages:
        q = parse_qs(urlsplit(href.replace("&amp;", "&")).query)
        assert q[search.param] == ["a"] and q[PAGE_PARAM] == [n]
    for bad in ("0", "x", "-1"):
        assert app.handle("GET", f"/sites/{spec.site}/{page.page}?{PAGE_PARAM}={bad}", "s").status == 400


def test_min_max_number_fields_bound_both_ends(world: dict[str, Spec]):
    spec = next(s for s in world.values() if any(c.implementation == "numbers" for _, c in s.controls))
    page, c = next((p, c) for p, c in spec.controls if c.implementation == "numbers")
    rows = spec.table_of(page).rows
    values = sorted(float(r[str(c.column)]) for r in rows)
    lo, hi = values[len(values) // 4], values[3 * len(values) // 4]
    html = _get(App({spec.site: spec}), f"/sites/{spec.site}/{page.page}?{c.param}={hi}&{c.min_param}={lo}")
    want = sum(1 for v in values if lo <= v <= hi)
    assert f'data-count="{want}"' in html and 0 < want < len(values)


def test_an_empty_list_keeps_its_sort_headers(world: dict[str, Spec]):
    """A list sorted by its column headers shows them on an empty result too (a filter and a search that
    match nothing), beside the empty state: a sort that follows such a search in a chain still finds them."""
    tested = 0
    for spec in world.values():
        for page, c in spec.controls:
            if c.kind != "sort" or c.implementation != "headers":
                continue
            search = next(s for s in page.controls if s.kind == "search")
            for family in ("datatable", "dashboard", "cardgrid"):
                v = _variant(spec, layout=family)
                html = _get(App({v.site: v}), f"/sites/{v.site}/{page.page}?{search.param}=zzzqqqxxx")
                assert 'data-count="0"' in html and "data-empty>" in html
                for column in c.columns or ():
                    assert f'data-sort="{column}"' in html, (v.site, family, column)
                tested += 1
    assert tested >= 3


def test_pages_render_the_same_bytes_twice(world: dict[str, Spec]):
    for spec in list(world.values())[:5]:
        urls = [f"/sites/{spec.site}"] + [f"/sites/{spec.site}/{p.page}" for p in spec.pages]
        t = spec.tables[spec.pages[0].table]
        urls.append(f"/sites/{spec.site}/{spec.pages[0].page}/{t.rows[0][t.key]}")
        assert [_get(App(world), u) for u in urls] == [_get(App(world), u) for u in urls]


def test_classic_sites_ignore_the_page_parameter():
    from bundled import SITES_DIR

    specs = load_sites(SITES_DIR)
    app = App(specs)
    site = sorted(specs)[0]
    page = specs[site].pages[0].page
    assert _get(app, f"/sites/{site}/{page}?{PAGE_PARAM}=x") == _get(app, f"/sites/{site}/{page}")


def test_pages_fetch_nothing_from_the_network(world: dict[str, Spec]):
    """Pictures, styles and scripts are inline: no page names another host (the SVG namespace is not a fetch)."""
    app = App(world)
    for spec in world.values():
        page = spec.pages[0]
        t = spec.table_of(page)
        for url in (
            f"/sites/{spec.site}",
            f"/sites/{spec.site}/{page.page}",
            f"/sites/{spec.site}/{page.page}/{t.rows[0][t.key]}",
        ):
            html = _get(app, url).replace('xmlns="http://www.w3.org/2000/svg"', "")
            assert not re.search(r"(?:https?:)?//[a-z0-9.-]+\.[a-z]{2,}", html), url
            assert "<script src" not in html and "<link" not in html and "<img" not in html
