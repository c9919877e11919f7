"""Pages of the generated world's sites: the five layout families, navigation variants, widgets and furniture.

`Renderer` hands a site whose theme names a layout family (`Theme.family`) to `WorldPages`; the original sites
keep their own templates byte for byte. The views here are plain dicts for the `templates/world/` templates;
the HTML stays a function of (spec, page, rows, query, page number): no clocks, no session ids.
"""

from __future__ import annotations

import math
import re
from typing import Any
from urllib.parse import quote, urlencode

from jinja2 import Environment

from plandvc.sites.art import format_value, picture, plain_number, stars, tone
from plandvc.sites.controls import control_view
from plandvc.sites.model import (
    ENTRY_TABS,
    FACET_KINDS,
    FORM_KINDS,
    PAGE_PARAM,
    TAB_PARAM,
    Control,
    Page,
    Spec,
    Table,
)
from plandvc.sites.query import ListQuery, select_rows

View = dict[str, Any]


def href_of(path: str, pairs: list[tuple[str, str]]) -> str:
    """`path?pairs` (just `path` without pairs), encoded as a form would."""
    return f"{path}?{urlencode(pairs)}" if pairs else path


class WorldPages:
    """Builds and renders the world templates' views for one `Environment`."""

    def __init__(self, env: Environment):
        self.env = env

    # ── shared pieces ────────────────────────────────────────────────────────────────────────────────

    def base(self, spec: Spec, current: str | None, title: str, crumbs: list[tuple[str, str]]) -> View:
        root = f"/sites/{spec.site}"
        search = next(((p, c) for p, c in spec.controls if c.kind == "search"), None)
        return {
            "site": spec, "theme": spec.theme, "root": root, "title": title, "current": current,
            "nav": [{"page": p.page, "title": p.title, "href": f"{root}/{p.page}"} for p in spec.pages],
            "crumbs": [{"text": t, "href": h} for t, h in crumbs],
            "header_search": {"action": f"{root}/{search[0].page}", "name": search[1].param,
                              "placeholder": f"Search {search[0].title.lower()}"} if search else None,
        }  # fmt: skip

    def entry(self, spec: Spec, page: Page, row: dict[str, Any], width: int = 320, height: int = 180) -> View:
        """One entry as cards, results and the master list show it: link, picture, blurb, facts, badges."""
        table = spec.table_of(page)
        path = f"/sites/{spec.site}/{page.page}"
        facts, badges, rating = [], [], None
        for c in table.columns:
            if c.name in (table.key, table.label, table.text):
                continue
            if c.display == "stars" and rating is None:
                rating = {
                    "stars": stars(float(row[c.name])),
                    "text": format_value(c, row[c.name]),
                    "label": c.label,
                }
            elif c.display == "badge":
                badges.append({"text": str(row[c.name]), "tone": tone(str(row[c.name]), c.values)})
            else:
                facts.append({"label": c.label, "text": format_value(c, row[c.name]), "type": c.type})
        label = str(row[table.label])
        return {
            "href": f"{path}/{quote(str(row[table.key]), safe='')}", "label": label, "id": str(row[table.key]),
            "picture": picture(label, width, height), "thumb": picture(label, 72, 72),
            "text": str(row[table.text]) if table.text else "", "facts": facts[:4], "badges": badges,
            "rating": rating,
        }  # fmt: skip

    # ── pages ────────────────────────────────────────────────────────────────────────────────────────

    def home(self, spec: Spec, counts: dict[str, int]) -> str:
        ctx = self.base(spec, None, spec.name, [])
        sections = [
            {"page": p.page, "title": p.title, "href": f"/sites/{spec.site}/{p.page}", "count": counts[p.page],
             "plural": spec.table_of(p).title.lower(), "picture": picture(p.title, 400, 110)}
            for p in spec.pages
        ]  # fmt: skip
        first = spec.pages[0]
        featured = [self.entry(spec, first, r) for r in spec.table_of(first).rows[:4]]
        second = spec.pages[-1]
        recent = [self.entry(spec, second, r) for r in spec.table_of(second).rows[:5]]
        if spec.theme.home != "classic":
            return self.home_v3(spec, ctx, sections, featured, recent)
        return self.env.get_template("world/home.html").render(
            **ctx, sections=sections, featured=featured, featured_page=first, recent=recent, recent_page=second,
            hero_picture=picture(spec.name + " hero", 1200, 260, spec.theme.hero, initials=False),
        )  # fmt: skip

    def home_v3(
        self, spec: Spec, ctx: View, sections: list[View], featured: list[View], recent: list[View]
    ) -> str:
        """A v3 home page in its structure (`theme.home`: portal, search, dashboard or magazine): each keeps the
        header's navigation and search box and links every list page (`data-card`), as the classic one does."""
        for s, p in zip(sections, spec.pages, strict=True):
            t = spec.table_of(p)
            s.update(entries=[self.entry(spec, p, r, 64, 64) for r in t.rows[:5]], singular=t.singular,
                     new=f"/sites/{spec.site}/{p.page}/new" if t.create else "")  # fmt: skip
        tries: list[View] = []
        search = ctx["header_search"]
        for e in featured:
            word = next((w for w in re.findall(r"[A-Za-z][A-Za-z'-]{3,}", e["label"])), None)
            if search and word and word not in [t["text"] for t in tries]:
                tries.append({"text": word, "href": href_of(search["action"], [(search["name"], word)])})
        return self.env.get_template(f"world/home_{spec.theme.home}.html").render(
            **ctx, sections=sections, featured=featured, featured_page=spec.pages[0], recent=recent,
            recent_page=spec.pages[-1], lead={**featured[0], "picture": picture(featured[0]["label"], 760, 300)},
            tries=tries[:3],
        )  # fmt: skip

    def list_page(
        self,
        spec: Spec,
        page: Page,
        rows: list[dict[str, Any]],
        q: ListQuery,
        number: int = 1,
        every: list[dict[str, Any]] | None = None,
    ) -> str:
        """A list page of the rows `q` selects; `every` is the table as the session sees it (a v3 facet
        sidebar counts its values there; the spec's rows when not given)."""
        table = spec.table_of(page)
        path = f"/sites/{spec.site}/{page.page}"
        ctx = self.base(spec, page.page, page.title, [("Home", ctx_root(spec)), (page.title, "")])
        shown, pager = self.paginate(spec, path, rows, q, number)
        view = self.listing(spec, page, table, path, shown, q)
        if spec.theme.furnished:
            view.update(
                self.furniture(spec, page, table, path, q, list(table.rows) if every is None else every)
            )
            self.add_row_actions(spec, page, table, view)
        return self.env.get_template("world/list3.html" if spec.theme.furnished else "world/list.html").render(
            **ctx, **view, count=len(rows), pager=pager,
            kpis=key_figures(page, table, rows),
            filtered=bool(q.pairs), create=self.form_view(spec, page, "create", None) if table.create else None,
        )  # fmt: skip

    def furniture(
        self, spec: Spec, page: Page, table: Table, path: str, q: ListQuery, every: list[dict[str, Any]]
    ) -> View:
        """A v3 list's filters: a facet sidebar (the dropdown's and options' values as links with the count of
        rows each selects under the other filters), or one filter form (one Apply, or applied on change) of the
        dropdown, options, slider and date range; the search and sort keep their own forms."""
        controls = {c.control_id: control_view(table, c, q, path, world=True) for c in page.controls}
        mode = spec.theme.filters
        grouped = FACET_KINDS if mode == "facets" else FORM_KINDS
        inside = [c for c in page.controls if c.kind in grouped]
        out: View = {"facets": [], "filter_form": None,
                     "side_controls": [controls[c.control_id] for c in page.controls if c.kind not in grouped]}  # fmt: skip
        if mode == "facets":
            out["facets"] = [facet_group(page, table, c, q, path, every) for c in inside]
        else:
            own = {p for c in inside for p in c.query_params}
            out["filter_form"] = {
                "id": f"{page.page}-filters", "auto": mode == "change",
                "controls": [controls[c.control_id] for c in inside],
                "hidden": [(k, v) for k, v in q.pairs if k not in own and v != ""],
            }  # fmt: skip
        return out

    def add_row_actions(self, spec: Spec, page: Page, table: Table, view: View) -> None:
        """Edit and Delete on each shown row (a table with an edit form; Delete where it deletes), and the
        confirmation dialog of each row's Delete."""
        view["has_actions"] = bool(spec.theme.row_actions and table.edit)
        view["delete_dialogs"] = []
        for r, e in zip(view["rows"], view["entries"], strict=True):
            acts = None
            if view["has_actions"]:
                did = f"{page.page}-delete-{e['id']}" if table.delete else ""
                acts = {"label": e["label"], "edit": f"{e['href']}/edit", "delete": did}
                if did:
                    view["delete_dialogs"].append(
                        {"id": did, "label": e["label"], "action": f"{e['href']}/delete"}
                    )
            r["actions"] = e["actions"] = acts

    def listing(
        self, spec: Spec, page: Page, table: Table, path: str, rows: list[dict[str, Any]], q: ListQuery
    ) -> View:
        """What every family's list shows: controls, columns (with sort links), rows and entries."""
        sort = next((c for c in page.controls if c.kind == "sort"), None)
        cols = [
            {"name": c.name, "label": c.label, "type": c.type,
             "sort": self.sort_link(c.name, c.label, sort, q, path) if sort and sort.implementation == "headers"
             and c.name in sort.columns else None}
            for c in table.columns if c.name != table.text
        ]  # fmt: skip
        body = [
            {"href": f"{path}/{quote(str(r[table.key]), safe='')}",
             "cells": [{"text": format_value(c, r[c.name]), "link": c.name == table.label, "type": c.type}
                       for c in table.columns if c.name != table.text]}
            for r in rows
        ]  # fmt: skip
        controls = [control_view(table, c, q, path, world=True) for c in page.controls]
        return {
            "page": page, "table": table, "path": path, "columns": cols, "rows": body,
            "entries": [self.entry(spec, page, r) for r in rows], "controls": controls,
            "sortlinks": [self.sort_link(n, table.column(n).label, sort, q, path) for n in sort.columns]
            if sort and sort.implementation == "headers" else [],
            "sort_id": sort.control_id if sort else "",
        }  # fmt: skip

    def paginate(
        self, spec: Spec, path: str, rows: list[dict[str, Any]], q: ListQuery, number: int
    ) -> tuple[list[dict[str, Any]], View | None]:
        """The rows of page `number` (load-more: pages 1..number) and the pager's links."""
        theme = spec.theme
        if theme.pagination == "none" or len(rows) <= theme.page_size:
            return rows, None
        pages = math.ceil(len(rows) / theme.page_size)
        number = min(max(number, 1), pages)
        keep = [(k, v) for k, v in q.pairs if v != ""]

        def link(n: int) -> str:
            return href_of(path, keep + ([(PAGE_PARAM, str(n))] if n > 1 else []))

        if theme.pagination == "loadmore":
            shown = rows[: number * theme.page_size]
            more = link(number + 1) if number < pages else None
            return shown, {"kind": "loadmore", "more": more, "shown": len(shown), "total": len(rows)}
        lo = (number - 1) * theme.page_size
        numbers = [{"n": n, "href": link(n), "current": n == number} for n in range(1, pages + 1)]
        return rows[lo : lo + theme.page_size], {
            "kind": theme.pagination, "number": number, "pages": pages, "numbers": numbers,
            "prev": link(number - 1) if number > 1 else None, "next": link(number + 1) if number < pages else None,
        }  # fmt: skip

    def sort_link(self, name: str, label: str, sort: Control | None, q: ListQuery, path: str) -> View:
        """A clickable sort header: sorts ascending, or descending when it already sorts ascending."""
        assert sort is not None
        by, direction = q.values.get(sort.control_id) or (None, None)
        want = "desc" if by == name and direction == "asc" else "asc"
        keep = [(k, v) for k, v in q.carried(sort)]
        arrow = ("▲" if direction == "asc" else "▼") if by == name else ""
        return {"href": href_of(path, [*keep, (sort.params[0], name), (sort.params[1], want)]), "label": label,
                "arrow": arrow, "id": sort.control_id, "column": name}  # fmt: skip

    def detail(
        self, spec: Spec, page: Page, row: dict[str, Any], rows: list[dict[str, Any]], tab: str = ""
    ) -> str:
        """An entry's page; `tab` the tab it shows (a site with tabs), `rows` the table as the session sees it."""
        table = spec.table_of(page)
        path = f"/sites/{spec.site}/{page.page}"
        heading = str(row[table.label])
        ctx = self.base(spec, page.page, f"{table.singular.capitalize()} {heading}",
                        [("Home", ctx_root(spec)), (page.title, path), (heading, "")])  # fmt: skip
        fields, copy, entry_href = entry_fields(page, table, row, path)
        master = [self.entry(spec, page, r, 64, 64) for r in rows] if spec.theme.family == "splitview" else []
        return self.env.get_template("world/detail.html").render(
            **ctx, page=page, table=table, path=path, fields=fields, copy=copy, entry_href=entry_href,
            heading=heading, item=self.entry(spec, page, row, 640, 260), master=master,
            edit=self.form_view(spec, page, "edit", row) if table.edit else None,
            delete={"id": f"{page.page}-delete", "action": f"{entry_href}/delete"} if table.delete else None,
            tabs=self.tabs(spec, page, row, rows, entry_href, tab) if spec.theme.tabs else None,
        )  # fmt: skip

    def tabs(
        self, spec: Spec, page: Page, row: dict[str, Any], rows: list[dict[str, Any]], href: str, tab: str
    ) -> View:
        """An entry page's tabs (links: the tab is the URL's `tab`) and what the shown one needs: a summary, or
        the related entries (those sharing the value of the page's first dropdown column, up to 4)."""
        table = spec.table_of(page)
        current = tab or ENTRY_TABS[0][0]
        items = [
            {
                "name": n,
                "label": lb,
                "current": n == current,
                "href": href if i == 0 else f"{href}?{TAB_PARAM}={n}",
            }
            for i, (n, lb) in enumerate(ENTRY_TABS)
        ]
        by = next((c.column for c in page.controls if c.kind == "dropdown"), None)
        related = [
            self.entry(spec, page, r, 64, 64)
            for r in rows
            if by and r[table.key] != row[table.key] and r[by] == row[by]
        ][:4]
        facts = [f"{c.label}: {format_value(c, row[c.name])}" for c in table.columns if c.name != table.key][
            :4
        ]
        return {"links": items, "current": current, "label": dict(ENTRY_TABS)[current], "related": related,
                "summary": "; ".join(facts) + "."}  # fmt: skip

    def form_view(self, spec: Spec, page: Page, kind: str, row: dict[str, Any] | None) -> View:
        """A create (`row` None) or edit form: its fields, action and how it is shown (page/modal/wizard)."""
        table = spec.table_of(page)
        path = f"/sites/{spec.site}/{page.page}"
        form_id = f"{page.page}-{kind}"
        fields = form_fields(table, kind, form_id, row)
        back = path if row is None else f"{path}/{quote(str(row[table.key]), safe='')}"
        steps = [fields[i : i + 2] for i in range(0, len(fields), 2)] if table.form == "wizard" else [fields]
        return {
            "kind": kind, "id": form_id, "fields": fields, "steps": steps, "style": table.form,
            "action": f"{path}/new" if row is None else f"{back}/edit", "back": back,
            "heading": f"New {table.singular}" if row is None else f"Edit {table.singular} {row[table.label]}",
            "button": f"Create {table.singular}" if row is None else f"Save {table.singular}",
        }  # fmt: skip

    def form(self, spec: Spec, page: Page, kind: str, row: dict[str, Any] | None) -> str:
        view = self.form_view(spec, page, kind, row)
        path = f"/sites/{spec.site}/{page.page}"
        ctx = self.base(spec, page.page, view["heading"], [("Home", ctx_root(spec)), (page.title, path),
                                                          (view["heading"], "")])  # fmt: skip
        return self.env.get_template("world/form.html").render(**ctx, page=page, form=view)

    def error(self, spec: Spec, status: int, reason: str, message: str) -> str:
        ctx = self.base(spec, None, "Error", [("Home", ctx_root(spec)), (reason, "")])
        return self.env.get_template("world/error.html").render(
            **ctx, status=status, reason=reason, message=message
        )


