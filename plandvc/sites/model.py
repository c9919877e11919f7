"""The typed records of a site spec (`site.json`): columns, tables, list-page controls, pages, theme.

`plandvc.sites.spec` builds them from JSON (and re-exports them); the renderer, the server and the pool's task
generator read them. The world's pieces (layout families, navigation, control implementations, pagination) are
plain fields with defaults that mean "the original hand-written sites", so an older spec reads as before.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, TypeVar

COLUMN_TYPES = ("id", "text", "enum", "number", "date")
CONTROL_KINDS = ("dropdown", "options", "slider", "date_range", "sort", "search")
# the original sites' layouts (a nav position over one page structure) ...
CLASSIC_LAYOUTS = ("sidebar", "topnav", "cards")
# ... and the generated world's layout families, which differ in the list page's DOM structure
FAMILIES = ("datatable", "cardgrid", "facets", "splitview", "dashboard")
LAYOUTS = CLASSIC_LAYOUTS + FAMILIES
NAVS = ("topbar", "sidebar", "drawer", "menu")
PAGINATIONS = ("none", "numbered", "nextprev", "loadmore")
BANNERS = ("none", "cookie", "newsletter")
FORMS = ("page", "modal", "wizard")
# the world's furniture v3 (make-sites --furniture v3): the home page's structure and how a list's filters apply;
# the first of each is today's (v2), which a spec without the key means
HOMES = ("classic", "portal", "search", "dashboard", "magazine")
FILTER_FORMS = ("each", "facets", "form", "change")
FACET_KINDS = ("dropdown", "options")  # the controls a facet sidebar draws as links with counts
FORM_KINDS = ("dropdown", "options", "slider", "date_range")  # the controls of a list's one filter form
DISPLAYS = ("plain", "stars", "badge")
# each control kind's implementations; the first is the original sites' (and the default)
IMPLS: dict[str, tuple[str, ...]] = {
    "dropdown": ("select", "listbox"),
    "options": ("checkboxes", "chips", "radios"),
    "slider": ("range", "numbers"),
    "date_range": ("inputs", "calendar"),
    "sort": ("select", "headers"),
    "search": ("form", "autocomplete"),
}
PAGE_PARAM = "page"  # the pagination parameter of a list page (never a control's)
SUGGEST_PARAM = (
    "sugg"  # set to "1" when a search was run by choosing an autocomplete suggestion (never a control's)
)
TAB_PARAM = "tab"  # the tab an entry's page shows (world sites with tabs)
MIN_ROWS = 15
RESERVED_IDS = ("new", "edit")
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


T = TypeVar("T")


def named(items: Iterable[T], attr: str, name: str) -> T:
    """The first of `items` whose `attr` is `name` (a table's column, a page's control); KeyError(name) when
    none is."""
    for x in items:
        if getattr(x, attr) == name:
            return x
    raise KeyError(name)


@dataclass(frozen=True)
class Column:
    """A table column: `type` is one of COLUMN_TYPES; `values` the options of an enum; `display` how a
    card or result shows it (stars for a rating, a badge for a status)."""

    name: str
    label: str
    type: str
    values: tuple[str, ...] = ()
    prefix: str = ""
    suffix: str = ""
    decimals: int = 0
    display: str = "plain"


@dataclass(frozen=True)
class Table:
    """A table of fixed rows; `key` names the id column, `label` the column shown as the entry's link; `form`
    how its create and edit forms are shown (a page, a modal dialog or a multi-step wizard)."""

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
    form: str = "page"
    text: str | None = None  # a longer description column, shown on cards and results
    delete: bool = (
        False  # its entries can be deleted (a button and a confirmation dialog on the entry's page)
    )

    def column(self, name: str) -> Column:
        return named(self.columns, "name", name)

    @property
    def column_names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.columns)


@dataclass(frozen=True)
class Control:
    """A list-page control (a GET form); `query_params` are the URL parameters it owns; `impl` which of its
    kind's implementations the page draws (IMPLS)."""

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
    impl: str = ""

    @property
    def implementation(self) -> str:
        return self.impl or IMPLS[self.kind][0]

    @property
    def min_param(self) -> str | None:
        """The lower-bound parameter of a slider drawn as min–max number fields (`<param>_min`)."""
        return f"{self.param}_min" if self.kind == "slider" and self.impl == "numbers" else None

    @property
    def multiple(self) -> bool:
        """Whether the control can hold several values at once (options drawn as radios hold one)."""
        return self.kind == "options" and self.implementation != "radios"

    @property
    def query_params(self) -> tuple[str, ...]:
        if self.kind in ("date_range", "sort"):
            return self.params
        lo = self.min_param
        return (str(self.param), lo) if lo else (str(self.param),)


@dataclass(frozen=True)
class Page:
    """A list page of one table, at `/sites/<site>/<page>`."""

    page: str
    title: str
    table: str
    controls: tuple[Control, ...]

    def control(self, control_id: str) -> Control:
        return named(self.controls, "control_id", control_id)


@dataclass(frozen=True)
class Theme:
    """Colours and font, the layout (a classic layout or a world family) and the page furniture."""

    layout: str
    accent: str
    background: str
    font: str = "DejaVu Sans"
    panel: str = "#ffffff"
    text: str = "#1f2328"
    nav: str = "topbar"
    pagination: str = "none"
    page_size: int = 0
    banner: str = "none"
    hero: str = ""  # the home page's banner headline; empty: no hero
    tagline: str = ""
    radius: int = 6
    tabs: bool = False  # an entry's page shows its sections as tabs (ENTRY_TABS), one per `?tab=`
    home: str = "classic"  # the home page's structure (HOMES)
    filters: str = "each"  # a list's filters: one Apply each, facets, one form's Apply, on change
    row_actions: bool = False  # each row of a list has Edit and Delete (tables that have them)

    @property
    def furnished(self) -> bool:
        """Whether the site has any of the v3 furniture (plandvc.world.furniture); a v2 site renders as before."""
        return self.home != "classic" or self.filters != "each" or self.row_actions

    @property
    def family(self) -> str | None:
        """The world layout family, or None for a classic site (drawn by the original templates)."""
        return self.layout if self.layout in FAMILIES else None


# the tabs of an entry's page on a site with tabs: (tab parameter value, label); the first is shown without one
ENTRY_TABS: tuple[tuple[str, str], ...] = (
    ("overview", "Overview"),
    ("details", "Details"),
    ("related", "Related"),
)


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
    domain: str = ""

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


def is_date(v: object) -> bool:
    """An ISO date `YYYY-MM-DD`."""
    if not isinstance(v, str) or len(v) != 10:
        return False
    try:
        dt.date.fromisoformat(v)
    except ValueError:
        return False
    return True


def check_value(col: Column, v: object) -> str | None:
    """Why `v` is not a valid stored value of `col`, or None."""
    if col.type in ("id", "text") and not (isinstance(v, str) and v.strip()):
        return "expected a non-empty string"
    if col.type == "id" and not (isinstance(v, str) and _ID.match(v)):
        return f"{v!r} is not a URL-safe id"
    if col.type == "enum" and v not in col.values:
        return f"{v!r} is not one of {list(col.values)}"
    if col.type == "number" and (isinstance(v, bool) or not isinstance(v, int | float)):
        return "expected a number"
    if col.type == "date" and not is_date(v):
        return f"{v!r} is not a date YYYY-MM-DD"
    return None
