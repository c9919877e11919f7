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
from typing import NamedTuple
from urllib.parse import urlsplit

from plandvc.browser.protocol import SessionProtocol, SessionRecord
from plandvc.checks import Check
from plandvc.macros import FAMILY_OF, goal_step_macro
from plandvc.records import ChainGoal, ElementDescriptor, GoalStep, ReplyRecord, Trajectory
from plandvc.replay import LivePage, Replayer

_SHOWING = re.compile(r"Showing\s+([\d,]+)")


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
    return _unread(goal_step_macro(goal["kind"]), f"goal-{goal['kind']}", site, answer, done, end)


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

# the family a live step is delegated to (a delete: the family of the macro it is counted as)
STEP_FAMILY = {
    "find": "Information",
    "open": "Navigation",
    "read": "Information",
    "copy": "Information",
    "count": "Information",
}
READS = frozenset({"find", "read", "count"})  # the live steps the Information specialist reads off the page
FORM_STEPS = ("edit", "add")  # an app's steps done by the form's moves (`GoalStep.moves`)
_NUMBER = re.compile(r"-?[\d,]*\.?\d+")


def step_macro(st: GoalStep) -> str:
    """The macro a live step's turn is counted as (a narrow: the dropdown filter or the search it sets)."""
    return goal_step_macro(f"narrow:{st.get('action')}" if st["do"] == "narrow" else st["do"])


def step_family(st: GoalStep) -> str:
    """The specialist a live step is delegated to (a delete: the one that deletes entries)."""
    return STEP_FAMILY.get(st["do"]) or FAMILY_OF[step_macro(st)]


def unread_step(st: GoalStep, site: str) -> Trajectory:
    """A live step's trajectory before it is done: no step, no answer (`LiveSteps` and `read_step` fill it)."""
    return _unread(step_macro(st), f"goal-{st['do']}", site)


async def read_step(session: SessionProtocol, st: GoalStep, site: str) -> Trajectory:
    """What the Information specialist reads for a `find` (the first entry the list shows), a `count` (the list's
    "Showing N" line) or a `read` (one field of the entry's page) on the page as it is, as its trajectory."""
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
    elif st["do"] == "count":
        lines = [t for _, t in await session.read("p.count")]
        m = next((m for t in lines if (m := _SHOWING.search(t))), None)
        if m is None:
            raise GoalUnread(f"no count ({_SHOWING.pattern}) on {session.url}")
        answer = m.group(1).replace(",", "")
        traj["done"] = f"The list shows {answer} entries now."
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


class Move(NamedTuple):
    """One move of a live step: what it is (for the next choice), the element, the specialist's memory, and the
    action with its value."""

    what: str
    element: ElementDescriptor
    memory: str
    action: str = "click"
    value: str | None = None


def _attrs(d: ElementDescriptor) -> Mapping[str, str | None]:
    return d.get("attrs") or {}


def _back_to(d: ElementDescriptor, st: GoalStep) -> bool:
    """Whether `d` is an entry page's way back to the step's list (`_backs`: "Back to ...", or an app's own)."""
    href = str(_attrs(d).get("href") or "")
    return d.get("tag") == "a" and _backs(st, str(d.get("text", ""))) and urlsplit(href).path == st["page"]


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
            move = (
                _form_move(self.goal_step, live, self.done_moves, snapshot.url)
                if self.goal_step["do"] in FORM_STEPS
                else self._next_move(live, snapshot.url)
            )
            if move is not None:
                self.elements.append(move.element)
                self.steps.append(
                    {
                        "action": move.action,
                        "element": len(self.elements) - 1,
                        "value": move.value,
                        "memory": move.memory,
                    }
                )
                self.done_moves.append(move.what)
            else:
                self.traj["done"] = self._done()
                self.traj["end"] = snapshot.url
        return super().next_action(snapshot)

    def _next_move(self, live: list[ElementDescriptor], url: str) -> Move | None:
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
                return Move("entry", link, f'Opening "{name}" by its link.')
            back = next((d for d in live if _back_to(d, st)), None)
            if back is not None and "back" not in moves:
                return Move("back", back, "Going back to the list to find the entry.")
            raise GoalUnread(f'no link to "{name}" on {url}')
        if st["do"] == "narrow":
            return self._narrow_move(live, url)
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
            return Move("copy", button, f"Clicking the copy button for the {st.get('label', 'value')}.")
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
            return Move("ask", ask, f'Asking to delete "{name}".')
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
            return Move("confirm", confirm, "Confirming the deletion.")
        return None

    def _narrow_move(self, live: list[ElementDescriptor], url: str) -> Move | None:
        """A narrow's moves as the macros' scripted executor makes them: back to the list when an entry's page is
        shown, the value set in the control's field (`select` a dropdown, `input` a search box), its Apply."""
        st, moves = self.goal_step, self.done_moves
        cid, value = st.get("control", ""), st.get("value", "")
        if urlsplit(url).path != st["page"] and not moves:
            back = next((d for d in live if _back_to(d, st)), None)
            if back is None:
                raise GoalUnread(f"no link back to {st['page']} on {url}")
            return Move("back", back, "Going back to the list to narrow it.")
        if "set" not in moves and st.get("action") == "facet":
            link = next(
                (
                    d for d in live
                    if _attrs(d).get("data-control-id") == f"{cid}-facet" and d.get("tag") == "a" and d.get("text") == value
                ),
                None,
            )  # fmt: skip
            if link is None:
                raise GoalUnread(f'no facet link "{value}" of {cid} on {url}')
            return Move("set", link, f'Clicking "{value}" in the {st.get("label", "")} facets.')
        if "set" not in moves:
            field = next(
                (d for d in live if _attrs(d).get("data-control-id") == cid and _attrs(d).get("name") == st.get("param")),
                None,
            )  # fmt: skip
            if field is None:
                raise GoalUnread(f"no field of {cid} on {url}")
            action = st.get("action", "select")
            memory = (
                f'Typing "{value}" into the search box.'
                if action == "input"
                else f'Choosing "{value}" in the {st.get("label", "")} filter.'
            )
            return Move("set", field, memory, action, value)
        if st.get("apply") and "apply" not in moves:
            button = next((d for d in live if _attrs(d).get("data-control-id") == st.get("apply")), None)
            if button is None:
                raise GoalUnread(f"no {st.get('apply')} button on {url}")
            return Move("apply", button, "Applying it.")
        return None

    def _done(self) -> str:
        st = self.goal_step
        if st["do"] == "open":
            return f'I opened "{st["name"]}"; its page is shown.'
        if st["do"] == "copy":
            return f'I copied the {st.get("label", "value")} of "{st["name"]}" to the clipboard.'
        if st["do"] == "narrow":
            return f'I narrowed the list to {st.get("label", "")} "{st.get("value", "")}"; it is shown.'
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


def _form_move(st: GoalStep, live: list[ElementDescriptor], done: list[str], url: str) -> Move | None:
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
    return Move(move["action"], el, move["memory"], move["action"], move.get("value"))
