"""Site specs: load and validate `data/sites/<site>/site.json` into typed, read-only objects.

The spec is the source of truth for a site (its data, pages, controls and theme); the renderer, the server and
the pool's task generator all read it through here. A broken spec is an `InputError` naming the file and key.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import NoReturn

from plandvc.io import InputError, read_json
from plandvc.sites.model import (
    BANNERS,
    CLASSIC_LAYOUTS,
    COLUMN_TYPES,
    CONTROL_KINDS,
    DISPLAYS,
    FAMILIES,
    FILTER_FORMS,
    FORMS,
    HOMES,
    IMPLS,
    LAYOUTS,
    MIN_ROWS,
    NAVS,
    PAGE_PARAM,
    PAGINATIONS,
    RESERVED_IDS,
    SUGGEST_PARAM,
    Column,
    Control,
    Page,
    Spec,
    Table,
    Theme,
    check_value,
    is_date,
)

__all__ = [
    "CLASSIC_LAYOUTS", "COLUMN_TYPES", "CONTROL_KINDS", "FAMILIES", "IMPLS", "LAYOUTS", "Column", "Control",
    "Page", "Spec", "Table", "Theme", "check_value", "is_date", "load_sites", "load_spec", "load_split",
    "parse_spec", "read_split", "site_name",
]  # fmt: skip

_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
_SLUG = re.compile(r"^[a-z][a-z0-9-]*$")
_COLOUR = re.compile(r"^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$")


# ── validation ───────────────────────────────────────────────────────────────


class _Check:
    """Raises InputError `<file>: <key>: <message>`; its getters return a key's value as the type they check."""

    def __init__(self, path: Path):
        self.path = path

    def fail(self, key: str, msg: str) -> NoReturn:
        raise InputError(f"{self.path}: {key}: {msg}")

    def get(self, obj: object, key: str, name: str, kinds: tuple[type, ...], required: bool = True) -> object:
        """`obj[name]`, one of `kinds` (a bool only where they name bool); None: absent and not `required`."""
        if not isinstance(obj, dict):
            self.fail(key, "expected an object")
        where = f"{key}.{name}" if key else name
        if name not in obj:
            if required:
                self.fail(where, "missing")
            return None
        v: object = obj[name]
        if not isinstance(v, kinds) or (isinstance(v, bool) and bool not in kinds):
            self.fail(where, f"expected {' or '.join(k.__name__ for k in kinds)}, got {type(v).__name__}")
        return v

    def text(self, obj: object, key: str, name: str) -> str:
        return str(self.get(obj, key, name, (str,)))

    def opt_text(self, obj: object, key: str, name: str, required: bool = False) -> str | None:
        return v if isinstance(v := self.get(obj, key, name, (str,), required=required), str) else None

    def opt_int(self, obj: object, key: str, name: str, required: bool = False) -> int | None:
        return v if isinstance(v := self.get(obj, key, name, (int,), required=required), int) else None

    def number(self, obj: object, key: str, name: str) -> int | float:
        return v if isinstance(v := self.get(obj, key, name, (int, float)), int | float) else 0

    def flag(self, obj: object, key: str, name: str) -> bool:
        """An optional bool, False when absent."""
        return bool(self.get(obj, key, name, (bool,), required=False))

    def items(self, obj: object, key: str, name: str, required: bool = True) -> list[object]:
        return list(v) if isinstance(v := self.get(obj, key, name, (list,), required=required), list) else []

    def mapping(self, obj: object, key: str, name: str) -> dict[str, object]:
        return dict(v) if isinstance(v := self.get(obj, key, name, (dict,)), dict) else {}


