"""Site specs: load and validate `data/sites/<site>/site.json` into typed, read-only objects.

The spec is the source of truth for a site (its data, pages, controls and theme); the renderer, the server and
the pool's task generator all read it through here. A broken spec is an `InputError` naming the file and key.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from plandvc.io import InputError, read_json

COLUMN_TYPES = ("id", "text", "enum", "number", "date")
CONTROL_KINDS = ("dropdown", "options", "slider", "date_range", "sort", "search")
LAYOUTS = ("sidebar", "topnav", "cards")
MIN_ROWS = 15
RESERVED_IDS = ("new", "edit")
_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
_SLUG = re.compile(r"^[a-z][a-z0-9-]*$")
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
_COLOUR = re.compile(r"^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$")


@dataclass(frozen=True)
class Column:
    """A table column: `type` is one of COLUMN_TYPES; `values` the options of an enum."""

    name: str
    label: str
    type: str
    values: tuple[str, ...] = ()
    prefix: str = ""
    suffix: str = ""
    decimals: int = 0


@dataclass(frozen=True)
class Table:
    """A table of fixed rows; `key` names the id column, `label` the column shown as the entry's link."""

    name: str
    title: str
    singular: str
    key: str
    label: str
    columns: tuple[Column, ...]
    rows: tuple[dict[str, Any], ...]
    create: tuple[str, ...] = ()
    edit: tuple[str, ...] = ()
    copy: str | None = None

    def column(self, name: str) -> Column:
        for c in self.columns:
            if c.name == name:
                return c
        raise KeyError(name)

    @property
    def column_names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.columns)


@dataclass(frozen=True)
class Control:
    """A list-page control (a GET form); `query_params` are the URL parameters it owns."""

    control_id: str
    kind: str
    label: str
    column: str | None = None
    param: str | None = None
    params: tuple[str, ...] = ()
    columns: tuple[str, ...] = ()
    min: float | None = None
    max: float | None = None
    step: float | None = None

    @property
    def query_params(self) -> tuple[str, ...]:
        return self.params if self.kind in ("date_range", "sort") else (str(self.param),)


@dataclass(frozen=True)
class Page:
    """A list page of one table, at `/sites/<site>/<page>`."""

    page: str
    title: str
    table: str
    controls: tuple[Control, ...]

    def control(self, control_id: str) -> Control:
        for c in self.controls:
            if c.control_id == control_id:
                return c
        raise KeyError(control_id)


@dataclass(frozen=True)
class Theme:
    layout: str
    accent: str
    background: str
    font: str = "DejaVu Sans"
    panel: str = "#ffffff"
    text: str = "#1f2328"


@dataclass(frozen=True)
class Spec:
    """One site: its tables, list pages, theme and fixed clock (`today`, ISO date)."""

    site: str
    name: str
    today: str
    theme: Theme
    tables: dict[str, Table]
    pages: tuple[Page, ...]
    raw: dict[str, Any] = field(repr=False, compare=False)

    def page(self, name: str) -> Page | None:
        for p in self.pages:
            if p.page == name:
                return p
        return None

    def table_of(self, page: Page) -> Table:
        return self.tables[page.table]

    @property
    def controls(self) -> tuple[tuple[Page, Control], ...]:
        return tuple((p, c) for p in self.pages for c in p.controls)


# ── validation ───────────────────────────────────────────────────────────────


class _Check:
    """Raises InputError `<file>: <key>: <message>`."""

    def __init__(self, path: Path):
        self.path = path

    def fail(self, key: str, msg: str) -> None:
        raise InputError(f"{self.path}: {key}: {msg}")

    def get(self, obj: Any, key: str, name: str, kind: type | tuple[type, ...], required: bool = True) -> Any:
        if not isinstance(obj, dict):
            self.fail(key, "expected an object")
        if name not in obj:
            if required:
                self.fail(f"{key}.{name}" if key else name, "missing")
            return None
        v = obj[name]
        if not isinstance(v, kind) or (isinstance(v, bool) and bool not in _as_tuple(kind)):
            self.fail(
                f"{key}.{name}" if key else name, f"expected {_kind_name(kind)}, got {type(v).__name__}"
            )
        return v


def _as_tuple(kind: type | tuple[type, ...]) -> tuple[type, ...]:
    return kind if isinstance(kind, tuple) else (kind,)


def _kind_name(kind: type | tuple[type, ...]) -> str:
    return " or ".join(k.__name__ for k in _as_tuple(kind))


def is_date(v: Any) -> bool:
    """An ISO date `YYYY-MM-DD`."""
    if not isinstance(v, str) or len(v) != 10:
        return False
    try:
        dt.date.fromisoformat(v)
    except ValueError:
        return False
    return True


