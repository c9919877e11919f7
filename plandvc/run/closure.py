"""The code that shapes a chain's output: the one list run-chains' cache fingerprint and its DVC deps share.

`RUN_CODE` names, relative to the repository root, the files and folders of every module the run imports
(at the top of a module or inside a function) and every process it starts (`python -m plandvc.sites.server`),
together with the data those packages read (the page templates, the snapshot and clipboard scripts). A
folder stands for every file under it. `code_hash` hashes exactly these files, and `dvc.yaml`'s run_chains
stage lists exactly these paths as deps, so editing anything else (`plandvc/rows/`, another stage's CLI, the
chain walk) reruns neither the stage nor a cached chain. tests/test_run_closure.py computes the real import
closure of `plandvc.run.cli` and fails when a module is missing here or listed without being imported.
"""

from __future__ import annotations

from pathlib import Path

# sorted; a folder when all of it is in the closure, else its files one by one
RUN_CODE: tuple[str, ...] = (
    "plandvc/__init__.py",
    "plandvc/agent",
    "plandvc/browser",
    "plandvc/checks.py",
    "plandvc/io.py",
    "plandvc/macros.py",
    "plandvc/memory",
    "plandvc/pool/__init__.py",
    "plandvc/pool/load.py",
    "plandvc/pool/prep.py",
    "plandvc/ports.py",
    "plandvc/records.py",
    "plandvc/replay.py",
    "plandvc/run",
    "plandvc/sites/__init__.py",
    "plandvc/sites/query.py",
    "plandvc/sites/render.py",
    "plandvc/sites/server.py",
    "plandvc/sites/servers.py",
    "plandvc/sites/spec.py",
    "plandvc/sites/state.py",
    "plandvc/sites/templates",
    "plandvc/urls.py",
)

# files that are never code: bytecode and editor or OS litter inside a listed folder
_SKIP_DIRS = frozenset({"__pycache__"})


def run_files(root: Path) -> list[Path]:
    """The files `RUN_CODE` names under `root` (the repository root), sorted by their relative path."""
    out: list[Path] = []
    for entry in RUN_CODE:
        p = root / entry
        if p.is_dir():
            out.extend(
                f for f in p.rglob("*") if f.is_file() and not _SKIP_DIRS & set(f.relative_to(p).parts)
            )
        elif p.is_file():
            out.append(p)
    return sorted(out, key=lambda f: f.relative_to(root).as_posix())
