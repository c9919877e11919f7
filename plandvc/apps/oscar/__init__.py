"""django-oscar 4.2, a shop, as an app site: `adapter.py` installs, seeds, serves it and reads its state,
`tasks.py` draws its tasks and solves them, `facts.py` tells the chain walk and the composer what a task asks.
`APP` is its registry line (`plandvc.apps.REGISTRY`)."""

from __future__ import annotations

from plandvc.apps.app import app_of
from plandvc.apps.oscar import adapter, facts, tasks

APP = app_of(
    adapter,
    facts,
    tasks,
    name="oscar",
    title="django-oscar 4.2, a shop",
    home_text="Oscar Shop",
    pages=(
        ("home", "/catalogue/"),
        ("list", "/catalogue/category/audio_1/"),
        ("form", "/accounts/addresses/1/"),
    ),
)