def _column(ck: _Check, key: str, c: Any) -> Column:
    name = ck.get(c, key, "name", str)
    if not _NAME.match(name):
        ck.fail(f"{key}.name", f"{name!r} is not a lower-case identifier")
    ctype = ck.get(c, key, "type", str)
    if ctype not in COLUMN_TYPES:
        ck.fail(f"{key}.type", f"unknown column type {ctype!r} (one of {', '.join(COLUMN_TYPES)})")
    values = ck.get(c, key, "values", list, required=ctype == "enum") or []
    if ctype == "enum" and (
        len(values) < 2
        or not all(isinstance(v, str) and v for v in values)
        or len(set(values)) != len(values)
    ):
        ck.fail(f"{key}.values", "an enum needs at least 2 distinct non-empty strings")
    decimals = ck.get(c, key, "decimals", int, required=False) or 0
    if not 0 <= decimals <= 4:
        ck.fail(f"{key}.decimals", "must be 0..4")
    return Column(
        name=name,
        label=ck.get(c, key, "label", str),
        type=ctype,
        values=tuple(values),
        prefix=ck.get(c, key, "prefix", str, required=False) or "",
        suffix=ck.get(c, key, "suffix", str, required=False) or "",
        decimals=decimals,
    )


def check_value(col: Column, v: Any) -> str | None:
    """Why `v` is not a valid stored value of `col`, or None."""
    if col.type in ("id", "text") and not (isinstance(v, str) and v.strip()):
        return "expected a non-empty string"
    if col.type == "id" and not _ID.match(v):
        return f"{v!r} is not a URL-safe id"
    if col.type == "enum" and v not in col.values:
        return f"{v!r} is not one of {list(col.values)}"
    if col.type == "number" and (isinstance(v, bool) or not isinstance(v, int | float)):
        return "expected a number"
    if col.type == "date" and not is_date(v):
        return f"{v!r} is not a date YYYY-MM-DD"
    return None


def _table(ck: _Check, tname: str, t: Any) -> Table:
    key = f"tables.{tname}"
    if not _NAME.match(tname):
        ck.fail(key, "table names are lower-case identifiers")
    cols = ck.get(t, key, "columns", list)
    columns = tuple(_column(ck, f"{key}.columns[{i}]", c) for i, c in enumerate(cols))
    names = [c.name for c in columns]
    if len(set(names)) != len(names):
        ck.fail(f"{key}.columns", "duplicate column name")
    by_name = {c.name: c for c in columns}

    def col_ref(sub: str, name: Any) -> str:
        if name not in by_name:
            ck.fail(f"{key}.{sub}", f"column {name!r} is missing from {key}.columns")
        return name

    tkey = col_ref("key", ck.get(t, key, "key", str))
    if by_name[tkey].type != "id":
        ck.fail(f"{key}.key", f"column {tkey!r} must have type 'id'")
    label = col_ref("label", ck.get(t, key, "label", str))
    rows = ck.get(t, key, "rows", list)
    if len(rows) < MIN_ROWS:
        ck.fail(f"{key}.rows", f"{len(rows)} rows, a list page needs at least {MIN_ROWS}")
    ids: set[str] = set()
    labels: set[Any] = set()
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
        ids.add(r[tkey])
        labels.add(r[label])
    create = ck.get(t, key, "create", list, required=False) or []
    edit = ck.get(t, key, "edit", list, required=False) or []
    for sub, fields in (("create", create), ("edit", edit)):
        for f in fields:
            if col_ref(sub, f) == tkey:
                ck.fail(f"{key}.{sub}", "the id column is assigned by the server")
    copy = ck.get(t, key, "copy", str, required=False)
    if copy is not None:
        col_ref("copy", copy)
    return Table(
        name=tname,
        title=ck.get(t, key, "title", str),
        singular=ck.get(t, key, "singular", str),
        key=tkey,
        label=label,
        columns=columns,
        rows=tuple(dict(r) for r in rows),
        create=tuple(create),
        edit=tuple(edit),
        copy=copy,
    )


