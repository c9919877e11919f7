"""`browser-use-0.13`: the planner's input as browser-use 0.13.14 (the current release) writes its agent's user
message. The conformance test (tests/test_dialect_conformance.py) holds the whole page block equal to 0.13.14's
own on 33 pages of the world: 7,118 of 7,118 lines, its screenshot 0 pixels different.

From browser-use 0.13.14's own code (its wheel): `dom/views.py` `DEFAULT_INCLUDE_ATTRIBUTES`,
`dom/serializer/serializer.py` `serialize_tree`, `_build_attributes_string` and `_add_compound_components`
(`[i]<tag attrs />` with the element's text on its own lines one tab deeper, every visible text of more than
one character on its own line unless painted over, depth growing only under interactive elements; values
unquoted and cut at 100 characters, an empty one as `key=''`; the accessibility tree's properties and a field's
value from it, a field's live value and checked state from the DOM snapshot; a value longer than 5 characters
shown once unless protected; `type` equal to the tag left out; a date input's `format` and placeholder; a range,
number, select... control's `compound_components=`, starred as new), `dom/serializer/paint_order.py` (what
opaque boxes painted above cover is neither numbered nor shown), `agent/prompts.py` (`<user_request>` first,
`<page_stats>` counted over 0.13.14's own tree, Current tab / Available tabs, `<page_info>`, "Interactive
elements:" cut at 40,000 characters, `[Start of page]` / `[End of page]`, `<step_info>StepN
maximum:M\nToday:...</step_info>` last) and `message_manager` ("Agent initialized", then `<step>` with bare
lines and "Result"). Elements are read within 0.13.14's viewport threshold (1000 px), in its 1920x1080 headless
viewport. page.js reads the DOM and the clickable rules; cdp.py what 0.13.14 reads over CDP.

Where plandvc differs, on purpose: indices count from 1 in document order (0.13.14 shows CDP backend node ids,
which differ between browser runs); the tab id is "0000"; the URL is path?query; no file system, todo or
`<agent_state>` (the planner has none); the planner's reply has no evaluation or next goal, so a step shows its
memory, its delegation and the report.
"""

from __future__ import annotations

from plandvc.agent.dialects.base import ReadsPage, TurnInput
from plandvc.agent.dialects.cdp import AxValue
from plandvc.agent.dialects.page import Node, PageView, cap
from plandvc.agent.messages import Delegation, path_of

INCLUDE = (
    "title", "type", "checked", "id", "name", "role", "value", "placeholder", "data-date-format", "alt",
    "aria-label", "aria-expanded", "data-state", "aria-checked", "aria-valuemin", "aria-valuemax",
    "aria-valuenow", "aria-placeholder", "pattern", "min", "max", "minlength", "maxlength", "step", "accept",
    "multiple", "inputmode", "autocomplete", "aria-autocomplete", "list", "data-mask", "data-inputmask",
    "data-datepicker", "format", "expected_format", "contenteditable", "pseudo", "selected", "expanded",
    "pressed", "disabled", "invalid", "valuemin", "valuemax", "valuenow", "keyshortcuts", "haspopup",
    "multiselectable", "required", "valuetext", "level", "busy", "live", "ax_name",
)  # fmt: skip
THRESHOLD = 1000
MAX_ELEMENTS = 40000
_FORMATS = {
    "date": "YYYY-MM-DD",
    "time": "HH:MM",
    "datetime-local": "YYYY-MM-DDTHH:MM",
    "month": "YYYY-MM",
    "week": "YYYY-W##",
}
_PROTECTED = {"format", "expected_format", "placeholder", "value", "aria-label", "title"}


def _ax_text(v: AxValue) -> str:
    """An accessibility property's value as 0.13.14 writes it: a boolean in lower case, the rest stripped."""
    return str(v).lower() if isinstance(v, bool) else str(v).strip()


