"""App sites: real web applications as held-out worlds (docs/APPS.md).

One module per application adapter (`trac.py`, with its tasks in `trac_tasks.py`) and one line of the
registry table below; the shared machinery is `app.py`, the executor's moves and a task's gate `script.py`,
the recording into a pool folder `record.py`.
"""

from __future__ import annotations

from plandvc.apps import record, trac, trac_tasks
from plandvc.apps.app import App

__all__ = ["REGISTRY", "App"]

_TABLE: tuple[App, ...] = (
    App(
        "trac", "Trac 1.6, an issue tracker", trac.install, tuple(trac_tasks.MACROS), record.record_trac_pool
    ),
)
REGISTRY: dict[str, App] = {a.name: a for a in _TABLE}