def _column(ck: _Check, key: str, c: object) -> Column:
    name = ck.text(c, key, "name")
    if not _NAME.match(name):
        ck.fail(f"{key}.name", f"{name!r} is not a lower-case identifier")
    ctype = ck.text(c, key, "type")
    if ctype not in COLUMN_TYPES:
        ck.fail(f"{key}.type", f"unknown column type {ctype!r} (one of {', '.join(COLUMN_TYPES)})")
    values = ck.items(c, key, "values", required=ctype == "enum")
    if ctype == "enum" and (
        len(values) < 2
        or not all(isinstance(v, str) and v for v in values)
        or len(set(values)) != len(values)
    ):
        ck.fail(f"{key}.values", "an enum needs at least 2 distinct non-empty strings")
    decimals = ck.opt_int(c, key, "decimals") or 0
    if not 0 <= decimals <= 4:
        ck.fail(f"{key}.decimals", "must be 0..4")
    return Column(
        name=name,
        label=ck.text(c, key, "label"),
        type=ctype,
        values=tuple(str(v) for v in values),
        prefix=ck.opt_text(c, key, "prefix") or "",
        suffix=ck.opt_text(c, key, "suffix") or "",
        decimals=decimals,
        display=_choice(ck, c, key, "display", DISPLAYS),
    )


def _choice(ck: _Check, obj: object, key: str, name: str, allowed: tuple[str, ...]) -> str:
    """An optional key whose value is one of `allowed` (the first is the default)."""
    v = ck.opt_text(obj, key, name)
    if v is None:
        return allowed[0]
    if v not in allowed:
        where = f"{key}.{name}" if key else name
        ck.fail(where, f"unknown {name} {v!r} (one of {', '.join(allowed)})")
    return v


def _table(ck: _Check, tname: str, t: object) -> Table:
    key = f"tables.{tname}"
    if not _NAME.match(tname):
        ck.fail(key, "table names are lower-case identifiers")
    cols = ck.items(t, key, "columns")
    columns = tuple(_column(ck, f"{key}.columns[{i}]", c) for i, c in enumerate(cols))
    names = [c.name for c in columns]
    if len(set(names)) != len(names):
        ck.fail(f"{key}.columns", "duplicate column name")
    by_name = {c.name: c for c in columns}

    def col_ref(sub: str, name: object) -> str:
        if not isinstance(name, (str,)) or name not in by_name:
            ck.fail(f"{key}.{sub}", f"column {name!r} is missing from {key}.columns")
        return name

    tkey = col_ref("key", ck.text(t, key, "key"))
    if by_name[tkey].type != "id":
        ck.fail(f"{key}.key", f"column {tkey!r} must have type 'id'")
    label = col_ref("label", ck.text(t, key, "label"))
    rows = ck.items(t, key, "rows")
    _check_rows(ck, key, rows, columns, tkey, label)
    create = ck.items(t, key, "create", required=False)
    edit = ck.items(t, key, "edit", required=False)
    for sub, fields in (("create", create), ("edit", edit)):
        for f in fields:
            if col_ref(sub, f) == tkey:
                ck.fail(f"{key}.{sub}", "the id column is assigned by the server")
    copy = ck.opt_text(t, key, "copy")
    text = ck.opt_text(t, key, "text")
    if copy is not None:
        col_ref("copy", copy)
    return Table(
        name=tname,
        title=ck.text(t, key, "title"),
        singular=ck.text(t, key, "singular"),
        key=tkey,
        label=label,
        columns=columns,
        rows=tuple(dict(r) for r in rows if isinstance(r, dict)),
        create=tuple(map(str, create)),
        edit=tuple(map(str, edit)),
        copy=copy,
        form=_choice(ck, t, key, "form", FORMS),
        text=col_ref("text", text) if text is not None else None,
        delete=ck.flag(t, key, "delete"),
    )


