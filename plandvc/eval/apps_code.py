"""The code that shapes an app's held-out chains and the planners' scores on them (`apps/dvc.yaml`'s held_apps
and eval_apps): what `plandvc eval-apps` imports, path for path, as their DVC deps name it.

It is the evaluation's code (`plandvc.run.closure.EVAL_CODE`: the run, the chain walk, the row checks, the
scoring) but eval-specs', eval-planner's and eval-references' own modules, the recording's (`plandvc.apps.code.RECORD_CODE`) and
eval-apps' modules; tests/test_run_closure.py checks it against the command's real import closure.
"""

from __future__ import annotations

from plandvc.apps.code import RECORD_CODE
from plandvc.run.closure import EVAL_CODE

# eval-specs', eval-planner's and eval-references' own modules are not imported: their walk and scoring are
# reached through eval-apps'
NOT_HELD = frozenset({"plandvc/eval/cli.py", "plandvc/eval/references.py", "plandvc/eval/run.py"})
HELD_CODE: tuple[str, ...] = tuple(
    sorted(
        {
            *(set(EVAL_CODE) - NOT_HELD),
            *RECORD_CODE,
            "plandvc/eval/apps.py",
            "plandvc/eval/apps_cli.py",
            "plandvc/eval/apps_run.py",
        }
    )
)
