"""App sites: real web applications as held-out worlds (docs/APPS.md).

One module per application adapter (`trac.py`: install, seed, serve, state; its tasks in `trac_tasks.py`, their
facts for the walk in `trac_facts.py`; `oscar*.py`, the shop; `mediawiki*.py`, the wiki) and one line of the registry table below: an `App`, the table of the
adapter's functions. The shared machinery is `app.py`, the executor's moves and a task's gate `script.py`, the
recording of any app into a pool folder `record.py`.
"""

from __future__ import annotations

from plandvc.apps import (
    mediawiki,
    mediawiki_tasks,
    oscar,
    oscar_facts,
    oscar_tasks,
    trac,
    trac_facts,
    trac_tasks,
)
from plandvc.apps.app import App

__all__ = ["REGISTRY", "App"]

_TABLE: tuple[App, ...] = (
    App(
        "trac", "Trac 1.6, an issue tracker", trac_facts.SITE_NAME, trac_facts.TODAY, trac_facts.HOME,
        ("Wiki", trac_facts.HOME), (("home", "/wiki"), ("list", "/query"), ("form", "/newticket")),
        trac.install, trac_tasks.MACROS.names(), trac_tasks.app_tasks, trac_tasks.MACROS.solution, trac.serve,
        trac_facts.facts, trac.template, trac_facts.goal,
    ),
    App(
        "mediawiki", "MediaWiki 1.39, a wiki", mediawiki.SITE_NAME, mediawiki_tasks.TODAY, mediawiki.HOME,
        ("Main page", mediawiki.HOME),
        (("home", mediawiki.HOME), ("list", "/index.php/Category:Cities"),
         ("form", "/index.php?title=Main_Page&action=edit")),
        mediawiki.install, mediawiki_tasks.MACROS.names(), mediawiki_tasks.app_tasks, mediawiki_tasks.MACROS.solution,
        mediawiki.serve, mediawiki_tasks.facts, mediawiki.template,
    ),
    App(
        "oscar", "django-oscar 4.2, a shop", oscar_facts.SITE_NAME, oscar_facts.TODAY, oscar_facts.HOME,
        ("Oscar Shop", oscar_facts.HOME), (("home", "/catalogue/"), ("list", "/catalogue/category/audio_1/"),
        ("form", "/accounts/addresses/1/")), oscar.install, oscar_tasks.MACROS.names(), oscar_tasks.app_tasks,
        oscar_tasks.MACROS.solution, oscar.serve, oscar_facts.facts, oscar.template,
    ),
)  # fmt: skip
REGISTRY: dict[str, App] = {a.name: a for a in _TABLE}