def html_attributes(node: Node) -> dict[str, str]:
    """The element's attributes as 0.13.14's DomService gives them: a field's live value (the snapshot's,
    never a password's, file's or hidden input's) over its `value`, and a checkbox's or radio's checked state
    as `checked=true` or no `checked`."""
    attrs = dict(node.attrs)
    f = node.facts
    if f is not None and node.tag in ("input", "textarea"):
        if f.input_value is not None:
            attrs["value"] = f.input_value
        if f.input_checked is not None:
            if f.input_checked:
                attrs["checked"] = "true"
            else:
                attrs.pop("checked", None)
    return attrs


def attributes(node: Node, include: tuple[str, ...] = INCLUDE) -> str:
    """0.13.14's `_build_attributes_string` of an element (its text is never compared: the serializer passes
    ''): the included HTML attributes, a date input's format, the accessibility properties, the field's value
    from the accessibility tree, duplicates and defaults left out."""
    attrs = {k: v.strip() for k, v in html_attributes(node).items() if k in include and v.strip() != ""}
    kind = node.attrs.get("type", "").lower()
    if node.tag == "input" and kind in _FORMATS:
        attrs["format"] = _FORMATS[kind]
    if node.tag == "input" and "placeholder" in include and "placeholder" not in attrs:
        if kind in _FORMATS:
            attrs["placeholder"] = _FORMATS[kind]
        elif kind == "tel" and "pattern" not in attrs:
            attrs["placeholder"] = "123-456-7890"
    password = node.tag == "input" and kind == "password"
    props = node.facts.ax_props if node.facts is not None else []
    for k, v in props:
        if k in include and v is not None and not (password and k in ("value", "valuetext")) and _ax_text(v):
            attrs[k] = _ax_text(v)
    if node.tag in ("input", "textarea", "select"):
        if password:
            attrs.pop("value", None)
        else:
            for k, v in props:
                if k in ("valuetext", "value") and v and str(v).strip():
                    attrs["value"] = str(v).strip()
                    break
    ordered = [k for k in include if k in attrs]
    if len(ordered) > 1:
        seen: set[str] = set()
        for k in ordered:
            v = attrs[k]
            if len(v) > 5:
                if v in seen and k not in _PROTECTED:
                    del attrs[k]
                else:
                    seen.add(v)
    role = node.facts.ax_role if node.facts is not None else None
    if role and (node.tag if node.tag == "svg" else node.tag.upper()) == role:
        del attrs["role"]
    if attrs.get("type", "").lower() == node.tag:
        del attrs["type"]
    if attrs.get("invalid", "").lower() == "false":
        del attrs["invalid"]
    if attrs.get("required", "").lower() in ("false", "0", "no"):
        del attrs["required"]
    if "expanded" in attrs and "aria-expanded" in attrs:
        del attrs["aria-expanded"]
    return " ".join(f"{k}={cap(v, 100)}" if v else f"{k}=''" for k, v in attrs.items())


def _number(v: str | None, default: float | None) -> float | None:
    """`_safe_parse_number`: the value as a float, or the default."""
    try:
        return float(v) if v else default
    except ValueError:
        return default


def _part(
    name: str, role: str, lo: float | None = None, hi: float | None = None, now: str | None = None
) -> str:
    parts = [f"name={name}", f"role={role}"]
    parts += [f"min={lo}"] if lo is not None else []
    parts += [f"max={hi}"] if hi is not None else []
    parts += [f"current={now}"] if now is not None else []
    return f"({','.join(parts)})"


def _select_options(node: Node) -> str:
    """The select's listbox part: its option count, first four options and a format hint."""
    opts = node.facts.options if node.facts is not None else []
    if not opts:
        return _part("Options", "listbox")
    first = [o.text or o.value for o in opts[:4]]
    shown = [t[:30] + ("..." if len(t) > 30 else "") for t in first if t]
    if len(opts) > 4:
        shown.append(f"... {len(opts) - 4} more options...")
    values = [o.value for o in opts]
    hint = ""
    head = [v for v in values[:5] if v]
    if len(values) >= 2:
        if all(v.isdigit() for v in head):
            hint = "numeric"
        elif all(len(v) == 2 and v.isupper() for v in head):
            hint = "country/state codes"
        elif all("/" in v or "-" in v for v in head):
            hint = "date/path format"
        elif any("@" in v for v in head):
            hint = "email addresses"
    extra = f",count={len(opts)}" + (f",options={'|'.join(shown[:4])}" if shown else "")
    extra += f",format={hint}" if hint else ""
    return f"(name=Options,role=listbox{extra})"


