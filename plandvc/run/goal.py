"""A goal chain's ending, performed live: the Information specialist reads the answer off the list page as the
chain's constraints left it, and its trajectory is what it read (no action, a report and the answer).

The expected answer was computed by chain-specs from the site's query semantics (`plandvc.chains.goals`); the
reading here never sees it. The answer's gate (`goal_check`) compares the two, so a constraint that did not hold
(a filter not applied, a sort the other way) shows another count or another first entry and fails the chain.
- `count`: the number in the list's "Showing N ..." line;
- `top`: the text of the first link to an entry of the list (`<list path>/<id>`), in document order.
An app's goal says where its page shows them (`read`: a selector, and for a count the number's pattern).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from urllib.parse import urlsplit

from plandvc.browser.protocol import SessionProtocol, SessionRecord
from plandvc.checks import Check
from plandvc.macros import FAMILY_OF
from plandvc.records import ChainGoal, ElementDescriptor, GoalStep, ParamValue, ReplyRecord, Trajectory
from plandvc.replay import LivePage, Replayer

_SHOWING = re.compile(r"Showing\s+([\d,]+)")
MACRO = {"count": "count_entries", "top": "report_information"}  # the macro a goal step's turn is counted as


class GoalUnread(Exception):
    """The page does not show what the goal step reads (no count line, no entry link)."""


def goal_check(goal: ChainGoal) -> Check:
    """The goal's gate: the answer given, against the expected one (a number for a count)."""
    return {"kind": "answer", "expected": goal["expected"], "number": goal["kind"] == "count"}


def _is_entry(href: str, page: str) -> bool:
    path = urlsplit(href).path
    rest = path[len(page) + 1 :] if path.startswith(page + "/") else ""
    return bool(rest) and "/" not in rest and rest not in ("new", "create")


def unread_goal(
    goal: ChainGoal, site: str, answer: str | None = None, done: str = "", end: str = ""
) -> Trajectory:
    """A goal step's trajectory: before the reading, none read (`answer` None); after it, what was read."""
    return _unread(MACRO[goal["kind"]], f"goal-{goal['kind']}", site, answer, done, end)


def _unread(
    macro: str, task_id: str, site: str, answer: str | None = None, done: str = "", end: str = ""
) -> Trajectory:
    """A live step's trajectory: no recorded step, and what it read (or None before it is done)."""
    return {
        "answer": answer,
        "done": done,
        "end": end,
        "history_macro": None,
        "macro": macro,
        "site": site,
        "start_kind": "mid_chain",
        "steps": [],
        "task_id": task_id,
    }


async def read_goal(session: SessionProtocol, goal: ChainGoal, site: str) -> Trajectory:
    """What the Information specialist reads for `goal` on the page as it is, as its trajectory."""
    read = goal.get("read")
    if goal["kind"] == "count":
        pattern = re.compile(read["pattern"]) if read is not None and "pattern" in read else _SHOWING
        lines = [t for _, t in await session.read(read["selector"] if read is not None else "p.count")]
        m = next((m for t in lines if (m := pattern.search(t))), None)
        if m is None:
            raise GoalUnread(f"no count ({pattern.pattern}) on {session.url}")
        answer = m.group(1).replace(",", "")
        done = f"The list shows {answer} entries now, so the answer is {answer}."
    else:
        found = await session.read(read["selector"] if read is not None else "main a[href]")
        links = [(h, t) for h, t in found if (read is not None or _is_entry(h, goal["page"])) and t]
        if not links:
            raise GoalUnread(f"no entry of {goal['page']} listed on {session.url}")
        answer = links[0][1]
        done = f"The first entry of the list as it is sorted now is {answer}."
    return unread_goal(goal, site, answer, done, session.url)


# ── the live steps of a goal that uses what is found (plandvc.chains.goal_kinds) ──────────────────────────

# the macro a live step's turn is counted as, and the family it is delegated to
STEP_MACRO = {
    "find": "report_information",
    "open": "open_entry",
    "read": "report_information",
    "copy": "copy_value",
    "delete": "delete_entry",
    "edit": "edit_entry",
    "add": "create_entry",
}
STEP_FAMILY = {"find": "Information", "open": "Navigation", "read": "Information", "copy": "Information"}
FORM_STEPS = ("edit", "add")  # an app's steps done by the form's moves (`GoalStep.moves`)
_NUMBER = re.compile(r"-?[\d,]*\.?\d+")


