"""A page parsed without a browser: its element tree (`Node`, `Doc`), and each element described the way the
browser snapshot describes it (the same selector, stable attributes, role, text and label; no layout, so no
boxes and every element counts as visible). `plandvc.contract.pages` walks trajectories on these pages.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser
from urllib.parse import urljoin, urlsplit

from plandvc.browser.snapshot import ATTR_ORDER
from plandvc.records import ElementDescriptor

SELECTOR_TAGS = frozenset({"a", "button", "input", "select", "textarea"})
STABLE = ATTR_ORDER  # the attributes a live snapshot keeps
_VOID = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}
)
BUTTON_TYPES = ("button", "submit", "reset", "image")


@dataclass(eq=False)
class Node:
    """One element of a parsed page."""

    tag: str
    attrs: dict[str, str]
    parent: Node | None
    children: list[Node | str] = field(default_factory=list)

    def text(self) -> str:
        out: list[str] = []
        for c in self.children:
            out.append(c if isinstance(c, str) else c.text())
        return "".join(out)

    def up(self, tag: str) -> Node | None:
        n = self.parent
        while n is not None and n.tag != tag:
            n = n.parent
        return n

    def walk(self) -> list[Node]:
        out = [self]
        for c in self.children:
            if isinstance(c, Node):
                out += c.walk()
        return out

    @property
    def type(self) -> str:
        return self.attrs.get("type", "").lower()


class _Parser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Node("#document", {}, None)
        self.cur = self.root

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        node = Node(tag, {k: v or "" for k, v in attrs}, self.cur)
        self.cur.children.append(node)
        if tag not in _VOID:
            self.cur = node

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.cur.children.append(Node(tag, {k: v or "" for k, v in attrs}, self.cur))

    def handle_endtag(self, tag: str) -> None:
        n: Node | None = self.cur
        while n is not None and n.tag != tag:
            n = n.parent
        if n is not None and n.parent is not None:
            self.cur = n.parent

    def handle_data(self, data: str) -> None:
        self.cur.children.append(data)


def squash(s: str) -> str:
    return " ".join(s.split())


def clip(s: str) -> str:
    s = squash(s)
    return s[:79] + "…" if len(s) > 80 else s


class Doc:
    """A parsed page: its nodes, its snapshot elements and their descriptors (state-free, so shared by every
    visit of the same HTML)."""

    def __init__(self, url: str, html: str) -> None:
        parser = _Parser()
        parser.feed(html)
        self.url = url
        self.nodes = parser.root.walk()
        self.label_for: dict[str, Node] = {}
        for m in self.nodes:
            if m.tag == "label" and m.attrs.get("for") and m.attrs["for"] not in self.label_for:
                self.label_for[m.attrs["for"]] = m
        self.elements = [
            n
            for n in self.nodes
            if (n.tag in SELECTOR_TAGS or n.attrs.get("role") == "button" or "data-copy" in n.attrs)
            and not (n.tag == "input" and n.type == "hidden")
        ]
        self.snapshot = [self.descriptor(n) for n in self.elements]

    def href(self, raw: str) -> str:
        return resolve(self.url, raw)

    def label(self, n: Node) -> str:
        if n.attrs.get("aria-label"):
            return clip(n.attrs["aria-label"])
        lab = self.label_for.get(n.attrs.get("id", ""))
        if lab is not None:
            return clip(lab.text())
        wrap = n.up("label")
        if wrap is not None:
            return clip(wrap.text())
        return clip(n.attrs.get("placeholder") or n.attrs.get("name") or "")

    def descriptor(self, n: Node) -> ElementDescriptor:
        """The element as the browser snapshot describes it (without a box)."""
        attrs: dict[str, str | None] = {}
        for name in STABLE:
            if name not in n.attrs:
                continue
            if name == "value" and not (
                n.tag == "button"
                or (n.tag == "input" and n.type in ("button", "submit", "reset", "checkbox", "radio"))
            ):
                continue
            attrs[name] = self.href(n.attrs[name]) if name == "href" else n.attrs[name]
        if n.tag in ("select", "textarea", "input"):
            text = clip(n.attrs.get("value", "")) if n.tag == "input" and n.type in BUTTON_TYPES else ""
        else:
            text = clip(n.text())
        role = n.attrs.get("role") or _role(n)
        return {"tag": n.tag, "role": role, "text": text, "label": self.label(n), "attrs": attrs}


def resolve(base: str, raw: str) -> str:
    """`raw` resolved against page `base` (path?query), as path?query#fragment."""
    u = urlsplit(urljoin("http://site" + base, raw))
    return u.path + (f"?{u.query}" if u.query else "") + (f"#{u.fragment}" if u.fragment else "")


def options(select: Node) -> list[Node]:
    return [n for n in select.walk() if n.tag == "option"]


def _role(n: Node) -> str:
    if n.tag == "a":
        return "link" if "href" in n.attrs else "generic"
    if n.tag == "button":
        return "button"
    if n.tag == "select":
        return "listbox" if "multiple" in n.attrs else "combobox"
    if n.tag == "textarea":
        return "textbox"
    if n.tag == "input":
        t = n.type
        if t in BUTTON_TYPES:
            return "button"
        if t in ("checkbox", "radio"):
            return t
        return {"range": "slider", "number": "spinbutton", "search": "searchbox"}.get(t, "textbox")
    return "generic"


def option_value(o: Node) -> str:
    return o.attrs["value"] if "value" in o.attrs else squash(o.text())
