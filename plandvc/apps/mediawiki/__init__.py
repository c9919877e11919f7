"""MediaWiki 1.39, a wiki, as an app site: `adapter.py` installs (Debian's packages, `plandvc.apps.debian`),
seeds, serves it and reads its state, `tasks.py` draws its tasks and solves them, `facts.py` tells the chain
walk and the composer what a task asks. `APP` is its registry line (`plandvc.apps.REGISTRY`)."""

from __future__ import annotations

from plandvc.apps.app import App
from plandvc.apps.mediawiki import adapter, facts, tasks

APP = App(
    name="mediawiki",
    title="MediaWiki 1.39, a wiki",
    site=facts.SITE_NAME,
    today=facts.TODAY,
    home=facts.HOME,
    home_link=("Main page", facts.HOME),
    pages=(
        ("home", facts.HOME),
        ("list", "/index.php/Category:Cities"),
        ("form", "/index.php?title=Main_Page&action=edit"),
    ),
    install=adapter.install,
    macros=tasks.MACROS.names(),
    tasks=tasks.app_tasks,
    solution=tasks.MACROS.solution,
    serve=adapter.serve,
    facts=facts.facts,
    template=adapter.template,
)
