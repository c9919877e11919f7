"""What browser-use 0.13.14's DomService reads over CDP and page.js cannot: the DOM snapshot (layout bounds,
paint order, the computed styles it asks for, the live value of a field) and the accessibility tree's
properties, read through the Playwright page's own CDP session and joined to page.js's nodes by their key.

From 0.13.14's own code (its wheel): `dom/service.py` (`DOMSnapshot.captureSnapshot` with
`REQUIRED_COMPUTED_STYLES`, paint order and DOM rects; `Accessibility.getFullAXTree`; a field's snapshot value
and checked state over its attributes), `dom/enhanced_snapshot.py` (the first layout entry of a node, a
password, file or hidden input's value never read) and `dom/serializer/paint_order.py` (`PaintOrderRemover`:
from the highest paint order down, a node whose box the opaque boxes painted above it cover is ignored).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol, TypedDict, cast

# dom/enhanced_snapshot.py REQUIRED_COMPUTED_STYLES, in its order (a style's place is its index)
STYLES = (
    "display", "visibility", "opacity", "overflow", "overflow-x", "overflow-y", "cursor", "pointer-events",
    "position", "background-color",
)  # fmt: skip
_SENSITIVE_TYPES = frozenset({"password", "file", "hidden"})
_SENSITIVE_AUTOCOMPLETE = ("cc-", "one-time-code")
AxValue = str | int | float | bool | None


@dataclass(frozen=True)
class Box:
    """A layout box in CSS pixels (the snapshot's bounds)."""

    x: float
    y: float
    width: float
    height: float


@dataclass(frozen=True)
class Option:
    """An option of a select, as 0.13.14's `_extract_select_options` reads it: its direct text and value."""

    text: str
    value: str


@dataclass
class Facts:
    """One node's facts from CDP: its box, paint order and styles, a field's live value and checked state,
    its accessibility node's properties (in CDP's order), role and whether it has accessibility children, and
    a select's options."""

    box: Box | None = None
    paint_order: int | None = None
    styles: dict[str, str] = field(default_factory=dict)
    input_value: str | None = None
    input_checked: bool | None = None
    ax_props: list[tuple[str, AxValue]] = field(default_factory=list)
    ax_role: str | None = None
    ax_children: bool = False
    options: list[Option] = field(default_factory=list)


class _Rare(TypedDict):
    index: list[int]
    value: list[int]


class _RareBool(TypedDict):
    index: list[int]


class _Nodes(TypedDict, total=False):
    """DOMSnapshot's NodeTreeSnapshot, the arrays read here."""

    parentIndex: list[int]
    nodeType: list[int]
    nodeName: list[int]
    nodeValue: list[int]
    backendNodeId: list[int]
    attributes: list[list[int]]
    pseudoType: _Rare
    inputValue: _Rare
    textValue: _Rare
    inputChecked: _RareBool


class _Layout(TypedDict, total=False):
    """DOMSnapshot's LayoutTreeSnapshot, the arrays read here."""

    nodeIndex: list[int]
    bounds: list[list[float]]
    styles: list[list[int]]
    paintOrders: list[int]
    clientRects: list[list[float]]
    scrollRects: list[list[float]]


class _Document(TypedDict):
    nodes: _Nodes
    layout: _Layout


class _Capture(TypedDict):
    documents: list[_Document]
    strings: list[str]


class _AXValue(TypedDict, total=False):
    value: AxValue


class _AXProperty(TypedDict):
    name: str
    value: _AXValue


class _AXNode(TypedDict, total=False):
    backendDOMNodeId: int
    properties: list[_AXProperty]
    role: _AXValue
    childIds: list[str]


class _AXTree(TypedDict):
    nodes: list[_AXNode]


class _DomNode(TypedDict, total=False):
    """DOM.getDocument's Node (depth -1, pierce: shadow roots, user-agent ones too)."""

    nodeType: int
    nodeName: str
    nodeValue: str
    backendNodeId: int
    attributes: list[str]
    children: list[_DomNode]
    shadowRoots: list[_DomNode]
    shadowRootType: str
    isScrollable: bool
    frameId: str


class _DomDocument(TypedDict):
    root: _DomNode


class _CDPSession(Protocol):
    async def send(self, method: str, params: dict[str, object] | None = None) -> dict[str, object]: ...

    async def detach(self) -> None: ...


class _Context(Protocol):
    async def new_cdp_session(self, page: object) -> _CDPSession: ...


class _Page(Protocol):
    @property
    def context(self) -> _Context: ...


@dataclass
class _Snapshot:
    """The main document of a DOMSnapshot: its arrays, with each node's children in document order."""

    strings: list[str]
    nodes: _Nodes
    children: dict[int, list[int]]

    def name(self, i: int) -> str:
        return self.strings[self.nodes["nodeName"][i]]

    def kind(self, i: int) -> int:
        return self.nodes["nodeType"][i]

    def value(self, i: int) -> str:
        v = self.nodes["nodeValue"][i]
        return self.strings[v] if v >= 0 else ""

    def attrs(self, i: int) -> dict[str, str]:
        flat = self.nodes.get("attributes", [])[i]
        return {self.strings[flat[j]]: self.strings[flat[j + 1]] for j in range(0, len(flat), 2)}


def _rare(data: _Rare | None) -> dict[int, int]:
    """A rare-string array of the snapshot as {node index: string index}."""
    return {} if data is None else dict(zip(data["index"], data["value"], strict=False))


def _keys(snap: _Snapshot) -> dict[int, str]:
    """Each light-DOM element and non-blank text node under the body keyed as page.js keys it: `tag[i]` steps
    from the body (i counts the same tag among the element's siblings), a text node as `<parent>/#text[j]`."""
    pseudo = set(_rare(snap.nodes.get("pseudoType")))
    body = next(
        (i for i in range(len(snap.nodes["nodeName"])) if snap.name(i) == "BODY" and snap.kind(i) == 1), None
    )
    out: dict[int, str] = {}
    if body is None:
        return out

    def visit(i: int, key: str) -> None:
        same: dict[str, int] = defaultdict(int)
        texts = 0
        for c in snap.children.get(i, []):
            if c in pseudo:
                continue
            if snap.kind(c) == 1:
                tag = snap.name(c).lower()
                same[tag] += 1
                ck = f"{key}/{tag}[{same[tag]}]" if key else f"{tag}[{same[tag]}]"
                out[c] = ck
                visit(c, ck)
            elif snap.kind(c) == 3 and snap.value(c).strip():
                texts += 1
                out[c] = f"{key}/#text[{texts}]"

    visit(body, "")
    return out


def _options(snap: _Snapshot, select: int) -> list[Option]:
    """`_extract_select_options`: every option below the select (through optgroups and other wrappers), its
    direct text nodes joined, its value attribute or else its text."""
    out: list[Option] = []

    def visit(i: int) -> None:
        if snap.kind(i) != 1:
            return
        if snap.name(i).lower() == "option":
            text = "".join(
                snap.value(c).strip() + " "
                for c in snap.children.get(i, [])
                if snap.kind(c) == 3 and snap.value(c)
            ).strip()
            value = snap.attrs(i).get("value", "").strip() or text
            if text or value:
                out.append(Option(text, value))
            return
        for c in snap.children.get(i, []):
            visit(c)

    for c in snap.children.get(select, []):
        visit(c)
    return out


@dataclass(frozen=True)
class PageStats:
    """0.13.14's `<page_stats>` counts over its simplified tree (but the interactive count, which is the
    dialect's own): links, iframes, images, shadow hosts (open, closed) and every node of the tree."""

    links: int = 0
    iframes: int = 0
    images: int = 0
    shadow_open: int = 0
    shadow_closed: int = 0
    total: int = 0


@dataclass(frozen=True)
class CdpPage:
    """What one look reads over CDP: each keyed node's facts, and the page's stats."""

    facts: dict[str, Facts]
    stats: PageStats


async def read(page: _Page) -> CdpPage:
    """The facts of every keyed node of the page's main document and its stats, read over a CDP session of
    its own."""
    session = await page.context.new_cdp_session(page)
    try:
        dom = cast(_DomDocument, await session.send("DOM.getDocument", {"depth": -1, "pierce": True}))
        raw = cast(
            _Capture,
            await session.send(
                "DOMSnapshot.captureSnapshot",
                {
                    "computedStyles": list(STYLES),
                    "includePaintOrder": True,
                    "includeDOMRects": True,
                    "includeBlendedBackgroundColors": False,
                    "includeTextColorOpacities": False,
                },
            ),
        )
        ax = cast(_AXTree, await session.send("Accessibility.getFullAXTree"))
        ratio = await session.send(
            "Runtime.evaluate", {"expression": "window.devicePixelRatio", "returnByValue": True}
        )
    finally:
        await session.detach()
    result = ratio.get("result")
    dpr = float(result.get("value", 1) or 1) if isinstance(result, dict) else 1.0
    return CdpPage(facts_of(raw, ax, dpr), stats_of(dom["root"], raw, dpr))


def facts_of(raw: _Capture, ax: _AXTree, dpr: float) -> dict[str, Facts]:
    """The snapshot's and the accessibility tree's facts by page.js key (boxes in CSS pixels: divided by the
    device pixel ratio, as 0.13.14 does)."""
    strings = raw["strings"]
    doc = raw["documents"][0]
    nodes, layout = doc["nodes"], doc["layout"]
    children: dict[int, list[int]] = defaultdict(list)
    for i, p in enumerate(nodes["parentIndex"]):
        if p >= 0:
            children[p].append(i)
    snap = _Snapshot(strings, nodes, children)
    keys = _keys(snap)
    facts: dict[int, Facts] = {i: Facts() for i in keys}
    first: dict[int, int] = {}
    for li, ni in enumerate(layout.get("nodeIndex", [])):
        first.setdefault(ni, li)
    bounds, styles, orders = layout.get("bounds", []), layout.get("styles", []), layout.get("paintOrders", [])
    for i, f in facts.items():
        if i not in first:
            continue
        li = first[i]
        if li < len(bounds) and len(bounds[li]) >= 4:
            b = bounds[li]
            f.box = Box(b[0] / dpr, b[1] / dpr, b[2] / dpr, b[3] / dpr)
        if li < len(styles):
            f.styles = {
                STYLES[k]: strings[x]
                for k, x in enumerate(styles[li])
                if k < len(STYLES) and 0 <= x < len(strings)
            }
        f.paint_order = orders[li] if li < len(orders) else None
    values = {**_rare(nodes.get("inputValue")), **_rare(nodes.get("textValue"))}
    checked_data = nodes.get("inputChecked")
    checked = None if checked_data is None else set(checked_data["index"])
    for i, f in facts.items():
        if snap.kind(i) != 1:
            continue
        tag = snap.name(i).upper()
        if tag in ("INPUT", "TEXTAREA"):
            attrs = snap.attrs(i)
            sensitive = attrs.get("type", "").lower() in _SENSITIVE_TYPES or attrs.get(
                "autocomplete", ""
            ).lower().startswith(_SENSITIVE_AUTOCOMPLETE)
            if i in values and not sensitive and 0 <= values[i] < len(strings):
                f.input_value = strings[values[i]]
            if checked is not None:
                f.input_checked = i in checked
        if tag == "SELECT":
            f.options = _options(snap, i)
    by_backend = {nodes["backendNodeId"][i]: i for i in keys}
    for n in ax["nodes"]:
        j = by_backend.get(n.get("backendDOMNodeId", -1))
        if j is None:
            continue
        f = facts[j]
        f.ax_props = [(p["name"], p.get("value", {}).get("value")) for p in n.get("properties", [])]
        f.ax_role = cast(str | None, n.get("role", {}).get("value"))
        f.ax_children = bool(n.get("childIds"))
    return {keys[i]: f for i, f in facts.items()}


@dataclass(frozen=True)
class _Rect:
    x1: float
    y1: float
    x2: float
    y2: float

    def intersects(self, o: _Rect) -> bool:
        return not (self.x2 <= o.x1 or o.x2 <= self.x1 or self.y2 <= o.y1 or o.y2 <= self.y1)

    def contains(self, o: _Rect) -> bool:
        return self.x1 <= o.x1 and self.y1 <= o.y1 and self.x2 >= o.x2 and self.y2 >= o.y2


def _split(a: _Rect, b: _Rect) -> list[_Rect]:
    """a minus b (they intersect) as up to four rectangles, 0.13.14's `_split_diff`."""
    parts = []
    if a.y1 < b.y1:
        parts.append(_Rect(a.x1, a.y1, a.x2, b.y1))
    if b.y2 < a.y2:
        parts.append(_Rect(a.x1, b.y2, a.x2, a.y2))
    lo, hi = max(a.y1, b.y1), min(a.y2, b.y2)
    if a.x1 < b.x1:
        parts.append(_Rect(a.x1, lo, b.x1, hi))
    if b.x2 < a.x2:
        parts.append(_Rect(b.x2, lo, a.x2, hi))
    return parts


class _Union:
    """A disjoint set of rectangles, 0.13.14's `RectUnionPure` (its cap of 5,000 rectangles too)."""

    CAP = 5000

    def __init__(self) -> None:
        self.rects: list[_Rect] = []

    def contains(self, r: _Rect) -> bool:
        if not self.rects:
            return False
        stack = [r]
        for s in self.rects:
            nxt: list[_Rect] = []
            for piece in stack:
                if s.contains(piece):
                    continue
                nxt.extend(_split(piece, s) if piece.intersects(s) else [piece])
            if not nxt:
                return True
            stack = nxt
        return False

    def add(self, r: _Rect) -> None:
        if len(self.rects) >= self.CAP or self.contains(r):
            return
        pending = [r]
        for s in self.rects:
            pending = [q for piece in pending for q in (_split(piece, s) if piece.intersects(s) else [piece])]
        self.rects.extend(pending)


class Painted(Protocol):
    """What the paint-order filter reads and sets of a page node (`plandvc.agent.dialects.page.Node`)."""

    facts: Facts | None
    covered: bool


def paint_order(nodes: Sequence[Painted]) -> None:
    """`PaintOrderRemover.calculate_paint_order` over the nodes (in document order): a node whose box is
    covered by the boxes of opaque nodes painted above it is ignored (`Node.covered`)."""
    groups: dict[int, list[Painted]] = defaultdict(list)
    for n in nodes:
        if n.facts is not None and n.facts.paint_order is not None and n.facts.box is not None:
            groups[n.facts.paint_order].append(n)
    union = _Union()
    for _, group in sorted(groups.items(), key=lambda g: -g[0]):
        adds = []
        for n in group:
            assert n.facts is not None and n.facts.box is not None
            b = n.facts.box
            rect = _Rect(b.x, b.y, b.x + b.width, b.y + b.height)
            if union.contains(rect):
                n.covered = True
            st = n.facts.styles
            if st and (
                st.get("background-color", "rgba(0, 0, 0, 0)") == "rgba(0, 0, 0, 0)"
                or float(st.get("opacity", "1")) < 0.8
            ):
                continue
            adds.append(rect)
        for rect in adds:
            union.add(rect)


# dom/serializer/serializer.py: elements the simplified tree never holds (SVG_ELEMENTS as 0.13.14 compares them:
# the lower-cased tag against this set, so `clipPath` is never matched)
DISABLED = frozenset({"style", "script", "head", "meta", "link", "title"})
SVG_PARTS = frozenset(
    {"path", "rect", "g", "circle", "ellipse", "line", "polyline", "polygon", "use", "defs", "clipPath", "mask",
     "pattern", "image", "text", "tspan"}
)  # fmt: skip
THRESHOLD = 1000  # DomService's viewport_threshold (px beyond the viewport, above and below)


@dataclass(frozen=True)
class _Layout1:
    """One node's layout as 0.13.14's snapshot lookup keeps it (its first layout entry)."""

    box: Box | None
    styles: dict[str, str]
    client: list[float] | None
    scroll: list[float] | None


def _layouts(raw: _Capture, dpr: float) -> dict[int, _Layout1]:
    """Every laid-out node of the main document by backend node id."""
    strings = raw["strings"]
    doc = raw["documents"][0]
    nodes, layout = doc["nodes"], doc["layout"]
    out: dict[int, _Layout1] = {}
    bounds, styles = layout.get("bounds", []), layout.get("styles", [])
    clients, scrolls = layout.get("clientRects", []), layout.get("scrollRects", [])
    for li, ni in enumerate(layout.get("nodeIndex", [])):
        backend = nodes["backendNodeId"][ni]
        if backend in out:
            continue
        b = bounds[li] if li < len(bounds) else []
        st = styles[li] if li < len(styles) else []
        c = clients[li] if li < len(clients) and len(clients[li]) >= 4 else None
        r = scrolls[li] if li < len(scrolls) and len(scrolls[li]) >= 4 else None
        out[backend] = _Layout1(
            Box(b[0] / dpr, b[1] / dpr, b[2] / dpr, b[3] / dpr) if len(b) >= 4 else None,
            {STYLES[k]: strings[x] for k, x in enumerate(st) if k < len(STYLES) and 0 <= x < len(strings)},
            c,
            r,
        )
    return out


def _visible(lay: _Layout1 | None, html: _Layout1 | None, is_html: bool) -> bool:
    """`is_element_visible_according_to_all_parents` in the main frame: shown by its styles, laid out, and
    (but the html element itself) within the viewport widened by THRESHOLD above and below."""
    if lay is None:
        return False
    st = lay.styles
    if st.get("display", "").lower() == "none" or st.get("visibility", "").lower() == "hidden":
        return False
    try:
        if float(st.get("opacity", "1")) <= 0:
            return False
    except ValueError:
        pass
    if lay.box is None:
        return False
    if is_html or html is None or html.scroll is None or html.client is None:
        return True
    x, y = lay.box.x - html.scroll[0], lay.box.y - html.scroll[1]
    return (
        x < html.client[2]
        and x + lay.box.width > 0
        and y < html.client[3] + THRESHOLD
        and (y + lay.box.height > -THRESHOLD)
    )


def _scrollable(n: _DomNode, lay: _Layout1 | None) -> bool:
    """`is_actually_scrollable`: CDP says so, or its content overflows a box whose overflow lets it scroll."""
    if n.get("isScrollable"):
        return True
    if lay is None or lay.scroll is None or lay.client is None:
        return False
    if not (lay.scroll[3] > lay.client[3] + 1 or lay.scroll[2] > lay.client[2] + 1):
        return False
    if lay.styles:
        o = lay.styles.get("overflow", "visible").lower()
        ox, oy = lay.styles.get("overflow-x", o).lower(), lay.styles.get("overflow-y", o).lower()
        return any(v in ("auto", "scroll", "overlay") for v in (o, ox, oy))
    return n.get("nodeName", "").lower() in {"div", "main", "section", "article", "aside", "body", "html"}


@dataclass
class _Simple:
    node: _DomNode
    host: bool = False
    kids: list[_Simple] = field(default_factory=list)


def stats_of(root: _DomNode, raw: _Capture, dpr: float) -> PageStats:
    """0.13.14's page stats: its simplified tree built (`_create_simplified_tree`, then `_optimize_tree`) over
    the pierced DOM with the snapshot's layout, and counted (`_extract_page_statistics`)."""
    layouts = _layouts(raw, dpr)
    html: list[_Layout1 | None] = [None]

    def lay(n: _DomNode) -> _Layout1 | None:
        return layouts.get(n.get("backendNodeId", -1))

    def vis(n: _DomNode) -> bool:
        return _visible(lay(n), html[0], n.get("nodeName") == "HTML")

    def below(n: _DomNode) -> list[_DomNode]:
        return [*n.get("shadowRoots", []), *n.get("children", [])]

    def create(n: _DomNode) -> _Simple | None:
        kind, name = n.get("nodeType", 0), n.get("nodeName", "")
        if kind == 9:
            for c in below(n):
                got = create(c)
                if got:
                    return got
            return None
        if kind == 11:
            return _Simple(n, kids=[k for c in below(n) if (k := create(c))])
        if kind == 1:
            if name.lower() in DISABLED or name.lower() in SVG_PARTS:
                return None
            attrs = dict(zip(n.get("attributes", [])[::2], n.get("attributes", [])[1::2], strict=False))
            if attrs.get("data-browser-use-exclude", "").lower() == "true":
                return None
            if name == "HTML":
                html[0] = lay(n)
            shown, scrolls = vis(n), _scrollable(n, lay(n))
            host = any(c.get("nodeType") == 11 for c in below(n))
            if not shown and any(a.startswith(("aria-", "pseudo")) for a in attrs):
                shown = True
            if not shown and name.lower() == "input" and attrs.get("type") == "file":
                shown = True
            if shown or scrolls or below(n) or host:
                s = _Simple(n, host, [k for c in below(n) if (k := create(c))])
                if (host and s.kids) or shown or scrolls or s.kids:
                    return s
            return None
        if kind == 3 and vis(n) and len(n.get("nodeValue", "").strip()) > 1:
            return _Simple(n)
        return None

    def optimize(s: _Simple) -> _Simple | None:
        s.kids = [k for c in s.kids if (k := optimize(c))]
        n = s.node
        attrs = dict(zip(n.get("attributes", [])[::2], n.get("attributes", [])[1::2], strict=False))
        file_input = n.get("nodeName", "").lower() == "input" and attrs.get("type") == "file"
        if vis(n) or _scrollable(n, lay(n)) or n.get("nodeType") == 3 or s.kids or file_input:
            return s
        return None

    top = create(root)
    tree = optimize(top) if top else None
    counts = {"links": 0, "iframes": 0, "images": 0, "open": 0, "closed": 0, "total": 0}

    def count(s: _Simple) -> None:
        counts["total"] += 1
        if s.node.get("nodeType") == 1:
            tag = s.node.get("nodeName", "").lower()
            counts["links"] += tag == "a"
            counts["iframes"] += tag in ("iframe", "frame")
            counts["images"] += tag == "img"
            if s.host:
                closed = any(
                    k.node.get("nodeType") == 11 and k.node.get("shadowRootType", "").lower() == "closed"
                    for k in s.kids
                )
                counts["closed" if closed else "open"] += 1
        for k in s.kids:
            count(k)

    if tree is not None:
        count(tree)
    return PageStats(
        counts["links"],
        counts["iframes"],
        counts["images"],
        counts["open"],
        counts["closed"],
        counts["total"],
    )
