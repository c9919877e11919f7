"""Walk a recorded trajectory on the site's own pages without a browser: is every recorded element on its page?

The pages come from the server's own code (`plandvc.sites.server.App`, the renderer the live run serves), one
state session per trajectory. A page's elements are listed the way the browser snapshot lists them
(`plandvc.contract.doc`), and each step's recorded descriptor is looked up with the replayer's own matching
(`plandvc.replay.find`). The step is then applied the way a browser would: a link is followed, a submit button
submits its form (GET as a query, POST then the 303 redirect), a checkbox toggles, a field takes its value.
A control prep is done through the site's own create form first, like `plandvc.pool.prep`.

The generated world's pages draw two widgets with a script (`templates/world/site.js`), and the walk draws
them the same way (`Drawn`): the calendar popup's day buttons for the month it shows (opened at the field's
date or the site's `today`, moved by its month and year buttons; a day sets the field's hidden input), and the
search suggestions of a search-as-you-type box (the page's word list by the script's own rule,
`plandvc.sites.controls.suggested`; one fills the box and submits its form with `sugg=1`). A recorded day or suggestion is found only where the script would have
drawn it, so a step on the wrong month or a word the list does not offer is still a problem.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import date as date_cls
from typing import TypedDict
from urllib.parse import urlencode, urlsplit

from plandvc.contract.doc import BUTTON_TYPES, Doc, Node, clip, option_value, options, resolve, squash
from plandvc.macros.make import fmt
from plandvc.records import ElementDescriptor, TrajectoryStep
from plandvc.replay import describe, find
from plandvc.sites.controls import suggested
from plandvc.sites.model import SUGGEST_PARAM
from plandvc.sites.server import App

DOC_CACHE = 256  # parsed pages kept for reuse (a fresh list page is the start of many trajectories)


@dataclass
class Drawn:
    """An element a page's script draws (a calendar day, a suggestion), as the snapshot would describe it, and
    what clicking it does: `field` takes `value`, then `submit` is submitted when set."""

    descriptor: ElementDescriptor
    field: Node
    value: str
    submit: Node | None = None


def is_drawn(d: ElementDescriptor) -> bool:
    """Whether `d` is an element a world page's script draws: a calendar day or a search suggestion."""
    attrs = d.get("attrs") or {}
    if d.get("tag") == "li":
        return str(attrs.get("data-control-id") or "").endswith("-suggestion")
    label = str(attrs.get("aria-label") or "")
    return (
        d.get("tag") == "button"
        and set(attrs) == {"type", "aria-label"}
        and _ISO.fullmatch(label) is not None
    )


def _same(a: ElementDescriptor, b: ElementDescriptor) -> bool:
    return (a.get("text"), a.get("attrs")) == (b.get("text"), b.get("attrs"))


_ISO = re.compile(r"\d{4}-\d{2}-\d{2}")
_MONTH_MOVES = {"data-cal-prev": -1, "data-cal-next": 1, "data-cal-prev-year": -12, "data-cal-next-year": 12}