def compound(node: Node) -> str:
    """0.13.14's `compound_components=` of a range, number, color or file input, a select, details, audio or
    video (the last four only with accessibility children); '' for any other element."""
    kind = node.attrs.get("type", "") if "type" in node.attrs else ""
    if node.tag == "input":
        if kind == "range":
            return _part("Value", "slider", _number(node.attrs.get("min", "0"), 0.0),
                         _number(node.attrs.get("max", "100"), 100.0))  # fmt: skip
        if kind == "number":
            lo, hi = _number(node.attrs.get("min"), None), _number(node.attrs.get("max"), None)
            return (
                _part("Increment", "button")
                + ","
                + _part("Decrement", "button")
                + ","
                + _part("Value", "textbox", lo, hi)
            )
        if kind == "color":
            return _part("Hex Value", "textbox") + "," + _part("Color Picker", "button")
        if kind == "file":
            now = "None"
            for k, v in node.facts.ax_props if node.facts is not None else []:
                if k == "valuetext" and v:
                    t = str(v).strip()
                    if t and t.lower() not in ("no file chosen", "no file selected"):
                        now = t
                    break
                if k == "value" and v and str(v).strip():
                    now = str(v).strip().replace("\\", "/").split("/")[-1]
                    break
            many = "multiple" in node.attrs
            return _part("Browse Files", "button") + "," + _part(f"{'Files' if many else 'File'} Selected",
                                                                   "textbox", now=now)  # fmt: skip
        return ""
    if (
        node.tag not in ("select", "details", "audio", "video")
        or node.facts is None
        or not node.facts.ax_children
    ):
        return ""
    if node.tag == "select":
        return _part("Dropdown Toggle", "button") + "," + _select_options(node)
    if node.tag == "details":
        return _part("Toggle Disclosure", "button") + "," + _part("Content Area", "region")
    media = [_part("Play/Pause", "button"), _part("Progress", "slider", 0, 100), _part("Mute", "button"),
             _part("Volume", "slider", 0, 100)]  # fmt: skip
    return ",".join(media + ([_part("Fullscreen", "button")] if node.tag == "video" else []))


# the inputs Chromium gives a user-agent shadow root (its text-field, range, date, color and file input types),
# which 0.13's serializer, reading the DOM over CDP, shows as `|SHADOW(open)|` before the element; checkbox and
# radio have none (seen on the conformance pages); a button-like input is left out: not seen there
SHADOW_INPUTS = frozenset(
    {"text", "search", "email", "password", "tel", "url", "number", "date", "datetime-local", "month", "week",
     "time", "range", "color", "file"}
)  # fmt: skip


def shadow_prefix(node: Node) -> str:
    """0.13's `|SHADOW(open)|` of an element that hosts a (user-agent) shadow root: a select, a textarea, a
    text-like, range, date, color or file input."""
    if node.tag in ("select", "textarea"):
        return "|SHADOW(open)|"
    if node.tag == "input" and (node.attrs.get("type") or "text").strip().lower() in SHADOW_INPUTS:
        return "|SHADOW(open)|"
    return ""


