"""A task's preparation: its control prep done through the site's own forms, then its start page.

The recorder and run-chains' first part share this, so a prepared entry exists in the session the same way
whichever of them sets it up: `control.prep = {"create": {"table", "page", "fields"}}` opens the page's
new-entry form, fills each field (a `<select>` by option text, others by typing) and submits it. A form shown in
steps (a wizard) is walked with its "Next" button, and a banner over the page is closed first.
"""

from __future__ import annotations

from collections.abc import Mapping

from plandvc.browser.protocol import SessionProtocol
from plandvc.browser.snapshot import Element
from plandvc.io import InputError
from plandvc.macros.make import fmt
from plandvc.records import Task

__all__ = ["fmt", "prepare"]


BANNER_BUTTONS = ("Accept all", "No thanks")  # a cookie notice's and a newsletter pop-up's close buttons
MAX_STEPS = 8  # a wizard's steps


async def _press(session: SessionProtocol, texts: tuple[str, ...]) -> bool:
    """Click the first button whose text is one of `texts`, if the page shows one."""
    snap = await session.snapshot()
    el = next((e for e in snap.elements if e.tag == "button" and e.text in texts), None)
    if el is not None:
        await session.click(el.index)
    return el is not None


async def _shown(session: SessionProtocol, control_id: str) -> Element | None:
    """The element with this control id, pressing a wizard's "Next" until it is shown; None if it never is."""
    for _ in range(MAX_STEPS):
        snap = await session.snapshot()
        el = next((e for e in snap.elements if e.attrs.get("data-control-id") == control_id), None)
        if el is not None or not await _press(session, ("Next",)):
            return el
    return None


async def _create(session: SessionProtocol, site: str, spec: Mapping[str, object], task_id: str) -> None:
    page, fields = spec.get("page"), spec.get("fields")
    if not isinstance(page, str) or not isinstance(fields, dict):
        raise InputError(f"task {task_id}: control.prep.create needs 'page' and 'fields'")
    status = await session.goto(f"/sites/{site}/{page}/new")
    if status != 200:
        raise InputError(f"task {task_id}: control.prep: /sites/{site}/{page}/new answered {status}")
    form_id = f"{page}-create"
    await _press(session, BANNER_BUTTONS)
    left = dict(fields)
    for _ in range(MAX_STEPS):  # fill what the form (or a wizard's step) shows, in any order, then "Next"
        snap = await session.snapshot()
        shown = {
            str(e.attrs.get("data-control-id")): e for e in snap.elements if e.attrs.get("data-control-id")
        }
        for name in [n for n in left if f"{form_id}-{n}" in shown]:
            el = shown[f"{form_id}-{name}"]
            if el.tag == "select":
                await session.select(el.index, fmt(left.pop(name)))
            else:
                await session.input(el.index, fmt(left.pop(name)))
        if not left or f"{form_id}-apply" in shown or not await _press(session, ("Next",)):
            break
    if left:
        raise InputError(f"task {task_id}: control.prep: the {page} form has no field {next(iter(left))!r}")
    button = await _shown(session, f"{form_id}-apply")
    if button is None:
        raise InputError(f"task {task_id}: control.prep: the {page} form has no submit button")
    await session.click(button.index)


async def prepare(session: SessionProtocol, task: Task) -> None:
    """Do the task's control prep (if any) on `session`, then load its start URL; the prep's own events
    and pages are cleared, so the session's record starts at the task's start."""
    prep = (task.get("control") or {}).get("prep") or {}
    for kind, spec in sorted(prep.items()):
        if kind != "create":
            raise InputError(f"task {task.get('task_id')}: control.prep: unknown prep {kind!r}")
        await _create(session, task["site"], spec, str(task.get("task_id")))
    status = await session.goto(task["start"]["url"])
    if status != 200:
        raise InputError(f"task {task.get('task_id')}: start.url {task['start']['url']} answered {status}")
    if prep:
        session.events.clear()
        del session.seen[:-1]
