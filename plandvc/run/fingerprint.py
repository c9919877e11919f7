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
from plandvc.records import ChainSpec, Environment
from plandvc.run.closure import run_files


def tree_hash(root: Path, suffixes: set[str] | None = None) -> str:
    """sha256 over the relative paths and contents of the files under `root`, in sorted order."""
    h = hashlib.sha256()
    for p in sorted(root.rglob("*")):
        if not p.is_file() or "__pycache__" in p.parts or (suffixes and p.suffix not in suffixes):
            continue
        h.update(p.relative_to(root).as_posix().encode() + b"\0")
        h.update(hashlib.sha256(p.read_bytes()).digest())
    return h.hexdigest()


def code_hash(root: Path | None = None) -> str:
    """The hash of exactly the code that shapes a chain's output (`closure.RUN_CODE` under `root`, by default
    the folder that holds the plandvc package): relative paths and contents, in sorted order."""
    root = Path(plandvc.__file__).parent.parent if root is None else root
    h = hashlib.sha256()
    for p in run_files(root):
        h.update(p.relative_to(root).as_posix().encode() + b"\0")
        h.update(hashlib.sha256(p.read_bytes()).digest())
    return h.hexdigest()


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
