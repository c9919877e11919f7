"""MediaWiki 1.39, a wiki, as an app site: `adapter.py` installs (Debian's packages, `plandvc.apps.debian`),
seeds, serves it and reads its state, `tasks.py` draws its tasks and solves them, `facts.py` tells the chain
walk and the composer what a task asks. `APP` is its registry line (`plandvc.apps.REGISTRY`)."""

from __future__ import annotations

from plandvc.apps.app import app_of
from plandvc.apps.mediawiki import adapter, facts, tasks

APP = app_of(
    adapter,
    facts,
    tasks,
    name="mediawiki",
    title="MediaWiki 1.39, a wiki",
    home_text="Main page",
    pages=(
        ("home", facts.HOME),
        ("list", "/index.php/Category:Cities"),
        ("form", "/index.php?title=Main_Page&action=edit"),
    ),
)