def step_family(st: GoalStep) -> str:
    """The specialist a live step is delegated to (a delete: the one that deletes entries)."""
    return STEP_FAMILY.get(st["do"]) or FAMILY_OF[STEP_MACRO[st["do"]]]


def unread_step(st: GoalStep, site: str) -> Trajectory:
    """A live step's trajectory before it is done: no step, no answer (`LiveSteps` and `read_step` fill it)."""
    return _unread(STEP_MACRO[st["do"]], f"goal-{st['do']}", site)


async def read_step(session: SessionProtocol, st: GoalStep, site: str) -> Trajectory:
    """What the Information specialist reads for a `find` (the first entry the list shows) or a `read` (one
    field of the entry's page) on the page as it is, as its trajectory."""
    traj = unread_step(st, site)
    where = st.get("read")  # an app's page: its own selector (and a pattern for the value)
    if st["do"] == "find":
        found = await session.read(where["selector"] if where is not None else "main a[href]")
        links = [
            (h, t) for h, t in found
            if (t.strip() if where is not None else _is_entry(h, st["page"]) and t)
        ]  # fmt: skip
        if not links:
            raise GoalUnread(f"no entry of {st['page']} listed on {session.url}")
        answer = links[0][1].strip()
        traj["done"] = f'The first entry the list shows now is "{answer}".'
    else:
        field = st.get("field", "")
        selector = where["selector"] if where is not None else f'dl.fields dd[data-field="{field}"]'
        got = [t for _, t in await session.read(selector)]
        if len(got) != 1:
            raise GoalUnread(f"no field {field!r} on {session.url}")
        text = " ".join(got[0].split())
        pattern = re.compile(where["pattern"]) if where is not None and "pattern" in where else None
        m = pattern.search(text) if pattern is not None else None
        m = m if pattern is not None else _NUMBER.search(text) if st["check"].get("number") else None
        answer = m.group(0) if m is not None else text
        traj["done"] = f"The {st.get('label', field)} shown on this page is {text}."
    traj["answer"], traj["end"] = answer, session.url
    return traj


