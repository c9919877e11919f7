"""The code that shapes a stage's output: the lists its DVC deps (and run-chains' cache fingerprint) share.

`RUN_CODE` names, relative to the repository root, the files and folders of every module the run imports
(at the top of a module or inside a function) and every process it starts (`python -m plandvc.sites.server`),
together with the data those packages read (the page templates, the snapshot and clipboard scripts). A
folder stands for every file under it. `code_hash` hashes exactly these files, and `dvc.yaml`'s run_chains
stage lists exactly these paths as deps, so editing anything else (`plandvc/rows/`, another stage's CLI, the
chain walk) reruns neither the stage nor a cached chain. tests/test_run_closure.py computes the real import
closure of `plandvc.run.cli` and fails when a module is missing here or listed without being imported.

`EVAL_CODE` is the same for the evaluation's stages (eval_specs, eval_planner: `plandvc.eval.cli`): it covers
their import closure and lists nothing they do not import from, so editing the export, the view, `make
eval-llm`'s driver or another stage's CLI does not rerun a held-out planner evaluation. It may name a folder of
which the evaluation imports all but a file (`plandvc/run` without run-chains' CLI): the stricter rule buys
nothing there but a longer list.
"""

from __future__ import annotations

from pathlib import Path

from plandvc.io import listed_files
from plandvc.sites import SITE_CODE

# sorted; a folder when all of it is in the closure, else its files one by one
RUN_CODE: tuple[str, ...] = tuple(
    sorted(
        {
            *SITE_CODE,
            "plandvc/__init__.py",
            "plandvc/agent",
            "plandvc/browser",
            "plandvc/checks.py",
            "plandvc/contract/__init__.py",
            "plandvc/contract/schemas",
            "plandvc/errors.py",
            "plandvc/io.py",
            "plandvc/macros",
            "plandvc/memory",
            "plandvc/options.py",
            "plandvc/pool/__init__.py",
            "plandvc/pool/prep.py",
            "plandvc/pool/schema.py",
            "plandvc/pool/store.py",
            "plandvc/ports.py",
            "plandvc/records.py",
            "plandvc/replay.py",
            "plandvc/run",
            "plandvc/urls.py",
        }
    )
)

# what the evaluation imports beyond the run: the chain walk, the row checks and eval itself
EVAL_CODE: tuple[str, ...] = tuple(
    sorted(
        {
            *RUN_CODE,
            "plandvc/chains",
            "plandvc/eval/__init__.py",
            "plandvc/eval/cli.py",
            "plandvc/eval/client.py",
            "plandvc/eval/closed.py",
            "plandvc/eval/metrics.py",
            "plandvc/eval/reference.py",
            "plandvc/eval/references.py",
            "plandvc/eval/run.py",
            "plandvc/eval/template.py",
            "plandvc/eval/template_forms_v4.json",
            "plandvc/eval/score.py",
            "plandvc/eval/specs.py",
            "plandvc/eval/teacher.py",
            "plandvc/eval/wire.py",
            "plandvc/rows/__init__.py",
            "plandvc/rows/png.py",
            "plandvc/rows/recovery.py",
            "plandvc/rows/shape.py",
            "plandvc/rows/validate.py",
            # the domains' voices (chains.phrasing: varied) and the package they are read through
            "plandvc/world/__init__.py",
            "plandvc/world/domains",
            "plandvc/world/fields.py",
            "plandvc/world/kit.py",
            "plandvc/world/looks.schema.json",
            "plandvc/world/looks.toml",
            "plandvc/world/vocab.py",
        }
    )
)


def run_files(root: Path, entries: tuple[str, ...] = RUN_CODE) -> list[Path]:
    """The files `entries` (by default `RUN_CODE`) name under `root` (the repository root), sorted by their
    relative path."""
    return listed_files(root, entries)
