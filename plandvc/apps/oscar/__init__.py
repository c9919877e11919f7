"""django-oscar 4.2, a shop, as an app site: `adapter.py` installs, seeds, serves it and reads its state,
`tasks.py` draws its tasks and solves them, `facts.py` tells the chain walk and the composer what a task asks.
`APP` is its registry line (`plandvc.apps.REGISTRY`)."""

from __future__ import annotations

from plandvc.apps.app import App
from plandvc.apps.oscar import adapter, facts, tasks

APP = App(
    name="oscar",
    title="django-oscar 4.2, a shop",
    site=facts.SITE_NAME,
    today=facts.TODAY,
    home=facts.HOME,
    home_link=("Oscar Shop", facts.HOME),
    pages=(
        ("home", "/catalogue/"),
        ("list", "/catalogue/category/audio_1/"),
        ("form", "/accounts/addresses/1/"),
    ),
    install=adapter.install,
    macros=tasks.MACROS.names(),
    tasks=tasks.app_tasks,
    solution=tasks.MACROS.solution,
    serve=adapter.serve,
    facts=facts.facts,
    template=adapter.template,
)
