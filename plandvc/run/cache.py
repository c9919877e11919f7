"""The run-chains cache: one entry per finished chain, named by the chain's fingerprint.

An entry is a folder `<cache>/<fingerprint>/` holding what the chain published (`rows.jsonl`, `step_*.png`,
`episode.json`; nothing but `result.json` for a chain that failed before it made rows), its `result.json`,
and `sha256.json`: the sha256 of every other file. It is written aside and renamed into place, so it is
whole or absent; on reuse every file is checked against `sha256.json`, and an entry with a missing,
extra or changed file (a truncated PNG, a disk error) is not reused: the chain runs again.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from collections.abc import Iterable
from pathlib import Path
from typing import cast

from plandvc import io
from plandvc.records import ChainResult
from plandvc.run.chain import ChainOutput

RESULT = "result.json"
HASHES = "sha256.json"


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


class Cache:
    """Finished chains by fingerprint, under `root`."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def entry(self, fingerprint: str) -> Path:
        return self.root / fingerprint

    def read(self, entry: Path) -> ChainResult | None:
        """The entry's result when the entry is whole and every file matches its hash, else None."""
        try:
            hashes = io.read_json(entry / HASHES)
            names = {p.name for p in entry.iterdir()}
        except (io.InputError, OSError):
            return None
        if not isinstance(hashes, dict) or names != {*hashes, HASHES}:
            return None
        for name, sha in hashes.items():
            try:
                if _sha256(entry / name) != sha:
                    return None
            except OSError:
                return None
        try:
            result = io.read_json(entry / RESULT)
        except io.InputError:
            return None
        if not (isinstance(result, dict) and "ok" in result):
            return None
        return cast(ChainResult, result)  # the run's own result.json, its hash checked above

    def files(self, entry: Path) -> list[Path]:
        """The files an entry publishes (all but its result and hashes), sorted by name."""
        return sorted(p for p in entry.iterdir() if p.name not in (RESULT, HASHES))

    def write(self, entry: Path, out: ChainOutput) -> None:
        """Write one finished chain: aside, then renamed, so an entry is whole or absent."""
        tmp = entry.with_name(entry.name + f".tmp{os.getpid()}")
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        if out.episode is not None:
            io.write_jsonl(tmp / "rows.jsonl", out.rows)
            for name, data in sorted(out.images.items()):
                io.write_bytes(tmp / name, data)
            io.write_json(tmp / "episode.json", out.episode, sort_keys=False)  # the schema keeps its order
        io.write_json(tmp / RESULT, out.result)
        hashes = {p.name: _sha256(p) for p in sorted(tmp.iterdir())}
        io.write_json(tmp / HASHES, hashes)
        shutil.rmtree(entry, ignore_errors=True)
        os.replace(tmp, entry)

    def prune(self, keep: Iterable[str]) -> None:
        """Remove every entry (and any leftover) whose name is not in `keep`."""
        names = set(keep)
        for stale in self.root.iterdir():
            if stale.name not in names and stale.is_dir():
                shutil.rmtree(stale, ignore_errors=True)
