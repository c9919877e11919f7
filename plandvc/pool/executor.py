"""The scripted executor: does one task's single primitive on a live harness Session, step by step.

Each step takes a snapshot, finds its element there (by control id, link path, copy value or label — the
way a person names it), records the element's descriptor, the action, its value and the specialist's memory
sentence, and acts by index. It ends with a done text worded as an executor would report it, and the answer
for the two question macros, read off the page (never taken from the task's expected value).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from plandvc.browser import Element, Session
from plandvc.browser.actions import ACTIONS, perform, reply_action
from plandvc.macros import HOME_MEMORY, recorded_home_done
from plandvc.pool import widgets
from plandvc.pool.tasks import detail_path, fmt, list_path
from plandvc.records import Task, TrajectoryStep
from plandvc.sites.spec import Control, Page, Spec, Table

Pick = Callable[[Any], bool]  # a predicate over a snapshot Element


class ScriptError(Exception):
    """The scripted executor could not find what its task needs on the page."""


@dataclass
class Recording:
    """What the executor did: steps over recorded elements, its done text, answer and final page."""

    steps: list[TrajectoryStep] = field(default_factory=list)
    elements: list[dict[str, Any]] = field(default_factory=list)
    done: str = ""
    answer: str | None = None
    end: str = ""


def _attr(name: str, value: str | None = None) -> Pick:
    return lambda e: name in e.attrs and (value is None or e.attrs[name] == value)


def _all(*picks: Pick) -> Pick:
    return lambda e: all(p(e) for p in picks)


def _labelled(label: str) -> Pick:
    return lambda e: e.label == label


class Executor:
    """Drives `session` through the task's macro; `run()` returns the Recording."""

    def __init__(self, session: Session, spec: Spec, task: Task):
        self.session, self.spec, self.task = session, spec, task
        self.target: dict[str, Any] = task.get("target") or {}
        self.page: Page | None = spec.page(self.target["page"]) if self.target.get("page") else None
        self.rec = Recording()

    @property
    def table(self) -> Table:
        assert self.page is not None
        return self.spec.table_of(self.page)

    # -- one step --------------------------------------------------------------------------------------

    async def _find(self, pick: Pick, what: str) -> Element:
        snap = await self.session.snapshot()
        for e in snap.elements:
            if pick(e):
                return e
        raise ScriptError(f"{self.task['task_id']}: no {what} on {snap.url}")

    async def step(self, action: str, pick: Pick, what: str, memory: str, value: Any = None) -> None:
        """Find the element, record it and the step, then act on it by index."""
        if action not in ACTIONS or not ACTIONS[action].targets_element:
            raise ValueError(f"unknown action {action!r}")
        el = await self._find(pick, what)
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

    def _list(self) -> str:
        assert self.page is not None
        return list_path(self.spec.site, self.page.page)

    async def to_list(self) -> None:
        """From the home page (or another page), open the task's list page by its navigation link."""
        assert self.page is not None
        if self.session.url.split("?")[0] == self._list():
            return
        title = self.page.title
        await widgets.open_menu(self)
        await self.step(
            "click",
            _all(_attr("href", self._list()), lambda e: e.text == title),
            f"navigation link to {title}",
            f'Opening the "{title}" page from the navigation.',
        )

    async def to_entry(self, entry_id: str) -> None:
        """From the list page, open an entry by its link."""
        href = detail_path(self.spec.site, self.table_name_page(), entry_id)
        if self.session.url.split("?")[0] == href:
            return
        await self.to_list()
        row = self.row(entry_id)
        label = str(row[self.table.label])
        await widgets.reveal(self, href, label)
        await self.step(
            "click",
            _all(_attr("href", href)),
            f"link to entry {entry_id}",
            f'Opening the {self.table.singular} "{label}" from the list.',
        )

    def table_name_page(self) -> str:
        assert self.page is not None
        return self.page.page

    def row(self, entry_id: str) -> dict[str, Any]:
        for r in self.table.rows:
            if str(r[self.table.key]) == entry_id:
                return r
        prep = (self.task["control"].get("prep") or {}).get("create")
        if prep:
            return {**prep["fields"], self.table.key: entry_id}
        raise ScriptError(f"{self.task['task_id']}: no entry {entry_id!r} in table {self.table.name!r}")

    def _cid(self, cid: str, **more: str) -> Pick:
        picks = [_attr("data-control-id", cid)] + [_attr(k, v) for k, v in more.items()]
        return _all(*picks)

    async def apply(self, cid: str, memory: str = "Applying the filter.") -> None:
        await self.step("click", self._cid(f"{cid}-apply"), f"Apply button of {cid}", memory)

    async def list_control(self) -> Control:
        """On the list page, the control the task uses."""
        await self.to_list()
        return self.page.control(self.target["control_id"])  # type: ignore[union-attr]

    async def applied(self, c: Control, memory: str = "Applying the filter.") -> int:
        """Apply control `c` and read how many rows the list shows then."""
        await self.apply(c.control_id, memory)
        return await self.shown()

    async def on_field(self, action: str, c: Control, name: str, what: str, memory: str, value: Any) -> None:
        """`action` with `value` on the field `name` of control `c` (a select or an input)."""
        await self.step(action, self._cid(c.control_id, name=name), what, memory, value)

    async def choose(self, c: Control, v: str, memory: str) -> None:
        """Choose `v` in dropdown `c`."""
        if c.implementation == "listbox":
            return await widgets.choose_listbox(self, c, v, memory)
        await self.on_field("select", c, str(c.param), f"{c.label} dropdown", memory, v)

    async def tick(self, c: Control, v: str, memory: str) -> None:
        """Tick the checkbox labelled `v` of control `c`."""
        if c.implementation != "checkboxes":
            return await widgets.tick_option(self, c, v, memory)
        pick = _all(self._cid(c.control_id, type="checkbox"), _labelled(v))
        await self.step("click", pick, f'{c.label} checkbox "{v}"', memory)

    def filtered(self, what: str, n: int) -> str:
        """The done text of a filter: what the list is filtered to and how many rows it shows."""
        return f"I filtered the {self.table.title.lower()} to {what}; {n} {self._noun(n)} shown."

    # -- the macros ------------------------------------------------------------------------------------

    async def run(self) -> Recording:
        macro = self.task["macro"]
        await widgets.dismiss_banner(self)
        await getattr(self, macro)()
        self.rec.end = self.session.url
        return self.rec

    async def navigate_to_page(self) -> None:
        await self.to_list()
        self.rec.done = f'I opened the "{self.page.title}" page.'  # type: ignore[union-attr]

    async def open_entry(self) -> None:
        await self.to_entry(self.target["entry"])
        label = self.row(self.target["entry"])[self.table.label]
        self.rec.done = f'I opened the {self.table.singular} "{label}"; its detail page is shown.'

    async def navigate_home(self) -> None:
        await self.step("click", _attr("data-home"), "home link", HOME_MEMORY)
        self.rec.done = recorded_home_done(self.spec.name)

    async def filter_by_dropdown(self) -> None:
        c = await self.list_control()
        v = self.target["value"]
        await self.choose(c, v, f'Choosing "{v}" in the {c.label} filter.')
        self.rec.done = self.filtered(f'{c.label} "{v}"', await self.applied(c))

    def _noun(self, n: int) -> str:
        return f"{self.table.singular} is" if n == 1 else f"{self.table.title.lower()} are"

    async def filter_by_options(self) -> None:
        c = await self.list_control()
        values = list(self.target["values"])
        for v in values:
            await self.tick(c, v, f'Ticking "{v}" under {c.label}.')
        said = " or ".join(f'"{v}"' for v in values)
        self.rec.done = self.filtered(f"{c.label} {said}", await self.applied(c))

    async def filter_by_slider(self) -> None:
        c = await self.list_control()
        raw = self.target["value"]
        value: int | float = float(raw)
        value = int(value) if float(value).is_integer() else value
        if c.implementation == "numbers":
            await widgets.type_max(self, c, str(raw))
        else:
            await self.step(
                "set_range",
                self._cid(c.control_id, type="range"),
                f"{c.label} slider",
                f"Setting the {c.label} slider to {raw}.",
                value,
            )
        n = await self.applied(c)
        what = f"the {c.label} slider" if c.implementation == "range" else f"{c.label} (maximum)"
        self.rec.done = f"I set {what} to {raw}; {n} {self._noun(n)} shown with {c.label} up to {raw}."

    async def filter_by_date_range(self) -> None:
        c = await self.list_control()
        a, b = self.target["start"], self.target["end"]
        pa, pb = c.params
        if c.implementation == "calendar":
            await widgets.pick_dates(self, c, a, b)
        else:
            await self.on_field(
                "input", c, pa, f"{c.label} from date", f'Entering "{a}" as the start of {c.label}.', a
            )
            await self.on_field(
                "input", c, pb, f"{c.label} to date", f'Entering "{b}" as the end of {c.label}.', b
            )
        self.rec.done = self.filtered(f'{c.label} from "{a}" to "{b}"', await self.applied(c))

    async def sort_by_form(self) -> None:
        c = await self.list_control()
        ps, pd = c.params
        label = self.table.column(self.target["column"]).label
        word = "Ascending" if self.target["dir"] == "asc" else "Descending"
        memory = f'Choosing "{label}" as the sort column.'
        if c.implementation == "headers":
            await widgets.sort_by_headers(self, c, label, self.target["dir"])
        else:
            await self.on_field("select", c, ps, f"{c.label} column select", memory, label)
            await self.on_field(
                "select", c, pd, f"{c.label} order select", f"Choosing {word.lower()} order.", word
            )
            await self.apply(c.control_id, "Applying the sort.")
        self.rec.done = f'I sorted the {self.table.title.lower()} by "{label}" in {word.lower()} order.'

    async def search_by_text(self) -> None:
        c = await self.list_control()
        text = self.target["text"]
        if c.implementation == "autocomplete":
            await widgets.search_suggest(self, c, text)
            n = await self.shown()
        else:
            await self.on_field(
                "input", c, str(c.param), "search box", f'Typing "{text}" into the search box.', text
            )
            n = await self.applied(c, "Running the search.")
        self.rec.done = f'I searched the {self.table.title.lower()} for "{text}"; {n} {self._noun(n)} shown.'

    async def _fill(self, form_id: str, fields: dict[str, Any]) -> None:
        for name, v in fields.items():
            col = self.table.column(name)
            action = "select" if col.type == "enum" else "input"
            await widgets.to_step_of(self, f"{form_id}-{name}")
            await self.step(
                action,
                self._cid(f"{form_id}-{name}"),
                f"{col.label} field",
                f'Setting {col.label} to "{fmt(v)}".',
                fmt(v),
            )

    async def create_entry(self) -> None:
        await self.to_list()
        page = self.table_name_page()
        memory = f"Opening the new {self.table.singular} form."
        await widgets.open_form(self, "create", f"{self._list()}/new", self.table.singular, memory)
        fields = dict(self.target["fields"])
        await self._fill(f"{page}-create", fields)
        await widgets.to_step_of(self, f"{page}-create-apply")
        await self.step(
            "click",
            self._cid(f"{page}-create-apply"),
            "Create button",
            f"Submitting the new {self.table.singular}.",
        )
        said = ", ".join(f'{self.table.column(f).label} "{fmt(v)}"' for f, v in fields.items())
        self.rec.done = f"I created a new {self.table.singular} with {said}; it is now in the list."

    async def edit_entry(self) -> None:
        rid = self.target["entry"]
        await self.to_entry(rid)
        page = self.table_name_page()
        href = f"{detail_path(self.spec.site, page, rid)}/edit"
        memory = f"Opening the edit form of {self.table.singular}."
        await widgets.open_form(self, "edit", href, self.table.singular, memory)
        f, v = self.target["field"], self.target["value"]
        await self._fill(f"{page}-edit", {f: v})
        await widgets.to_step_of(self, f"{page}-edit-apply")
        await self.step("click", self._cid(f"{page}-edit-apply"), "Save button", "Saving the change.")
        label = self.row(rid)[self.table.label] if f != self.table.label else v
        self.rec.done = (
            f'I changed the {self.table.column(f).label} of the {self.table.singular} "{label}" '
            f'to "{fmt(v)}" and saved it.'
        )

    async def report_information(self) -> None:
        rid, name = self.target["entry"], self.target["column"]
        await self.to_entry(rid)
        col = self.table.column(name)
        shown = await self.field_text(name)
        answer = shown
        if col.type == "number":
            answer = shown.removeprefix(col.prefix).removesuffix(col.suffix).strip()
        label = self.row(rid)[self.table.label]
        self.rec.done = f'The {col.label} of the {self.table.singular} "{label}" is {shown}.'
        self.rec.answer = answer

    async def count_entries(self) -> None:
        c = await self.list_control()
        v = self.target["value"]
        if c.kind == "dropdown":
            await self.choose(c, v, f'Choosing "{v}" in the {c.label} filter to count those rows.')
        else:
            await self.tick(c, v, f'Ticking "{v}" under {c.label} to count those rows.')
        n = await self.applied(c)
        self.rec.done = (
            f'I filtered the {self.table.title.lower()} to {c.label} "{v}": {n} '
            f"{self._noun(n)} shown, so the answer is {n}."
        )
        self.rec.answer = str(n)

    async def copy_value(self) -> None:
        rid = self.target["entry"]
        await self.to_entry(rid)
        cid = f"{self.table_name_page()}-copy"
        el = await self._find(self._cid(cid), "copy button")
        value = el.attrs.get("data-copy", "")
        col = self.table.column(str(self.table.copy))
        await self.step(
            "click",
            _all(self._cid(cid), _attr("data-copy")),
            "copy button",
            f"Clicking the copy button for the {col.label}.",
        )
        label = self.row(rid)[self.table.label]
        self.rec.done = (
            f'I copied the {col.label} "{value}" of the {self.table.singular} "{label}" to the clipboard.'
        )


async def execute(session: Session, spec: Spec, task: Task) -> Recording:
    """Run the task's scripted steps on a session that is already on the task's start page."""
    return await Executor(session, spec, task).run()
