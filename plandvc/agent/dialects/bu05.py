"""`browser-use-0.5`: the planner's input as browser-use 0.5.0 writes its agent's user message.

From browser-use 0.5.0's own code (read at its tag): `dom/views.py` `DEFAULT_INCLUDE_ATTRIBUTES` and
`clickable_elements_to_string` (attribute values unquoted and cut at 15 characters, a value longer than 5
characters shown once, `role` equal to the tag and aria-label / placeholder / title equal to the text left out,
`[i]<tag attrs>text />`, `*[i]` for an element new since the last look at the same URL, nesting by tabs, the
text outside interactive elements on its own lines), `agent/prompts.py` `AgentMessagePrompt` (tabs, page info,
`[Start of page]` / `... N pixels below ...`, `<agent_state>` with `<user_request>` and `<step_info>` "Step N of
M max possible steps") and `message_manager` (`<sys>Agent initialized</sys>`, `<step_N>` with Evaluation of
Previous Step / Memory / Next Goal / Action Results). Elements are read with 0.5.0's viewport expansion (500 px).

The screenshot (params.yaml `prompt.marks`): 0.5.0's `BrowserProfile.highlight_elements` defaults to True, and
each state step draws its highlights (its DOM script's `highlightElement`: a box per client rect, a colour per
index, the index's label) before it takes the screenshot; with marks on, this dialect draws them with that same
function (marks.js) over the indices of its text, and takes them off after the screenshot.

Where plandvc differs, on purpose: the URL is path?query (a run's host and port are not part of a row); the
date is the site's day without a clock time; there is no file system or todo block (the planner has none);
the planner's reply has no evaluation or next goal, so a step shows its delegation as the next goal and the
specialist's report as its one action result.
"""

from __future__ import annotations

from plandvc.agent.dialects.base import ReadsPage, TurnInput
from plandvc.agent.dialects.page import Node, PageView, cap
from plandvc.agent.messages import Delegation, path_of

INCLUDE = (
    "title", "type", "checked", "name", "role", "value", "placeholder", "data-date-format", "alt",
    "aria-label", "aria-expanded", "data-state", "aria-checked",
)  # fmt: skip
EXPANSION = 500


def text_till_next_clickable(node: Node) -> str:
    """The text of `node`'s subtree that is not inside another highlighted element, lines joined."""
    parts: list[str] = []

    def collect(n: Node) -> None:
        if n is not node and n.tag and n.index is not None:
            return
        if not n.tag:
            parts.append(n.text)
        for c in n.children:
            collect(c)

    collect(node)
    return "\n".join(parts).strip()


def attributes(node: Node, text: str, include: tuple[str, ...] = INCLUDE) -> str:
    """0.5.0's attribute string of a highlighted element."""
    attrs = {k: v.strip() for k, v in node.attrs.items() if k in include and v.strip() != ""}
    ordered = [k for k in include if k in attrs]
    if len(ordered) > 1:
        seen: set[str] = set()
        for k in ordered:
            v = attrs[k]
            if len(v) > 5:
                if v in seen:
                    del attrs[k]
                else:
                    seen.add(v)
    if node.tag == attrs.get("role"):
        del attrs["role"]
    for k in ("aria-label", "placeholder", "title"):
        if attrs.get(k) and attrs[k].strip().lower() == text.strip().lower():
            del attrs[k]
    return " ".join(f"{k}={cap(v, 15)}" for k, v in attrs.items())


def element_lines(root: Node) -> str:
    """`clickable_elements_to_string` of 0.5.0 over the tree."""
    out: list[str] = []

    def visit(n: Node, depth: int) -> None:
        tabs = "\t" * depth
        if n.tag:
            nxt = depth
            if n.index is not None:
                nxt += 1
                text = text_till_next_clickable(n)
                attrs = attributes(n, text)
                line = f"{tabs}{'*' if n.new else ''}[{n.index}]<{n.tag}"
                if attrs:
                    line += f" {attrs}"
                if text:
                    line += ("" if attrs else " ") + f">{text.strip()}"
                elif not attrs:
                    line += " "
                out.append(line + " />")
            for c in n.children:
                visit(c, nxt)
        else:
            if _under_highlight(n):
                return
            p = n.parent
            if p is not None and p.visible and p.top:
                out.append(f"{tabs}{n.text}")

    visit(root, 0)
    return "\n".join(out)


def _under_highlight(n: Node) -> bool:
    p = n.parent
    while p is not None:
        if p.index is not None:
            return True
        p = p.parent
    return False


def browser_state(view: PageView) -> str:
    """The text inside `<browser_state>`: tabs, page info, the interactive elements with their edges."""
    elements = element_lines(view.root)
    (vw, vh), (pw, ph) = view.viewport, view.size
    above, below = max(view.scroll_y, 0), max(ph - (view.scroll_y + vh), 0)
    pages_above, pages_below = above / vh, below / vh
    position = view.scroll_y / max(ph - vh, 1)
    info = (
        f"Page info: {vw}x{vh}px viewport, {pw}x{ph}px total page size, {pages_above:.1f} pages above, "
        f"{pages_below:.1f} pages below, {ph / vh:.1f} total pages, at {position:.0%} of page"
    )
    more = "scroll to see more or extract structured data if you are looking for specific information"
    if elements:
        head = (
            f"... {above} pixels above ({pages_above:.1f} pages) - {more} ..."
            if above > 0
            else "[Start of page]"
        )
        tail = (
            f"... {below} pixels below ({pages_below:.1f} pages) - {more} ..."
            if below > 0
            else "[End of page]"
        )
        elements = f"{head}\n{elements}\n{tail}"
    else:
        elements = "empty page"
    url = path_of(view.url)
    state = (
        f"Current tab: 0\nAvailable tabs:\nTab 0: {url} - {view.title[:30]}\n\n{info}\n"
        f"Interactive elements from top layer of the current page inside the viewport:\n{elements}\n"
    )
    return state.strip("\n")


def history_item(n: int, d: Delegation) -> str:
    """One earlier step as 0.5.0's HistoryItem writes it."""
    body = "\n".join(
        [
            "Evaluation of Previous Step: ",
            f"Memory: {d.memory}",
            f"Next Goal: Delegate to {d.family}: {d.instruction}",
            f"Action Results:\nAction 1/1: {d.report}",
        ]
    )
    return f"<step_{n}>\n{body}\n</step_{n}>"


class BrowserUse05(ReadsPage):
    """browser-use 0.5.0's user message, its page read by page.js."""

    name: str = "browser-use-0.5"
    attributes: tuple[str, ...] = INCLUDE

    mode, expansion, first = "bu05", EXPANSION, 0
    draws_marks = True  # 0.5.0's highlight_elements defaults to True: its screenshot carries the marks

    def text(self, t: TurnInput) -> str:
        assert t.view is not None
        items = [
            "<sys>\nAgent initialized\n</sys>",
            *(history_item(n, d) for n, d in enumerate(t.history, 1)),
        ]
        state = (
            f"<user_request>\n{t.request}\n</user_request>\n"
            f"<step_info>\nStep {t.step} of {t.max_turns} max possible steps\nCurrent date and time: {t.today}\n</step_info>"
        )
        return (
            "<agent_history>\n" + "\n".join(items) + "\n</agent_history>\n"
            "<agent_state>\n" + state + "\n</agent_state>\n"
            "<browser_state>\n" + browser_state(t.view) + "\n</browser_state>"
        )
