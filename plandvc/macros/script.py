"""Executor: the moves every macro's scripted solution is made of, on a live harness Session.

A solution (`Macro.solve`) gets an Executor for one task and does the task's single primitive step by step.
Each step takes a snapshot, finds its element there (by control id, link path, copy value or label — the way a
person names it), records the element's descriptor, the action, its value and the specialist's memory sentence,
and acts by index. The solution ends by setting the done text (worded as an executor would report it) and, for
a question, the answer read off the page (never taken from the task's expected value).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from plandvc.checks import Value
from plandvc.macros import widgets
from plandvc.macros.make import detail_path, fmt, list_path
from plandvc.records import ElementDescriptor, ParamValue, Task, TrajectoryStep
from plandvc.sites.spec import Control, Page, Spec, Table

if TYPE_CHECKING:
    from plandvc.browser import Element, Session

Pick = widgets.Pick


class ScriptError(Exception):
    """The scripted executor could not find what its task needs on the page."""


@dataclass
class Recording:
    """What the executor did: steps over recorded elements, its done text, answer and final page."""

    steps: list[TrajectoryStep] = field(default_factory=list)
    elements: list[ElementDescriptor] = field(default_factory=list)
    done: str = ""
    answer: str | None = None
    end: str = ""


def attr(name: str, value: str | None = None) -> Pick:
    """An element with attribute `name` (equal to `value`, when given)."""
    return lambda e: name in e.attrs and (value is None or e.attrs[name] == value)


def every(*picks: Pick) -> Pick:
    return lambda e: all(p(e) for p in picks)


def labelled(label: str) -> Pick:
    return lambda e: e.label == label


class Executor:
    """Drives `session` through one task; the solution fills `rec` (steps, done text, answer)."""

    def __init__(self, session: Session, spec: Spec, task: Task):
        self.session, self.spec, self.task = session, spec, task
        self.target: dict[str, Any] = task.get("target") or {}
        self.page: Page | None = spec.page(self.target["page"]) if self.target.get("page") else None
        self.rec = Recording()

    @property
    def list_page(self) -> Page:
        """The page the task acts on (a task without one has no list to go to)."""
        if self.page is None:
            raise ScriptError(f"{self.task['task_id']}: the task names no page")
        return self.page

    @property
    def table(self) -> Table:
        return self.spec.table_of(self.list_page)

    # -- one step --------------------------------------------------------------------------------------

    async def find(self, pick: Pick, what: str) -> Element:
        snap = await self.session.snapshot()
        for e in snap.elements:
            if pick(e):
                return e
        raise ScriptError(f"{self.task['task_id']}: no {what} on {snap.url}")

    async def step(self, action: str, pick: Pick, what: str, memory: str, value: ParamValue = None) -> None:
        """Find the element, record it and the step, then act on it by index."""
        from plandvc.browser.actions import ACTIONS, perform, reply_action

        if action not in ACTIONS or not ACTIONS[action].targets_element:
            raise ValueError(f"unknown action {action!r}")
        el = await self.find(pick, what)
        self.rec.elements.append(el.descriptor())
        self.rec.steps.append(
            {"action": action, "element": len(self.rec.elements) - 1, "value": value, "memory": memory}
        )
        await perform(self.session, action, reply_action(action, value, el.index)[action])

    # -- what a person reads off the page --------------------------------------------------------------

    async def shown(self) -> int:
        """N of the list page's "Showing N <title>" line."""
        text = await self.session.page.locator("p.count").inner_text()
        m = re.search(r"Showing\s+([\d,]+)", text)
        if not m:
            raise ScriptError(f"{self.task['task_id']}: no 'Showing N' on {self.session.url}")
        return int(m.group(1).replace(",", ""))

    async def field_text(self, name: str) -> str:
        """The text of one field on a detail page."""
        loc = self.session.page.locator(f'dl.fields dd[data-field="{name}"]')
        if await loc.count() != 1:
            raise ScriptError(f"{self.task['task_id']}: no field {name!r} on {self.session.url}")
        return " ".join((await loc.inner_text()).split())

    # -- shared moves ----------------------------------------------------------------------------------

    def list_url(self) -> str:
        return list_path(self.spec.site, self.list_page.page)

    def detail_url(self, entry_id: str) -> str:
        return detail_path(self.spec.site, self.list_page.page, entry_id)

    async def to_list(self) -> None:
        """From the home page (or another page), open the task's list page by its navigation link."""
        if self.session.url.split("?")[0] == self.list_url():
            return
        title = self.list_page.title
        await widgets.open_menu(self)
        await self.step(
            "click",
            every(attr("href", self.list_url()), lambda e: e.text == title),
            f"navigation link to {title}",
            f'Opening the "{title}" page from the navigation.',
        )

    async def to_entry(self, entry_id: str) -> None:
        """From the list page, open an entry by its link."""
        href = self.detail_url(entry_id)
        if self.session.url.split("?")[0] == href:
            return
        await self.to_list()
        label = str(self.row(entry_id)[self.table.label])
        await widgets.reveal(self, href, label)
        await self.step(
            "click",
            every(attr("href", href)),
            f"link to entry {entry_id}",
            f'Opening the {self.table.singular} "{label}" from the list.',
        )

    def row(self, entry_id: str) -> dict[str, Any]:
        """The entry's row: from the table, or the fields the task's prep creates it with."""
        for r in self.table.rows:
            if str(r[self.table.key]) == entry_id:
                return r
        prep = (self.task["control"].get("prep") or {}).get("create")
        if prep:
            return {**prep["fields"], self.table.key: entry_id}
        raise ScriptError(f"{self.task['task_id']}: no entry {entry_id!r} in table {self.table.name!r}")

    def control_id(self, cid: str, **more: str) -> Pick:
        """The element with `data-control-id` `cid` (and these other attributes)."""
        return every(attr("data-control-id", cid), *(attr(k, v) for k, v in more.items()))

    async def apply(self, cid: str, memory: str = "Applying the filter.") -> None:
        """Apply control `cid`: its own Apply button, or where a v3 list groups its filters, the filter
        form's one Apply (a facet link or a form that applies on change has applied it already; min–max
        fields keep their "Go")."""
        how = widgets.grouped(self.spec, self.list_page.control(cid)) if self.page is not None else None
        if how == "form":
            fid = f"{self.list_page.page}-filters"
            pick = self.control_id(f"{fid}-apply")
            await self.step(
                "click", pick, "Apply filters button", "Applying the filters with the one Apply button."
            )
            return
        if how is not None:
            return
        await self.step("click", self.control_id(f"{cid}-apply"), f"Apply button of {cid}", memory)

    async def list_control(self) -> Control:
        """On the list page, the control the task uses."""
        await self.to_list()
        return self.list_page.control(self.target["control_id"])

    async def applied(self, c: Control, memory: str = "Applying the filter.") -> int:
        """Apply control `c` and read how many rows the list shows then."""
        await self.apply(c.control_id, memory)
        return await self.shown()

    async def on_field(
        self, action: str, c: Control, name: str, what: str, memory: str, value: ParamValue
    ) -> None:
        """`action` with `value` on the field `name` of control `c` (a select or an input)."""
        await self.step(action, self.control_id(c.control_id, name=name), what, memory, value)

    async def choose(self, c: Control, v: str, memory: str) -> None:
        """Choose `v` in dropdown `c` (its facet link where a v3 list draws the filter as facets)."""
        if widgets.grouped(self.spec, c) == "facets":
            return await widgets.click_facet(self, c, v)
        if c.implementation == "listbox":
            return await widgets.choose_listbox(self, c, v, memory)
        await self.on_field("select", c, str(c.param), f"{c.label} dropdown", memory, v)

    async def tick(self, c: Control, v: str, memory: str) -> None:
        """Tick the checkbox labelled `v` of control `c` (a chip or a radio where the site draws those, its
        facet link where a v3 list draws the filter as facets)."""
        if widgets.grouped(self.spec, c) == "facets":
            return await widgets.click_facet(self, c, v)
        if c.implementation != "checkboxes":
            return await widgets.tick_option(self, c, v, memory)
        pick = every(self.control_id(c.control_id, type="checkbox"), labelled(v))
        await self.step("click", pick, f'{c.label} checkbox "{v}"', memory)

    async def fill(self, form_id: str, fields: Mapping[str, Value]) -> None:
        """Set each field of form `form_id` (a `<select>` for an enum column, else typed)."""
        for name, v in fields.items():
            col = self.table.column(name)
            action = "select" if col.type == "enum" else "input"
            await widgets.to_step_of(self, f"{form_id}-{name}")
            await self.step(
                action,
                self.control_id(f"{form_id}-{name}"),
                f"{col.label} field",
                f'Setting {col.label} to "{fmt(v)}".',
                fmt(v),
            )

    def noun(self, n: int) -> str:
        """'<singular> is' or '<plural> are', for n rows."""
        return f"{self.table.singular} is" if n == 1 else f"{self.table.title.lower()} are"

    def filtered(self, what: str, n: int) -> str:
        """The done text of a filter: what the list is filtered to and how many rows it shows."""
        return f"I filtered the {self.table.title.lower()} to {what}; {n} {self.noun(n)} shown."
