"""The bundled inputs the tests run on: the sites of data/sites (specs and display names), the committed sample
pool of data/pool, and small look-ups over them. A plain module (no fixtures): the fixtures are in conftest.py."""

from __future__ import annotations

import copy
import functools
import hashlib
from pathlib import Path
from typing import Any

from plandvc.chains.items import ItemsReport, pool_items
from plandvc.io import read_jsonl
from plandvc.records import ItemRecord
from plandvc.sites.spec import Control, Page, Spec, load_sites, site_name

ROOT = Path(__file__).resolve().parents[1]
SITES_DIR = ROOT / "data" / "sites"
POOL_DIR = ROOT / "data" / "pool"
SPECS: dict[str, Spec] = load_sites(SITES_DIR)
NAMES = {s: site_name(SITES_DIR, s) for s in SPECS}
# every list page of every site, and every control, for parametrised tests
LIST_PAGES = [(site, page.page) for site, spec in sorted(SPECS.items()) for page in spec.pages]
CONTROLS = [(site, p.page, c.control_id) for site, spec in sorted(SPECS.items()) for p, c in spec.controls]


def spec_with(predicate: Any) -> tuple[Spec, Page]:
    """The first (spec, page) of the bundled sites for which `predicate(spec, page)` holds."""
    for _, spec in sorted(SPECS.items()):
        for page in spec.pages:
            if predicate(spec, page):
                return spec, page
    raise LookupError("no bundled site has such a page")


def control_of(kind: str) -> tuple[Spec, Page, Control]:
    """(spec, page, control) of the first control of `kind` in the bundled sites."""
    spec, page = spec_with(lambda s, p: any(c.kind == kind for c in p.controls))
    return spec, page, next(c for c in page.controls if c.kind == kind)


def kept() -> list[dict[str, Any]]:
    """The kept parts of the committed sample pool."""
    return read_jsonl(POOL_DIR / "kept.jsonl")


def sample(per_macro: int = 2) -> list[dict[str, Any]]:
    """A fixed, stratified sample of the committed pool: `per_macro` kept parts of each macro, spread over
    sites by a hash of the id (the same every run)."""
    by_macro: dict[str, list[dict[str, Any]]] = {}
    for r in kept():
        by_macro.setdefault(r["macro"], []).append(r)
    out = []
    for macro in sorted(by_macro):
        rows = sorted(by_macro[macro], key=lambda r: hashlib.sha1(r["id"].encode()).hexdigest())
        out += rows[:per_macro]
    return out


@functools.cache
def _pool_items_read(pool: Path, sites: Path, held_out: bool) -> tuple[list[ItemRecord], ItemsReport]:
    return pool_items(pool, sites, held_out=held_out)


def pool_items_once(
    pool: Path = POOL_DIR, sites: Path = SITES_DIR, held_out: bool = False
) -> tuple[list[ItemRecord], ItemsReport]:
    """`pool_items(pool, sites)` (the bundled sample pool by default), read once per test process and a deep
    copy per call: reading validates every part's files against the pool's schema (seconds), and a test may
    change what it gets without touching another's."""
    return copy.deepcopy(_pool_items_read(Path(pool), Path(sites), held_out))
