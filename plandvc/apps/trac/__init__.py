"""Trac 1.6, an issue tracker, as an app site: `adapter.py` installs, seeds, serves it and reads its state,
`tasks.py` draws its tasks and solves them, `facts.py` tells the chain walk and the composer what a task asks
(and answers its goal chains). `APP` is its registry line (`plandvc.apps.REGISTRY`)."""

from __future__ import annotations

from plandvc.apps.app import App
from plandvc.apps.trac import adapter, facts, tasks

APP = App(
    name="trac",
    title="Trac 1.6, an issue tracker",
    site=facts.SITE_NAME,
    today=facts.TODAY,
    home=facts.HOME,
    home_link=("Wiki", facts.HOME),
    pages=(("home", "/wiki"), ("list", "/query"), ("form", "/newticket")),
    install=adapter.install,
    macros=tasks.MACROS.names(),
    tasks=tasks.app_tasks,
    solution=tasks.MACROS.solution,
    serve=adapter.serve,
    facts=facts.facts,
    template=adapter.template,
    goal=facts.goal,
)
