"""App sites: real web applications as held-out worlds (docs/APPS.md).

An application is one package, each of the same shape: `adapter.py` (install, seed, serve, state), `tasks.py`
(what the seeded app offers, each macro's task generator and scripted solution, registered with
`script.Macros`), `facts.py` (a task's facts for the chain walk and the request composer) and its
`__init__.py`, which registers `APP = App(name=..., ...)`. The registry below is one line per application.
The shared machinery is `app.py`, the executor's moves, the macros' draw order and a task's gate `script.py`,
the recording of any app into a pool folder `record.py`.
"""

from __future__ import annotations

from plandvc.apps import mediawiki, oscar, trac
from plandvc.apps.app import App

__all__ = ["REGISTRY", "App"]

REGISTRY: dict[str, App] = {
    trac.APP.name: trac.APP,
    mediawiki.APP.name: mediawiki.APP,
    oscar.APP.name: oscar.APP,
}