def _check_rows(
    ck: _Check, key: str, rows: list[object], columns: tuple[Column, ...], tkey: str, label: str
) -> None:
    """Each row has exactly the table's columns, valid values, a distinct id that is not reserved and a
    distinct label."""
    names = [c.name for c in columns]
    if len(rows) < MIN_ROWS:
        ck.fail(f"{key}.rows", f"{len(rows)} rows, a list page needs at least {MIN_ROWS}")
    ids: set[str] = set()
    labels: set[object] = set()
    for i, r in enumerate(rows):
        rkey = f"{key}.rows[{i}]"
        if not isinstance(r, dict):
            ck.fail(rkey, "expected an object")
        if set(r) != set(names):
            extra, missing = sorted(set(r) - set(names)), sorted(set(names) - set(r))
            ck.fail(rkey, f"columns differ from the table's (extra {extra}, missing {missing})")
        for c in columns:
            why = check_value(c, r[c.name])
            if why:
                ck.fail(f"{rkey}.{c.name}", why)
        if r[tkey] in ids:
            ck.fail(f"{rkey}.{tkey}", f"duplicate id {r[tkey]!r}")
        if r[tkey] in RESERVED_IDS:
            ck.fail(f"{rkey}.{tkey}", f"{r[tkey]!r} is reserved")
        if r[label] in labels:
            ck.fail(
                f"{rkey}.{label}", f"duplicate label {r[label]!r} (labels name entries, keep them distinct)"
            )
        ids.add(str(r[tkey]))
        labels.add(r[label])


def _control_columns(
    ck: _Check, key: str, c: object, kind: str, table: Table
) -> tuple[str | None, list[str]]:
    """The column a filter reads (typed for its kind), or the columns a sort or a search reads."""
    want_type = {"dropdown": ("enum",), "options": ("enum",), "slider": ("number",), "date_range": ("date",)}
    column = None
    if kind in want_type:
        column = ck.text(c, key, "column")
        if column not in table.column_names:
            ck.fail(f"{key}.column", f"column {column!r} is missing from table {table.name!r}")
        if table.column(column).type not in want_type[kind]:
            ck.fail(
                f"{key}.column", f"a {kind} needs a {'/'.join(want_type[kind])} column, {column!r} is not"
            )
    columns: list[str] = []
    if kind in ("sort", "search"):
        columns = [str(n) for n in ck.items(c, key, "columns")]
        if not columns:
            ck.fail(f"{key}.columns", "at least one column")
        for name in columns:
            if name not in table.column_names:
                ck.fail(f"{key}.columns", f"column {name!r} is missing from table {table.name!r}")
            if kind == "search" and table.column(name).type not in ("id", "text", "enum"):
                ck.fail(f"{key}.columns", f"search reads text columns, {name!r} is not")
    return column, columns


def _control_params(ck: _Check, key: str, c: object, kind: str) -> tuple[str | None, tuple[str, ...]]:
    """A date range's or sort's two parameter names, or the one parameter of the other kinds."""
    if kind in ("date_range", "sort"):
        given = ck.items(c, key, "params")
        params = tuple(p for p in given if isinstance(p, str) and _NAME.match(p))
        if len(given) != 2 or len(params) != 2:
            ck.fail(f"{key}.params", "two distinct parameter names")
        if params[0] == params[1]:
            ck.fail(f"{key}.params", "two distinct parameter names")
        return None, params
    param = ck.text(c, key, "param")
    if not _NAME.match(param):
        ck.fail(f"{key}.param", f"{param!r} is not a parameter name")
    return param, ()


