"""The scripted executor: does one task's single primitive on a live harness Session.

The task's macro's solution (`Macro.solve`) drives a `plandvc.macros.script.Executor` step by step; the
Recording it fills (steps over recorded elements, done text, answer) ends on the session's last page.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from plandvc.macros import macro, widgets
from plandvc.macros.script import Executor, Recording, ScriptError
from plandvc.records import Task
from plandvc.sites.spec import Spec

if TYPE_CHECKING:
    from plandvc.browser import Session

__all__ = ["Recording", "ScriptError", "execute"]


async def execute(session: Session, spec: Spec, task: Task) -> Recording:
    """Run the task's scripted steps on a session that is already on the task's start page."""
    run = Executor(session, spec, task)
    await widgets.dismiss_banner(run)
    await macro(task["macro"]).solve(run)
    run.rec.end = session.url
    return run.rec
