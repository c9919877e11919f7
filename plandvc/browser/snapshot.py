"""What an agent sees of a page: the visible interactive elements, listed by one cheap evaluate.

`snapshot.js` lists them in DOM order and tags each with `data-pdx="<index>"`; this module turns its JSON
into `Snapshot` / `Element` and renders the browser-use style lines the planner and specialists read.

A page drawn mid-parse: when Chromium draws a frame while the parser is inside an option's text (the page's
bytes reached the renderer in two pieces and the renderer drew in between), it sizes the `<select>` for that
partial text and keeps that width after the rest arrives (it does not re-measure a select when an option's
text grows); seen once as the sort's Order select drawn 9 px narrower. Waiting cannot help (the width stays
wrong until the next document), so the first snapshot of each document, after `load`, takes every select (but
the focused one) out of the layout and puts it back: its box and pixels are then those of a page drawn once,
after parsing. tests/test_browser_render.py delivers a page split inside "Descending", draws a frame in
between, shows the stale width, then that the snapshot's box and the screenshot's bytes equal the page
delivered whole.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import NotRequired, TypedDict
from urllib.parse import urlsplit

from plandvc.records import ElementDescriptor

SNAPSHOT_JS = (Path(__file__).with_name("snapshot.js")).read_text()

# the stable attributes snapshot.js keeps, in the order rendered lines show them (snapshot.js's STABLE list, the
# elements schema's attribute names and the static page walk use this one list; tests/test_snapshot_attrs.py)
ATTR_ORDER = (
    "id", "name", "type", "href", "data-control-id", "data-copy", "data-home", "data-form", "data-dismiss",
    "value", "placeholder", "aria-label",
)  # fmt: skip
_BARE = re.compile(r"^[^\s\"'<>=`]*$")


def relative_url(url: str, base: str) -> str:
    """`path?query` of `url` when it is on `base`'s origin, else the URL unchanged."""
    u, b = urlsplit(url), urlsplit(base)
    if (u.scheme, u.netloc) != (b.scheme, b.netloc):
        return url
    return (u.path or "/") + (f"?{u.query}" if u.query else "")


VOID_TAGS = frozenset({"input"})


def _attr(name: str, value: str) -> str:
    if value == "":
        return name
    return f"{name}={value}" if _BARE.match(value) else f'{name}="{value.replace(chr(34), "&quot;")}"'


class ElementJS(TypedDict):
    """An element as snapshot.js lists it."""

    index: int
    tag: str
    role: str
    text: str
    label: str
    attrs: dict[str, str | None]
    box: list[int]
    options: NotRequired[list[str] | None]
    value: NotRequired[str | None]
    checked: NotRequired[bool | None]


class SnapshotJS(TypedDict):
    """A page as snapshot.js reports it."""

    url: str
    title: str
    scroll_y: float
    page_height: float
    viewport: list[int]
    elements: list[ElementJS]


@dataclass(frozen=True)
class Element:
    """One interactive element of a snapshot; `attrs` hold only its stable attributes."""

    index: int
    tag: str
    role: str
    text: str
    label: str
    attrs: dict[str, str]
    box: tuple[int, int, int, int]
    options: tuple[str, ...] | None = None  # a select's option texts
    value: str | None = None  # a field's current value, a select's selected text (never in the descriptor)
    checked: bool | None = None  # a checkbox's or radio's current state

    @classmethod
    def from_js(cls, d: ElementJS) -> Element:
        options = d.get("options")
        x, y, w, h = (int(v) for v in d["box"])
        return cls(
            index=int(d["index"]),
            tag=d["tag"],
            role=d["role"],
            text=d["text"],
            label=d["label"],
            attrs={k: ("" if v is None else str(v)) for k, v in d["attrs"].items()},
            box=(x, y, w, h),
            options=None if options is None else tuple(options),
            value=d.get("value"),
            checked=d.get("checked"),
        )

    def descriptor(self) -> ElementDescriptor:
        """The record stored in elements.json: enough to find the same element again on a live page."""
        return {
            "tag": self.tag,
            "role": self.role,
            "text": self.text,
            "label": self.label,
            "attrs": dict(sorted(self.attrs.items())),
            "box": list(self.box),
        }

    def summary(self, state: bool = True) -> str:
        """`<tag attr=value ...>text</tag>`: the element as one line, without its index.

        With `state`, the field's current value / checked state is shown too (what the agent reads); without
        it the line holds only stable parts (what an event's `target` records).
        """
        parts = [self.tag]
        parts += [_attr(name, self.attrs[name]) for name in ATTR_ORDER if name in self.attrs]
        if self.label and self.label not in (self.attrs.get("aria-label"), self.attrs.get("placeholder")):
            parts.append(_attr("label", self.label))
        if state and self.value is not None:
            parts.append(f'value="{self.value}"' if self.value == "" else _attr("value", self.value))
        if state and self.checked is not None:
            parts.append(f"checked={'true' if self.checked else 'false'}")
        if self.tag in VOID_TAGS:
            return f"<{' '.join(parts)} />"
        body = " | ".join(self.options) if self.options is not None else self.text
        return f"<{' '.join(parts)}>{body}</{self.tag}>"

    def render(self) -> str:
        return f"[{self.index}]{self.summary()}"


@dataclass(frozen=True)
class Snapshot:
    """A page as the agent sees it; `url` is `path?query` relative to the session's base."""

    url: str
    title: str
    scroll_y: int
    page_height: int
    viewport: tuple[int, int]
    elements: list[Element] = field(default_factory=list)
    generation: int = 0  # which snapshot of its session this is (stale-index detection)

    @classmethod
    def from_js(cls, d: SnapshotJS, base: str, generation: int) -> Snapshot:
        return cls(
            url=relative_url(d["url"], base),
            title=d["title"],
            scroll_y=int(d["scroll_y"]),
            page_height=int(d["page_height"]),
            viewport=(int(d["viewport"][0]), int(d["viewport"][1])),
            elements=[Element.from_js(e) for e in d["elements"]],
            generation=generation,
        )

    def render(self) -> str:
        """browser-use style lines: `[index]<tag attr=value ...>text</tag>`, one per element."""
        return "\n".join(e.render() for e in self.elements)

    def find(self, **attrs: str) -> list[Element]:
        """The elements whose stable attributes include all of `attrs` (e.g. `**{"data-control-id": x}`)."""
        return [e for e in self.elements if all(e.attrs.get(k) == v for k, v in attrs.items())]