def element_lines(root: Node) -> str:
    """`serialize_tree` of 0.13.14 over the tree."""
    out: list[str] = []

    def visit(n: Node, depth: int) -> None:
        nxt = depth
        if n.tag == "svg":  # the tag and its attributes, its content collapsed
            if n.visible and n.in_view and not n.excluded:
                attrs = attributes(n)
                mark = f"{'*' if n.new else ''}[{n.index}]" if n.index is not None else ""
                out.append(
                    f"{chr(9) * depth}{mark}<svg{' ' + attrs if attrs else ''} /> <!-- SVG content collapsed -->"
                )
            return
        if n.tag:
            if n.index is not None:
                nxt += 1
                parts, comp = attributes(n), compound(n)
                if comp:
                    parts = f"{parts} compound_components={comp}".strip()
                star = "*" if n.new or comp else ""  # 0.13.14 stars a compound control always
                out.append(
                    f"{chr(9) * depth}{shadow_prefix(n)}{star}[{n.index}]<{n.tag}{' ' + parts if parts else ''} />"
                )
        else:
            p = n.parent
            if p is not None and p.visible and p.in_view and len(n.text) > 1 and not n.covered:
                out.append(f"{chr(9) * depth}{n.text}")
        for c in n.children:
            visit(c, nxt)

    visit(root, 0)
    return "\n".join(out)


def browser_state(view: PageView) -> str:
    """The text inside `<browser_state>`: page stats, tabs, page info and the elements."""
    c = view.counts
    interactive = len(view.interactive)
    stats = "<page_stats>"
    if c["elements"] < 10:
        stats += "Page appears empty - consider waiting - "
    stats += f"{c['links']} links, {interactive} interactive, {c['iframes']} iframes"
    if c.get("shadow_open") or c.get("shadow_closed"):
        stats += f", {c.get('shadow_open', 0)} shadow(open), {c.get('shadow_closed', 0)} shadow(closed)"
    if c["images"]:
        stats += f", {c['images']} images"
    stats += f", {c['elements']} total elements</page_stats>\n"
    vh, ph = view.viewport[1], view.size[1]
    above, below = max(view.scroll_y, 0) / vh, max(ph - view.scroll_y - vh, 0) / vh
    info = f"<page_info>{above:.1f} pages above, {below:.1f} pages below"
    info += " — scroll down to reveal more content" if below > 0.2 else ""
    info += "</page_info>\n"
    elements, truncated = element_lines(view.root), ""
    if len(elements) > MAX_ELEMENTS:  # 0.13.14's max_clickable_elements_length
        elements, truncated = elements[:MAX_ELEMENTS], f" (truncated to {MAX_ELEMENTS} characters)"
    if elements:
        elements = (
            ("" if above > 0 else "[Start of page]\n") + elements + ("" if below > 0 else "\n[End of page]")
        )
    else:
        elements = "empty page"
    url = path_of(view.url)
    state = (
        f"{stats}Current tab: 0000\nAvailable tabs:\nTab 0000: {url} - {view.title[:30]}\n\n{info}\n"
        f"Interactive elements{truncated}:\n{elements}\n"
    )
    return state.strip("\n")


def history_item(d: Delegation) -> str:
    """One earlier step as 0.13.14's HistoryItem writes it (no closing tag)."""
    return f"<step>\n{d.memory}\nDelegate to {d.family}: {d.instruction}\nResult\n{d.report}"


class BrowserUse13(ReadsPage):
    """browser-use 0.13.14's user message, its page read by page.js and over CDP (cdp.py)."""

    name: str = "browser-use-0.13"
    attributes: tuple[str, ...] = (*INCLUDE, "compound_components")  # the last: a compound control's parts

    mode, expansion, first = "bu13", THRESHOLD, 1
    # 0.13.14's viewport on a machine without a display (BrowserProfile.detect_display_configuration: headless,
    # the screen's 1920x1080, device scale 1); its screenshot is that viewport's PNG, sent unresized (its
    # llm_screenshot_size is set by itself only for Claude Sonnet models)
    viewport = (1920, 1080)

    def text(self, t: TurnInput) -> str:
        assert t.view is not None
        items = "\n".join(["Agent initialized", *(history_item(d) for d in t.history)])
        return (
            f"<user_request>\n{t.request}\n</user_request>\n\n"
            f"<agent_history>\n{items}\n</agent_history>\n\n"
            f"<browser_state>\n{browser_state(t.view)}\n</browser_state>\n"
            f"<step_info>Step{t.step} maximum:{t.max_turns}\nToday:{t.today}</step_info>"
        )
