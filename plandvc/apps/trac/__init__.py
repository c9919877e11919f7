"""Trac 1.6, an issue tracker, as an app site: `adapter.py` installs, seeds, serves it and reads its state,
`tasks.py` draws its tasks and solves them, `facts.py` tells the chain walk and the composer what a task asks
(and answers its goal chains). `APP` is its registry line (`plandvc.apps.REGISTRY`)."""

from __future__ import annotations

from plandvc.apps.app import app_of
from plandvc.apps.trac import adapter, facts, tasks

APP = app_of(
    adapter,
    facts,
    tasks,
    name="trac",
    title="Trac 1.6, an issue tracker",
    home_text="Wiki",
    pages=(("home", "/wiki"), ("list", "/query"), ("form", "/newticket")),
)
