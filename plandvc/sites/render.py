"""The one renderer: every page of every site through the same jinja2 templates (autoescaped).

Layout and theme come from the spec; the HTML is a function of (spec, page, rows, query) only — no session
ids, clocks or randomness — so a page renders byte-identically every time. This module builds small view
models (plain dicts) so the templates stay declarative.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import quote

from jinja2 import Environment, FileSystemLoader, StrictUndefined

from plandvc.sites.art import format_value
from plandvc.sites.controls import control_view
from plandvc.sites.query import ListQuery
from plandvc.sites.spec import Page, Spec
from plandvc.sites.world_render import WorldPages, entry_fields, form_fields

TEMPLATES = Path(__file__).parent / "templates"


class Renderer:
    """Renders the pages of a set of specs; templates are compiled once."""

    def __init__(self) -> None:
        self.env = Environment(
            loader=FileSystemLoader(TEMPLATES),
            autoescape=True,
            undefined=StrictUndefined,
            trim_blocks=True,
            lstrip_blocks=True,
            keep_trailing_newline=True,
        )
        self.env.filters["q"] = lambda s: quote(str(s), safe="")
        self.world = WorldPages(self.env)  # the generated world's sites (a theme with a layout family)

    def _base(self, spec: Spec, current: str | None, title: str) -> dict[str, Any]:
        root = f"/sites/{spec.site}"
        return {
            "site": spec,
            "theme": spec.theme,
            "root": root,
            "title": title,
            "current": current,
            "nav": [{"page": p.page, "title": p.title, "href": f"{root}/{p.page}"} for p in spec.pages],
        }

    def home(self, spec: Spec, counts: dict[str, int]) -> str:
        if spec.theme.family:
            return self.world.home(spec, counts)
        ctx = self._base(spec, None, spec.name)
        cards = []
        for p in spec.pages:
            t = spec.table_of(p)
            cards.append(
                {"page": p.page, "title": p.title, "href": f"/sites/{spec.site}/{p.page}",
                 "count": counts[p.page], "plural": t.title.lower()}
            )  # fmt: skip
        return self.env.get_template("home.html").render(**ctx, cards=cards)

    def list_page(
        self,
        spec: Spec,
        page: Page,
        rows: list[dict[str, Any]],
        q: ListQuery,
        number: int = 1,
        every: list[dict[str, Any]] | None = None,
    ) -> str:
        """A list page; `number` is the pagination's page (world sites only); `every` the table as the session
        sees it (a v3 facet sidebar's counts)."""
        if spec.theme.family:
            return self.world.list_page(spec, page, rows, q, number, every)
        table = spec.table_of(page)
        path = f"/sites/{spec.site}/{page.page}"
        ctx = self._base(spec, page.page, page.title)
        controls = [control_view(table, c, q, path, world=False) for c in page.controls]
        cols = [{"name": c.name, "label": c.label, "type": c.type} for c in table.columns]
        body = [
            {
                "href": f"{path}/{quote(str(r[table.key]), safe='')}",
                "cells": [
                    {"text": format_value(c, r[c.name]), "link": c.name == table.label, "type": c.type}
                    for c in table.columns
                ],
            }
            for r in rows
        ]
        return self.env.get_template("list.html").render(
            **ctx, page=page, table=table, path=path, controls=controls, columns=cols, rows=body,
            count=len(rows), filtered=bool(q.pairs),
        )  # fmt: skip

    def detail(
        self,
        spec: Spec,
        page: Page,
        row: dict[str, Any],
        rows: list[dict[str, Any]] | None = None,
        tab: str = "",
    ) -> str:
        """An entry's page; `rows` is the table a split view and the related tab show, `tab` the tab shown (world
        sites only)."""
        if spec.theme.family:
            return self.world.detail(spec, page, row, rows or [], tab)
        table = spec.table_of(page)
        path = f"/sites/{spec.site}/{page.page}"
        ctx = self._base(spec, page.page, f"{table.singular.capitalize()} {row[table.label]}")
        fields, copy, entry_href = entry_fields(page, table, row, path)
        return self.env.get_template("detail.html").render(
            **ctx, page=page, table=table, path=path, row=row, fields=fields, copy=copy, entry_href=entry_href,
            heading=f"{table.singular.capitalize()} {row[table.label]}",
        )  # fmt: skip

    def form(self, spec: Spec, page: Page, kind: str, row: dict[str, Any] | None) -> str:
        """The create (`row` None) or edit form of a page's table."""
        if spec.theme.family:
            return self.world.form(spec, page, kind, row)
        table = spec.table_of(page)
        path = f"/sites/{spec.site}/{page.page}"
        form_id = f"{page.page}-{kind}"
        fields = form_fields(table, kind, form_id, row)
        if kind == "create":
            action, heading, button = f"{path}/new", f"New {table.singular}", f"Create {table.singular}"
            back = path
        else:
            assert row is not None
            back = f"{path}/{quote(str(row[table.key]), safe='')}"
            action, heading = f"{back}/edit", f"Edit {table.singular} {row[table.label]}"
            button = f"Save {table.singular}"
        ctx = self._base(spec, page.page, heading)
        return self.env.get_template("form.html").render(
            **ctx, page=page, kind=kind, form_id=form_id, fields=fields, action=action, heading=heading,
            button=button, back=back,
        )  # fmt: skip

    def error(self, status: int, message: str, spec: Spec | None = None) -> str:
        ctx: dict[str, Any] = self._base(spec, None, "Error") if spec else {"site": None, "title": "Error"}
        reason = {400: "Bad request", 404: "Not found", 405: "Method not allowed"}.get(status, "Error")
        if spec and spec.theme.family:
            return self.world.error(spec, status, reason, message)
        return self.env.get_template("error.html").render(
            **ctx, status=status, reason=reason, message=message
        )