def _control(ck: _Check, key: str, c: object, table: Table) -> Control:
    kind = ck.text(c, key, "kind")
    if kind not in CONTROL_KINDS:
        ck.fail(f"{key}.kind", f"unknown control kind {kind!r} (one of {', '.join(CONTROL_KINDS)})")
    cid = ck.text(c, key, "control_id")
    if not _SLUG.match(cid):
        ck.fail(f"{key}.control_id", f"{cid!r} is not a lower-case slug")
    column, columns = _control_columns(ck, key, c, kind, table)
    param, params = _control_params(ck, key, c, kind)
    lo = hi = step = None
    if kind == "slider":
        lo = ck.number(c, key, "min")
        hi = ck.number(c, key, "max")
        step = ck.number(c, key, "step")
        if not lo < hi or step <= 0:
            ck.fail(f"{key}", "a slider needs min < max and step > 0")
    impl = ck.opt_text(c, key, "impl") or ""
    if impl and impl not in IMPLS[kind]:
        ck.fail(f"{key}.impl", f"unknown {kind} implementation {impl!r} (one of {', '.join(IMPLS[kind])})")
    return Control(
        control_id=cid,
        kind=kind,
        label=ck.text(c, key, "label"),
        column=column,
        param=param,
        params=params,
        columns=tuple(columns),
        min=lo,
        max=hi,
        step=step,
        impl=impl,
    )


def _page(ck: _Check, i: int, p: object, tables: dict[str, Table]) -> Page:
    key = f"pages[{i}]"
    name = ck.text(p, key, "page")
    if not _SLUG.match(name) or name in RESERVED_IDS:
        ck.fail(f"{key}.page", f"{name!r} is not a usable page slug")
    tname = ck.text(p, key, "table")
    if tname not in tables:
        ck.fail(f"{key}.table", f"table {tname!r} is missing from tables")
    raw = ck.items(p, key, "controls")
    controls = tuple(_control(ck, f"{key}.controls[{j}]", c, tables[tname]) for j, c in enumerate(raw))
    seen: set[str] = set()
    for j, c in enumerate(controls):
        for q in c.query_params:
            if q in seen:
                ck.fail(f"{key}.controls[{j}]", f"query parameter {q!r} is used twice on page {name!r}")
            if q in (PAGE_PARAM, SUGGEST_PARAM):
                ck.fail(f"{key}.controls[{j}]", f"query parameter {q!r} is reserved for the list page")
            seen.add(q)
    return Page(page=name, title=ck.text(p, key, "title"), table=tname, controls=controls)


def _theme(ck: _Check, th: object) -> Theme:
    """Colours, font, layout and (for a world site) navigation, pagination and furniture."""
    layout = ck.text(th, "theme", "layout")
    if layout not in LAYOUTS:
        ck.fail("theme.layout", f"unknown layout {layout!r} (one of {', '.join(LAYOUTS)})")
    colours: dict[str, str] = {}
    for k, default in (("accent", None), ("background", None), ("panel", "#ffffff"), ("text", "#1f2328")):
        v = ck.opt_text(th, "theme", k, required=default is None) or default or ""
        if not _COLOUR.match(v):
            ck.fail(f"theme.{k}", f"{v!r} is not a #rgb / #rrggbb colour")
        colours[k] = v
    font = ck.opt_text(th, "theme", "font") or "DejaVu Sans"
    if not re.match(r"^[A-Za-z0-9 ]+$", font):
        ck.fail("theme.font", f"{font!r} is not a plain font family name")
    pagination = _choice(ck, th, "theme", "pagination", PAGINATIONS)
    page_size = ck.opt_int(th, "theme", "page_size", required=pagination != "none") or 0
    if pagination != "none" and not 5 <= page_size <= 100:
        ck.fail("theme.page_size", f"{page_size} is not 5..100")
    radius = ck.opt_int(th, "theme", "radius")
    return Theme(
        layout=layout,
        font=font,
        nav=_choice(ck, th, "theme", "nav", NAVS),
        pagination=pagination,
        page_size=page_size,
        banner=_choice(ck, th, "theme", "banner", BANNERS),
        hero=ck.opt_text(th, "theme", "hero") or "",
        tagline=ck.opt_text(th, "theme", "tagline") or "",
        radius=6 if radius is None else radius,
        tabs=ck.flag(th, "theme", "tabs"),
        home=_choice(ck, th, "theme", "home", HOMES),
        filters=_choice(ck, th, "theme", "filters", FILTER_FORMS),
        row_actions=ck.flag(th, "theme", "row_actions"),
        **colours,
    )


