"""Fingerprints of what a chain's output is made from: the chain, its parts' files, the params, the code, the
sites and the environment. A finished chain is reused only when its fingerprint matches."""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
from pathlib import Path
from typing import TypedDict

import orjson

import plandvc
from plandvc.io import files_hash
from plandvc.records import ChainSpec, Environment
from plandvc.run.closure import run_files


def code_hash(root: Path | None = None) -> str:
    """The hash of exactly the code that shapes a chain's output (`closure.RUN_CODE` under `root`, by default
    the folder that holds the plandvc package): relative paths and contents, in sorted order."""
    root = Path(plandvc.__file__).parent.parent if root is None else root
    return files_hash(root, run_files(root))


class RunInputs(TypedDict):
    """What every chain of a run is made with besides its own line and parts: the params, the hash of the
    code and of the sites, the environment."""

    params: dict[str, object]
    code: str
    sites: str
    env: Environment


def environment(chromium_version: str | None, chromium_binary: str | None = None) -> Environment:
    """What the rows were made with: plandvc, Playwright and Chromium versions, which Chromium executable
    (`chromium-headless-shell` or `chromium`, by name), the image when known."""
    return {
        "plandvc": plandvc.__version__,
        "playwright": importlib.metadata.version("playwright"),
        "chromium": chromium_version,
        "chromium_binary": chromium_binary,
        "image": os.environ.get("PLANDVC_IMAGE") or None,
    }


def chain_fingerprint(chain: ChainSpec, parts_hash: str, run_inputs: RunInputs) -> str:
    """The fingerprint of one chain's output: its spec, its parts' files and the run-wide inputs."""
    blob = orjson.dumps({"chain": chain, "parts": parts_hash, "run": run_inputs}, option=orjson.OPT_SORT_KEYS)
    return hashlib.sha256(blob).hexdigest()[:32]
