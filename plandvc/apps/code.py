"""The code that shapes an app's recorded pool (`apps/dvc.yaml`'s record_apps): the list its DVC deps name,
path for path.

`RECORD_CODE` is what `plandvc record-apps` imports (`plandvc.eval.apps_code.HELD_CODE` is the held-out
stages'). A folder stands for every file under it; one is named where the command imports all of it or all but
a file (the app registry imports every adapter, so `plandvc/apps` is one entry). tests/test_run_closure.py
computes the command's real import closure and fails when a module is missing here or an entry holds none of
it.
"""

from __future__ import annotations

RECORD_CODE: tuple[str, ...] = (
    "plandvc/__init__.py",
    "plandvc/apps",
    "plandvc/browser",
    "plandvc/checks.py",
    "plandvc/errors.py",
    "plandvc/io.py",
    "plandvc/macros",
    "plandvc/ports.py",
    "plandvc/records.py",
    "plandvc/sites/__init__.py",
    "plandvc/sites/art.py",
    "plandvc/sites/controls.py",
    "plandvc/sites/model.py",
    "plandvc/sites/query.py",
    "plandvc/sites/spec.py",
    "plandvc/sites/state.py",
    "plandvc/sites/templates",
    "plandvc/world/__init__.py",
    "plandvc/world/looks.schema.json",
    "plandvc/world/looks.toml",
    "plandvc/world/vocab.py",
)