def parse_spec(raw: object, path: Path) -> Spec:
    """Validate a spec's JSON object; the first problem is an InputError naming `path` and the key."""
    ck = _Check(path)
    site = ck.text(raw, "", "site")
    if not _SLUG.match(site):
        ck.fail("site", f"{site!r} is not a lower-case slug")
    today = ck.text(raw, "", "today")
    if not is_date(today):
        ck.fail("today", f"{today!r} is not a date YYYY-MM-DD")
    theme = _theme(ck, ck.mapping(raw, "", "theme"))
    raw_tables = ck.mapping(raw, "", "tables")
    tables = {n: _table(ck, n, t) for n, t in raw_tables.items()}
    raw_pages = ck.items(raw, "", "pages")
    if not raw_pages:
        ck.fail("pages", "at least one list page")
    pages = tuple(_page(ck, i, p, tables) for i, p in enumerate(raw_pages))
    if len({p.page for p in pages}) != len(pages):
        ck.fail("pages", "duplicate page slug")
    cids = [c.control_id for p in pages for c in p.controls]
    if len(set(cids)) != len(cids):
        ck.fail("pages", "duplicate control_id")
    return Spec(
        site=site,
        name=ck.text(raw, "", "name"),
        today=today,
        theme=theme,
        tables=tables,
        pages=pages,
        raw=dict(raw) if isinstance(raw, dict) else {},
        domain=ck.opt_text(raw, "", "domain") or "",
    )


def load_spec(path: str | Path) -> Spec:
    """Read and validate one `site.json`; its `site` must match its folder's name."""
    p = Path(path)
    spec = parse_spec(read_json(p), p)
    if spec.site != p.parent.name:
        raise InputError(f"{p}: site: {spec.site!r} differs from its folder name {p.parent.name!r}")
    return spec


def load_sites(sites_dir: str | Path) -> dict[str, Spec]:
    """Every `<dir>/<site>/site.json`, validated, by site name (sorted)."""
    d = Path(sites_dir)
    if not d.is_dir():
        raise InputError(f"{d}: sites directory not found")
    specs = {p.parent.name: load_spec(p) for p in sorted(d.glob("*/site.json"))}
    if not specs:
        raise InputError(f"{d}: no <site>/site.json found")
    return specs


def read_split(path: str | Path) -> dict[str, list[str]]:
    """A `site_split.json` as it is written: `{"train": [...], "test": [...]}`, each a list of site names (the
    one reader of the file; `load_split` also checks the names against the site folders)."""
    split = read_json(path)
    if not isinstance(split, dict):
        raise InputError(f"{path}: expected an object with 'train' and 'test'")
    out: dict[str, list[str]] = {}
    for key in ("train", "test"):
        names = split.get(key)
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise InputError(f"{path}: key {key!r} must be a list of site names")
        out[key] = names
    return out


def load_split(sites_dir: str | Path) -> dict[str, list[str]]:
    """`site_split.json`: `{"train": [...], "test": [...]}`, disjoint lists of existing site folders."""
    d = Path(sites_dir)
    p = d / "site_split.json"
    ck = _Check(p)
    out: dict[str, list[str]] = {}
    for k, names in read_split(p).items():
        for n in names:
            if not (d / n / "site.json").is_file():
                ck.fail(k, f"{n!r} is not a site folder with a site.json")
        out[k] = sorted(names)
    both = set(out["train"]) & set(out["test"])
    if both:
        ck.fail("test", f"sites in both train and test: {sorted(both)}")
    return out


def site_name(sites_dir: str | Path, site: str) -> str:
    """The site's display name: the first line of doc/README.md, `# Name (domain)` -> `Name`; else `site`."""
    try:
        first = (Path(sites_dir) / site / "doc" / "README.md").read_text(encoding="utf-8").split("\n")[0]
    except OSError:
        return site
    return first.lstrip("# ").split("(")[0].strip() or site