class Page:
    """One visit of a page: its URL (path?query), its parsed document, and its fields' current state."""

    def __init__(self, url: str, doc: Doc) -> None:
        self.url, self.doc = url, doc
        self.elements = doc.elements
        self.drawn: list[Drawn] = []  # what the page's script shows now (the open calendar, the suggestions)
        self._calendar: tuple[Node, Node, int] | None = None  # its form, the field it sets, the month shown
        self.value: dict[Node, str] = {}
        self.checked: dict[Node, bool] = {}
        for n in doc.nodes:
            if n.tag == "input":
                self.value[n] = n.attrs.get("value", "")
                self.checked[n] = "checked" in n.attrs
            elif n.tag == "textarea":
                self.value[n] = n.text()
            elif n.tag == "select":
                opts = options(n)
                chosen = next((o for o in opts if "selected" in o.attrs), opts[0] if opts else None)
                self.value[n] = option_value(chosen) if chosen else ""

    def href(self, raw: str) -> str:
        return resolve(self.url, raw)

    def snapshot(self) -> list[ElementDescriptor]:
        return self.doc.snapshot

    def _field(self, form: Node, name: str) -> Node | None:
        return next((n for n in form.walk() if n.tag == "input" and n.attrs.get("name") == name), None)

    def open_calendar(self, opener: Node) -> None:
        """A `data-cal-open` button: the calendar shows the month of its field's date, else of `today`."""
        form = opener.up("form")
        field = self._field(form, opener.attrs.get("data-name", "")) if form is not None else None
        if form is None or field is None:
            return
        body = next((n for n in self.doc.nodes if n.tag == "body"), None)
        date = self.value.get(field) or (body.attrs.get("data-today", "") if body is not None else "")
        if len(date) < 7 or not (date[:4].isdigit() and date[5:7].isdigit()):
            return
        self._calendar = (form, field, int(date[:4]) * 12 + int(date[5:7]) - 1)
        self._draw_month()

    def move_calendar(self, months: int) -> None:
        if self._calendar is not None:
            form, field, month = self._calendar
            self._calendar = (form, field, month + months)
            self._draw_month()

    def _draw_month(self) -> None:
        assert self._calendar is not None
        _, field, month = self._calendar
        y, m = divmod(month, 12)
        days = (date_cls(y + (m + 1) // 12, (m + 1) % 12 + 1, 1) - date_cls(y, m + 1, 1)).days
        self.drawn = []
        for d in range(1, days + 1):
            iso = f"{y:04d}-{m + 1:02d}-{d:02d}"
            desc: ElementDescriptor = {"tag": "button", "role": "button", "text": str(d), "label": iso,
                                       "attrs": {"type": "button", "aria-label": iso}}  # fmt: skip
            self.drawn.append(Drawn(desc, field, iso))

    def suggest(self, box: Node) -> None:
        """A search-as-you-type box was typed into: the suggestions its word list offers for the text."""
        self.drawn = []
        words_node = next(
            (n for n in self.doc.nodes if n.attrs.get("id") == box.attrs.get("data-suggest")), None
        )
        if words_node is None:
            return
        words = [str(w) for w in json.loads(words_node.text() or "[]")]
        cid = box.attrs.get("data-control-id", "") + "-suggestion"
        for w in suggested(words, self.value.get(box, "")):
            desc: ElementDescriptor = {"tag": "li", "role": "option", "text": clip(w), "label": "",
                                       "attrs": {"data-control-id": cid}}  # fmt: skip
            self.drawn.append(Drawn(desc, box, w, box.up("form")))

    def form_data(self, form: Node, submitter: Node | None) -> list[tuple[str, str]]:
        """The name/value pairs a browser submits for `form`, in document order."""
        pairs: list[tuple[str, str]] = []
        for n in form.walk():
            name = n.attrs.get("name")
            if not name or "disabled" in n.attrs:
                continue
            if n.tag == "input":
                if n.type in ("checkbox", "radio"):
                    if self.checked.get(n):
                        pairs.append((name, n.attrs.get("value", "on")))
                elif n.type in BUTTON_TYPES:
                    if n is submitter:
                        pairs.append((name, n.attrs.get("value", "")))
                else:
                    pairs.append((name, self.value.get(n, "")))
            elif n.tag in ("select", "textarea"):
                pairs.append((name, self.value.get(n, "")))
            elif n.tag == "button" and n is submitter:
                pairs.append((name, n.attrs.get("value", "")))
        return pairs


class CreatePrep(TypedDict):
    """A task's `control.prep.create` as the pool's schema makes it: a row made through a page's create form."""

    page: str
    table: str
    fields: dict[str, str | int | float | bool | None]


class StepError(Exception):
    """A step that cannot be done on its page: `key` is the trajectory key (`steps[2].element`)."""

    def __init__(self, key: str, reason: str) -> None:
        super().__init__(f"{key}: {reason}")
        self.key, self.reason = key, reason


class Walker:
    """One trajectory's session on the site's own server code."""

    def __init__(self, app: App, session: str, docs: dict[tuple[str, bytes], Doc] | None = None) -> None:
        self.app, self.session = app, session
        self.page: Page | None = None
        self.docs = {} if docs is None else docs  # parsed pages by (url, html), shared between walkers

    def parse(self, url: str, body: bytes) -> Doc:
        doc = self.docs.get((url, body))
        if doc is None:
            if len(self.docs) >= DOC_CACHE:
                self.docs.pop(next(iter(self.docs)))
            doc = self.docs[(url, body)] = Doc(url, body.decode("utf-8"))
        return doc

    def get(self, url: str) -> int:
        return self.request("GET", url, b"")

    def request(self, method: str, url: str, body: bytes) -> int:
        for _ in range(5):  # redirects
            resp = self.app.handle(method, url, self.session, body)
            if resp.status in (301, 302, 303) and resp.location:
                method, url, body = "GET", resp.location, b""
                continue
            if resp.status == 200:
                self.page = Page(url, self.parse(url, resp.body))
            return resp.status
        return 508

    def prep_create(self, site: str, spec: CreatePrep) -> str | None:
        """The control prep through the create form, like plandvc.pool.prep; the reason it failed, or None."""
        page, fields = spec.get("page"), spec.get("fields") or {}
        if self.get(f"/sites/{site}/{page}/new") != 200 or self.page is None:
            return f"/sites/{site}/{page}/new does not answer with a create form"
        for name, value in fields.items():
            node = next(
                (n for n in self.page.elements if n.attrs.get("data-control-id") == f"{page}-create-{name}"),
                None,
            )
            if node is None:
                return f"the {page} create form has no field {name!r}"
            self.set_field(node, fmt(value), f"control.prep.create.fields.{name}")
        button = next(
            (n for n in self.page.elements if n.attrs.get("data-control-id") == f"{page}-create-apply"), None
        )
        if button is None:
            return f"the {page} create form has no submit button"
        self.click(button)
        return None

    def set_field(self, node: Node, value: str, key: str) -> None:
        assert self.page is not None
        if node.tag == "select":
            opts = options(node)
            match = next((o for o in opts if squash(o.text()) == value), None) or next(
                (o for o in opts if option_value(o) == value), None
            )
            if match is None:
                raise StepError(
                    key, f"no option {value!r} (options: {', '.join(squash(o.text()) for o in opts)})"
                )
            self.page.value[node] = option_value(match)
        else:
            self.page.value[node] = value

    def click(self, node: Node) -> None:
        assert self.page is not None
        if "data-cal-open" in node.attrs:
            self.page.open_calendar(node)
            return
        if move := next((v for k, v in _MONTH_MOVES.items() if k in node.attrs), 0):
            self.page.move_calendar(move)
            return
        if node.tag == "a" and "href" in node.attrs:
            self.get(self.page.href(node.attrs["href"]))
        elif node.tag == "input" and node.type == "checkbox":
            self.page.checked[node] = not self.page.checked.get(node)
        elif node.tag == "input" and node.type == "radio":
            self.page.checked[node] = True
        elif (node.tag == "button" and node.type in ("", "submit")) or (
            node.tag == "input" and node.type in ("submit", "image")
        ):
            form = node.up("form")
            if form is not None:
                data = urlencode(self.page.form_data(form, node))
                action = self.page.href(form.attrs.get("action") or self.page.url)
                if form.attrs.get("method", "get").lower() == "post":
                    self.request("POST", action, data.encode())
                else:
                    self.get(urlsplit(action).path + (f"?{data}" if data else ""))

    def click_drawn(self, n: int, action: object, drawn: Drawn) -> None:
        """Click a drawn day or suggestion: its field takes its value; a suggestion submits the box's form."""
        assert self.page is not None
        if action != "click":
            raise StepError(f"steps[{n}].action", f"{action} on an element the page's script drew")
        self.page.value[drawn.field] = drawn.value
        self.page.drawn = []
        if drawn.submit is not None:  # a suggestion: the search says it came from one, as site.js marks it
            data = urlencode([*self.page.form_data(drawn.submit, None), (SUGGEST_PARAM, "1")])
            action_url = self.page.href(drawn.submit.attrs.get("action") or self.page.url)
            self.get(urlsplit(action_url).path + (f"?{data}" if data else ""))

    def step(self, n: int, step: TrajectoryStep, want: ElementDescriptor | None) -> None:
        """Do recorded step n on the current page; StepError when its element is not there or it cannot be done."""
        assert self.page is not None
        action, value = step.get("action"), step.get("value")
        if action == "scroll":
            return
        if action == "go_to":
            self.get(self.page.href(str(value)))
            return
        if action == "back":
            raise StepError(f"steps[{n}].action", "back cannot be checked without a browser history")
        if want is None:
            raise StepError(f"steps[{n}].element", "no recorded element")
        if is_drawn(want):  # a calendar day or a suggestion: only the very one the script draws now
            drawn = next((d for d in self.page.drawn if _same(d.descriptor, want)), None)
            if drawn is None:
                raise StepError(f"steps[{n}].element", f"no element like {describe(want)} on {self.page.url}")
            self.click_drawn(n, action, drawn)
            return
        i = find(want, self.page.snapshot())
        if i is None:
            raise StepError(f"steps[{n}].element", f"no element like {describe(want)} on {self.page.url}")
        node = self.page.elements[i]
        if action == "click":
            self.click(node)
        elif action in ("input", "set_range"):
            if node.tag not in ("input", "textarea"):
                raise StepError(f"steps[{n}].element", f"{action} on a <{node.tag}> on {self.page.url}")
            self.set_field(node, fmt(value), f"steps[{n}].value")
            if "data-suggest" in node.attrs:
                self.page.suggest(node)
        elif action == "select":
            if node.tag != "select":
                raise StepError(f"steps[{n}].element", f"select on a <{node.tag}> on {self.page.url}")
            self.set_field(node, str(value), f"steps[{n}].value")