class LiveSteps(Replayer):
    """A live step that acts (`open`, `copy`, `delete`), done by the scripted specialist on the page as it is:
    each next step is chosen on the live snapshot and recorded into the trajectory as it goes, then replayed
    by the Replayer's own machinery (the element found again by its descriptor). An `open` clicks the link
    that bears the entry's name (after the page's "Back to" link when the list is not shown); a `copy` the
    entry's copy button; a `delete` its Delete button, then the dialog's confirmation; an app's `edit` its
    form's moves (`GoalStep.moves`) on whichever entry's page is open."""

    def __init__(self, traj: Trajectory, session: SessionRecord, st: GoalStep) -> None:
        super().__init__(traj, [], session)
        traj["steps"] = self.steps  # the trajectory is what was done, recorded as it goes
        self.goal_step = st
        self.done_moves: list[str] = []

    def next_action(self, snapshot: LivePage) -> ReplyRecord:
        if not self.finished and self.cursor >= len(self.steps):
            live = [e.descriptor() for e in snapshot.elements]
            move: tuple[str, ElementDescriptor, str, ParamValue] | None
            if self.goal_step["do"] in FORM_STEPS:
                move = _form_move(self.goal_step, live, self.done_moves, snapshot.url)
            else:
                got = self._next_move(live, snapshot.url)
                move = (*got, None) if got is not None else None
            if move is not None:
                what, el, memory, value = move
                action = what if self.goal_step["do"] in FORM_STEPS else "click"
                self.elements.append(el)
                self.steps.append(
                    {"action": action, "element": len(self.elements) - 1, "value": value, "memory": memory}
                )
                self.done_moves.append(what)
            else:
                self.traj["done"] = self._done()
                self.traj["end"] = snapshot.url
        return super().next_action(snapshot)

    def _next_move(
        self, live: list[ElementDescriptor], url: str
    ) -> tuple[str, ElementDescriptor, str] | None:
        st, moves = self.goal_step, self.done_moves
        name, key = st["name"], st["page"].rsplit("/", 1)[-1]
        attrs: Callable[[ElementDescriptor], Mapping[str, str | None]] = lambda d: d.get("attrs") or {}  # noqa: E731
        if st["do"] == "open":
            if "entry" in moves:
                return None
            link = next(
                (
                    d for d in live
                    if d.get("tag") == "a" and " ".join(str(d.get("text", "")).split()) == name
                    and _entry_link(str(attrs(d).get("href") or ""), st)
                ),
                None,
            )  # fmt: skip
            if link is not None:
                return "entry", link, f'Opening "{name}" by its link.'
            back = next(
                (
                    d for d in live
                    if d.get("tag") == "a" and _backs(st, str(d.get("text", "")))
                    and urlsplit(str(attrs(d).get("href") or "")).path == st["page"]
                ),
                None,
            )  # fmt: skip
            if back is not None and "back" not in moves:
                return "back", back, "Going back to the list to find the entry."
            raise GoalUnread(f'no link to "{name}" on {url}')
        if st["do"] == "copy":
            if moves:
                return None
            button = next(
                (
                    d
                    for d in live
                    if attrs(d).get("data-control-id") == f"{key}-copy" and "data-copy" in attrs(d)
                ),
                None,
            )
            if button is None:
                raise GoalUnread(f"no copy button on {url}")
            return "copy", button, f"Clicking the copy button for the {st.get('label', 'value')}."
        if not moves:
            ask = next(
                (
                    d
                    for d in live
                    if d.get("tag") == "button" and str(d.get("text", "")).startswith("Delete ")
                ),
                None,
            )  # the entry page's own "Delete <singular>" (a row's button says "Delete" alone)
            if ask is None:
                raise GoalUnread(f"no Delete button on {url}")
            return "ask", ask, f'Asking to delete "{name}".'
        if moves == ["ask"]:
            confirm = next(
                (
                    d
                    for d in live
                    if attrs(d).get("data-control-id") == f"{key}-delete-confirm"
                    and d.get("text") == "Delete"
                ),
                None,
            )
            if confirm is None:
                raise GoalUnread(f"no confirmation of the delete on {url}")
            return "confirm", confirm, "Confirming the deletion."
        return None

    def _done(self) -> str:
        st = self.goal_step
        if st["do"] == "open":
            return f'I opened "{st["name"]}"; its page is shown.'
        if st["do"] == "copy":
            return f'I copied the {st.get("label", "value")} of "{st["name"]}" to the clipboard.'
        if st["do"] == "add":
            return f'I added "{st["name"]}" to the {st.get("label", "basket")}.'
        if st["do"] == "edit":
            return f'I set the {st.get("label", "field")} of "{st["name"]}" to {st.get("value", "")}.'
        return f'I deleted "{st["name"]}"; it is no longer in the list.'


def step_gate(st: GoalStep) -> tuple[Check, dict[str, bool]]:
    """A live step's gate and its verifier (a delete, an edit or an add changes that entry and no other)."""
    return st["check"], {"exclusive": True} if st["do"] in ("delete", *FORM_STEPS) else {}


def _backs(st: GoalStep, text: str) -> bool:
    """Whether a link's text is the way back to the step's list: an app's own (`back`: the wiki's category
    link), else the generated site's (and Trac's) "Back to ..."."""
    return " ".join(text.split()) == st["back"] if "back" in st else text.startswith("Back to ")


def _entry_link(href: str, st: GoalStep) -> bool:
    """Whether a link goes to an entry of the step's list: an app's entry paths (`entries`), else the
    generated site's `<list path>/<id>`."""
    if "entries" not in st:
        return _is_entry(href, st["page"])
    path = urlsplit(href).path
    rest = path.removeprefix(st["entries"]).removesuffix("/")  # the shop's "/catalogue/<slug>_<id>/"
    return path.startswith(st["entries"]) and bool(rest) and "/" not in rest


def _form_move(
    st: GoalStep, live: list[ElementDescriptor], done: list[str], url: str
) -> tuple[str, ElementDescriptor, str, ParamValue] | None:
    """An edit's next move on the entry's page as it is: the form's next element found by its attributes (the
    page's own ids and names, the same on every entry's page: the edit changes whichever entry is open)."""
    moves = st.get("moves", [])
    if len(done) >= len(moves):
        return None
    move = moves[len(done)]
    el = next(
        (d for d in live if all((d.get("attrs") or {}).get(k) == v for k, v in move["attrs"].items())), None
    )
    if el is None:
        raise GoalUnread(f"no element {move['attrs']} on {url}")
    return move["action"], el, move["memory"], move.get("value")
