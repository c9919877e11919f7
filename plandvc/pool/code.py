"""The code that shapes make-pool's output: its DVC stage's code deps and the key a resumed recording checks.

`POOL_CODE` names, relative to the repository root, the files and folders of every module `plandvc make-pool`
imports (and the server process it starts), with the data those read (page templates, the snapshot and
clipboard scripts). tests/test_run_closure.py computes the real import closure of `plandvc.pool.cli` and fails
when this list misses a file or names one it does not import; dvc.yaml's make_pool stage lists exactly these.
"""

from __future__ import annotations

from pathlib import Path

import plandvc
from plandvc.io import files_hash, listed_files
from plandvc.sites import SITE_CODE

POOL_CODE: tuple[str, ...] = tuple(
    sorted(
        {
            *SITE_CODE,
            "plandvc/__init__.py",
            "plandvc/browser",
            "plandvc/checks.py",
            "plandvc/errors.py",
            "plandvc/io.py",
            "plandvc/macros",
            "plandvc/options.py",
            "plandvc/pool/__init__.py",
            "plandvc/pool/cli.py",
            "plandvc/pool/code.py",
            "plandvc/pool/executor.py",
            "plandvc/pool/prep.py",
            "plandvc/pool/recorder.py",
            "plandvc/pool/tasks.py",
            "plandvc/ports.py",
            "plandvc/records.py",
        }
    )
)


def pool_code_hash() -> str:
    """sha256 of exactly `POOL_CODE` (paths and contents) in the installed checkout."""
    root = Path(plandvc.__file__).parent.parent
    return files_hash(root, listed_files(root, POOL_CODE))
