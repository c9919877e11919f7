"""Commands run in a copy of the project (the pipeline tests): the venv's tools on PATH, two workers, and a
run cache of the copy's own, so a test never reads or writes the checkout's."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

BIN = Path(sys.executable).parent


def sh(repo: Path, *cmd: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "PATH": f"{BIN}:{os.environ['PATH']}",
        "PLANDVC_WORKERS": "2",
        "PLANDVC_CACHE": str(repo / ".plandvc" / "cache"),
    }
    p = subprocess.run(cmd, cwd=repo, capture_output=True, text=True, env=env, timeout=900)
    if check and p.returncode != 0:
        raise AssertionError(
            f"{' '.join(cmd)} failed ({p.returncode}):\n{p.stdout[-1500:]}\n{p.stderr[-3000:]}"
        )
    return p
