"""The page as browser-use's serializers read it: one evaluate of `page.js` on the session's page, as a tree.

The snapshot (plandvc.browser.snapshot) stays what the replayer and the specialists read; the browser-use
dialects read this instead, so the planner never sees plandvc's own hooks (data-control-id, data-home, the
href with its query). Its rules follow browser-use's own code (0.5.0's dom_tree/index.js, 0.13.14's
ClickableElementDetector), written anew here; tests/test_dialect_conformance.py compares the lines. For
browser-use-0.13, `capture` also reads what 0.13.14 reads over CDP (cdp.py) and joins it to the tree by each
node's key: the paint-order filter, the accessibility properties, live values, and 0.13.14's page stats.

With marks (browser-use-0.5, `prompt.marks`), the same evaluate also draws browser-use 0.5.0's highlights
(marks.js, its own highlightElement) over the elements it numbered; `unmark` takes them off again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import NotRequired, Protocol, TypedDict

from plandvc.agent.dialects import cdp

PAGE_JS = Path(__file__).with_name("page.js").read_text()
# browser-use 0.5.0's highlightElement (marks.js) handed to page.js, which draws the marks after its walk: the
# one evaluate of a marked turn (a plain turn evaluates PAGE_JS alone, as before)
MARKS_JS = Path(__file__).with_name("marks.js").read_text()
MARKED_PAGE_JS = f"(arg) => (\n{PAGE_JS}\n)({{...arg, draw: (\n{MARKS_JS}\n)}})"
# browser-use 0.5.0's remove_highlights (browser/session.py), and the cleanups its highlightElement stored
# (0.5.0 leaves those scroll/resize listeners behind; plandvc takes them away so the page is as before)
UNMARK_JS = """() => {
  const container = document.getElementById('playwright-highlight-container');
  if (container) container.remove();
  document.querySelectorAll('[browser-user-highlight-id^="playwright-highlight-"]').forEach((el) => {
    el.removeAttribute('browser-user-highlight-id');
  });
  for (const fn of window._highlightCleanupFunctions || []) fn();
  delete window._highlightCleanupFunctions;
}"""


class _Evaluates(Protocol):
    async def evaluate(self, expression: str, arg: object = None) -> object: ...


class NodeJS(TypedDict, total=False):
    """A node as page.js reports it: a text node has only `text`."""

    text: str
    tag: str
    attrs: dict[str, str]
    vis: bool
    top: bool
    view: bool
    hi: bool
    ex: bool
    key: str
    live: dict[str, str]
    kids: list[NodeJS]


class PageJS(TypedDict):
    """page.js's result: the body's tree, the page's counts and sizes, and how many marks it drew (if asked)."""

    url: str
    title: str
    root: NodeJS
    counts: dict[str, int]
    page: dict[str, int]
    marks: NotRequired[int]


@dataclass
class Node:
    """An element (`tag` set) or a text node (`text` set) of the page, its parent linked."""

    tag: str = ""
    text: str = ""
    attrs: dict[str, str] = field(default_factory=dict)
    visible: bool = False
    top: bool = False
    in_view: bool = False
    highlighted: bool = False
    key: str = ""
    live: dict[str, str] = field(default_factory=dict)
    children: list[Node] = field(default_factory=list)
    parent: Node | None = None
    index: int | None = None  # the highlight index, numbered in document order from `first`
    new: bool = False
    excluded: bool = False  # inside a link's or button's box (0.13's excluded_by_parent): no line of its own
    facts: cdp.Facts | None = None  # what 0.13 reads over CDP (bu13 only)
    covered: bool = False  # painted over by opaque boxes (0.13's ignored_by_paint_order)

    @classmethod
    def of(cls, d: NodeJS, parent: Node | None = None) -> Node:
        node = cls(
            tag=d.get("tag", ""),
            text=d.get("text", ""),
            attrs={k: "" if v is None else str(v) for k, v in d.get("attrs", {}).items()},
            visible=d.get("vis", False),
            top=d.get("top", False),
            in_view=d.get("view", False),
            highlighted=d.get("hi", False),
            excluded=d.get("ex", False),
            key=d.get("key", ""),
            live=dict(d.get("live", {})),
            parent=parent,
        )
        node.children = [cls.of(k, node) for k in d.get("kids", [])]
        return node

    def walk(self) -> list[Node]:
        """This node and its descendants in document order."""
        out = [self]
        for c in self.children:
            out += c.walk()
        return out


@dataclass
class PageView:
    """What a browser-use dialect reads of the page: the tree (indexed), the URL, title, counts and sizes."""

    url: str
    title: str
    root: Node
    counts: dict[str, int]
    viewport: tuple[int, int]
    size: tuple[int, int]
    scroll_y: int

    @property
    def interactive(self) -> list[Node]:
        return [n for n in self.root.walk() if n.index is not None]


async def capture(page: _Evaluates, mode: str, expansion: int, first: int, marks: bool = False) -> PageView:
    """The page read by page.js in `mode` ("bu05", "bu13"), highlighted elements numbered from `first`; with
    `marks`, the same evaluate draws browser-use 0.5.0's marks over them (take them away with `unmark`)."""
    if marks:
        args = {"mode": mode, "expansion": expansion, "first": first}
        raw = await page.evaluate(MARKED_PAGE_JS, args)
    else:
        raw = await page.evaluate(PAGE_JS, {"mode": mode, "expansion": expansion})
    d: PageJS = raw  # type: ignore[assignment]
    root = Node.of(d["root"])
    if mode == "bu13":  # what 0.13 reads over CDP: boxes, paint order, live values, the accessibility tree
        read = await cdp.read(page)  # type: ignore[arg-type]
        nodes = root.walk()
        for node in nodes:
            node.facts = read.facts.get(node.key)
        st = read.stats  # 0.13.14's counts over its own tree
        d["counts"] = {"links": st.links, "images": st.images, "iframes": st.iframes, "elements": st.total,
                       "shadow_open": st.shadow_open, "shadow_closed": st.shadow_closed}  # fmt: skip
        cdp.paint_order([x for x in nodes if x.tag or len(x.text) > 1])
        for node in nodes:
            node.highlighted = node.highlighted and not node.covered
    n = first
    for node in root.walk():
        if node.highlighted:
            node.index, n = n, n + 1
    if marks and d.get("marks") != n - first:
        await unmark(page)
        raise RuntimeError(
            f"page.js drew {d.get('marks')} marks on {d['url']} for {n - first} indexed elements"
        )
    p = d["page"]
    return PageView(
        url=d["url"],
        title=d["title"],
        root=root,
        counts=dict(d["counts"]),
        viewport=(p["vw"], p["vh"]),
        size=(p["pw"], p["ph"]),
        scroll_y=p["sy"],
    )


async def unmark(page: _Evaluates) -> None:
    """Take browser-use 0.5.0's marks off the page (the page as it was before `capture(..., marks=True)`)."""
    await page.evaluate(UNMARK_JS)


def cap(text: str, n: int) -> str:
    """browser-use's cap_text_length: the first `n` characters and "..." when longer."""
    return text[:n] + "..." if len(text) > n else text


def mark(view: PageView, last: tuple[str, set[str]] | None) -> None:
    """browser-use's `*[i]`: on the same URL as the last look, the elements it did not have then are new."""
    if last is None or last[0] != view.url:
        return
    for n in view.interactive:
        n.new = n.key not in last[1]