def _control(ck: _Check, key: str, c: Any, table: Table) -> Control:
    kind = ck.get(c, key, "kind", str)
    if kind not in CONTROL_KINDS:
        ck.fail(f"{key}.kind", f"unknown control kind {kind!r} (one of {', '.join(CONTROL_KINDS)})")
    cid = ck.get(c, key, "control_id", str)
    if not _SLUG.match(cid):
        ck.fail(f"{key}.control_id", f"{cid!r} is not a lower-case slug")
    want_type = {"dropdown": ("enum",), "options": ("enum",), "slider": ("number",), "date_range": ("date",)}
    column = None
    if kind in want_type:
        column = ck.get(c, key, "column", str)
        if column not in table.column_names:
            ck.fail(f"{key}.column", f"column {column!r} is missing from table {table.name!r}")
        if table.column(column).type not in want_type[kind]:
            ck.fail(
                f"{key}.column", f"a {kind} needs a {'/'.join(want_type[kind])} column, {column!r} is not"
            )
    columns: list[str] = []
    if kind in ("sort", "search"):
        columns = ck.get(c, key, "columns", list)
        if not columns:
            ck.fail(f"{key}.columns", "at least one column")
        for name in columns:
            if name not in table.column_names:
                ck.fail(f"{key}.columns", f"column {name!r} is missing from table {table.name!r}")
            if kind == "search" and table.column(name).type not in ("id", "text", "enum"):
                ck.fail(f"{key}.columns", f"search reads text columns, {name!r} is not")
    param, params = None, tuple[Any, ...]()
    if kind in ("date_range", "sort"):
        params = tuple(ck.get(c, key, "params", list))
        if len(params) != 2 or not all(isinstance(p, str) and _NAME.match(p) for p in params):
            ck.fail(f"{key}.params", "two distinct parameter names")
        if params[0] == params[1]:
            ck.fail(f"{key}.params", "two distinct parameter names")
    else:
        param = ck.get(c, key, "param", str)
        if not _NAME.match(param):
            ck.fail(f"{key}.param", f"{param!r} is not a parameter name")
    lo = hi = step = None
    if kind == "slider":
        lo = ck.get(c, key, "min", (int, float))
        hi = ck.get(c, key, "max", (int, float))
        step = ck.get(c, key, "step", (int, float))
        if not lo < hi or step <= 0:
            ck.fail(f"{key}", "a slider needs min < max and step > 0")
    return Control(
        control_id=cid,
        kind=kind,
        label=ck.get(c, key, "label", str),
        column=column,
        param=param,
        params=params,
        columns=tuple(columns),
        min=lo,
        max=hi,
        step=step,
    )


def _page(ck: _Check, i: int, p: Any, tables: dict[str, Table]) -> Page:
    key = f"pages[{i}]"
    name = ck.get(p, key, "page", str)
    if not _SLUG.match(name) or name in RESERVED_IDS:
        ck.fail(f"{key}.page", f"{name!r} is not a usable page slug")
    tname = ck.get(p, key, "table", str)
    if tname not in tables:
        ck.fail(f"{key}.table", f"table {tname!r} is missing from tables")
    raw = ck.get(p, key, "controls", list)
    controls = tuple(_control(ck, f"{key}.controls[{j}]", c, tables[tname]) for j, c in enumerate(raw))
    seen: set[str] = set()
    for j, c in enumerate(controls):
        for q in c.query_params:
            if q in seen:
                ck.fail(f"{key}.controls[{j}]", f"query parameter {q!r} is used twice on page {name!r}")
            seen.add(q)
    return Page(page=name, title=ck.get(p, key, "title", str), table=tname, controls=controls)


def parse_spec(raw: Any, path: Path) -> Spec:
    """Validate a spec's JSON object; the first problem is an InputError naming `path` and the key."""
    ck = _Check(path)
    site = ck.get(raw, "", "site", str)
    if not _SLUG.match(site):
        ck.fail("site", f"{site!r} is not a lower-case slug")
    today = ck.get(raw, "", "today", str)
    if not is_date(today):
        ck.fail("today", f"{today!r} is not a date YYYY-MM-DD")
    th = ck.get(raw, "", "theme", dict)
    layout = ck.get(th, "theme", "layout", str)
    if layout not in LAYOUTS:
        ck.fail("theme.layout", f"unknown layout {layout!r} (one of {', '.join(LAYOUTS)})")
    colours: dict[str, str] = {}
    for k, default in (("accent", None), ("background", None), ("panel", "#ffffff"), ("text", "#1f2328")):
        v: str = ck.get(th, "theme", k, str, required=default is None) or default or ""
        if not _COLOUR.match(v):
            ck.fail(f"theme.{k}", f"{v!r} is not a #rgb / #rrggbb colour")
        colours[k] = v
    font = ck.get(th, "theme", "font", str, required=False) or "DejaVu Sans"
    if not re.match(r"^[A-Za-z0-9 ]+$", font):
        ck.fail("theme.font", f"{font!r} is not a plain font family name")
    raw_tables = ck.get(raw, "", "tables", dict)
    tables = {n: _table(ck, n, t) for n, t in raw_tables.items()}
    raw_pages = ck.get(raw, "", "pages", list)
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
        name=ck.get(raw, "", "name", str),
        today=today,
        theme=Theme(layout=layout, font=font, **colours),
        tables=tables,
        pages=pages,
        raw=raw,
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