def entry_fields(
    page: Page, table: Table, row: dict[str, Any], path: str
) -> tuple[list[View], View | None, str]:
    """An entry page's shown fields, its copy button (the table's `copy` column, or None) and its own URL: the
    same on a classic and a world page."""
    fields = [{"label": c.label, "text": format_value(c, row[c.name]), "name": c.name} for c in table.columns]
    copy = None
    if table.copy:
        col = table.column(table.copy)
        copy = {"value": str(row[table.copy]), "label": col.label, "id": f"{page.page}-copy"}
    return fields, copy, f"{path}/{quote(str(row[table.key]), safe='')}"


def form_fields(table: Table, kind: str, form_id: str, row: dict[str, Any] | None) -> list[View]:
    """The fields of a create (`row` None) or edit form, each with its value: the same on a classic and a world
    page."""
    fields = []
    for n in table.create if kind == "create" else table.edit:
        col = table.column(n)
        value: Any = "" if row is None else row[n]
        fields.append(
            {"name": n, "label": col.label, "type": col.type, "id": f"{form_id}-{n}",
             "value": plain_number(value) if col.type == "number" and value != "" else str(value),
             "options": [{"value": o, "selected": o == value} for o in col.values]}
        )  # fmt: skip
    return fields


def facet_group(
    page: Page, table: Table, c: Control, q: ListQuery, path: str, every: list[dict[str, Any]]
) -> View:
    """One facet of a dropdown or options control: each value with the count of rows having it among those the
    page's other filters select (`select_rows` on the session's rows: for a dropdown or radios, the rows its
    link shows), and the link that sets it (an options control that holds several adds or removes the value;
    a dropdown or radios replace it, and the chosen value's link clears it)."""
    own = set(c.query_params)
    others = [(k, v) for k, v in q.pairs if k not in own and v != ""]
    chosen = q.values.get(c.control_id)
    chosen_set = set(chosen) if isinstance(chosen, list) else {chosen} if chosen else set()
    column = str(c.column)
    rest = select_rows(page, table, every, others)
    items = []
    for v in table.column(column).values:
        if c.multiple:
            now = [x for x in table.column(column).values if (x in chosen_set) != (x == v)]
        else:
            now = [] if v in chosen_set else [v]
        items.append({
            "value": v, "count": sum(1 for r in rest if r[column] == v), "selected": v in chosen_set,
            "href": href_of(path, others + [(str(c.param), x) for x in now]),
        })  # fmt: skip
    return {"id": c.control_id, "label": c.label, "choices": items}


def ctx_root(spec: Spec) -> str:
    return f"/sites/{spec.site}"


def key_figures(page: Page, table: Table, rows: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """A dashboard's figures over the rows a query selects: how many, the newest date, the median number."""
    figures = [(page.title, f"{len(rows):,}")]
    for c in page.controls:
        col = table.column(str(c.column)) if c.column else None
        if col is None or not rows:
            continue
        values = sorted(r[col.name] for r in rows)
        if c.kind == "date_range":
            figures.append((f"Latest {col.label.lower()}", str(values[-1])))
        elif c.kind == "slider":
            figures.append((f"Median {col.label.lower()}", format_value(col, values[len(values) // 2])))
    return figures[:3]
