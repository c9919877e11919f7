"""Publishing run-chains' output: assembled beside `--out` from the cache, then swapped in with renames.

OUT is `results.jsonl` (one line per chain, sorted by key), `<key>/` for every ok chain and
`_failed/<key>/` (with `error.txt`) for the others. Its own `results.jsonl` is the marker that makes a
folder recognisably a previous output of run-chains: an existing OUT is replaced only when every entry in
it is one that index names (or it is empty); any other folder is left alone with an error, before any
chain runs. The tree is built in `.<name>.tmp-<pid>` beside OUT and removed if anything fails, so OUT is
the old tree or the new one, never half of one, and nothing is written outside OUT's own folder.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from plandvc import io
from plandvc.records import ChainResult
from plandvc.run.cache import Cache

RESULTS = "results.jsonl"
FAILED = "_failed"
COMMAND = "run-chains"


def is_run_output(out: Path) -> bool:
    """Whether folder `out` is a previous run-chains output: its results.jsonl names every entry in it."""
    try:
        results = io.read_jsonl(out / RESULTS)
    except io.InputError:
        return False
    if not all(isinstance(r, dict) and isinstance(r.get("key"), str) and "ok" in r for r in results):
        return False
    ok = {r["key"] for r in results if r["ok"]}
    failed = {r["key"] for r in results if not r["ok"]}
    for p in out.iterdir():
        if p.name == RESULTS:
            continue
        if p.name == FAILED and p.is_dir():
            if any(q.name not in failed for q in p.iterdir()):
                return False
        elif p.name not in ok:
            return False
    return True


def check_out(out: Path) -> None:
    """Before any work: OUT may be written (absent, empty, or a previous output of run-chains)."""
    io.check_output_dir(out, is_run_output, COMMAND)


@dataclass
class Finished:
    """One chain's outcome to publish: its result, and the cache entry holding its files (None: no files)."""

    result: ChainResult
    entry: Path | None = None


def publish(out: Path, finished: dict[str, Finished], cache: Cache) -> list[ChainResult]:
    """Assemble OUT from the finished chains (every chain of the run), then swap it in; returns the results."""
    for stale in out.parent.glob(f".{out.name}.tmp*"):  # left by a killed run
        shutil.rmtree(stale, ignore_errors=True)
    tmp = out.with_name(f".{out.name}.tmp-{os.getpid()}")
    tmp.mkdir(parents=True)
    try:
        results = []
        for key in sorted(finished):
            done = finished[key]
            res = done.result
            results.append(res)
            dest = tmp / (key if res["ok"] else f"{FAILED}/{key}")
            dest.mkdir(parents=True)
            if done.entry is not None:
                for f in cache.files(done.entry):
                    shutil.copyfile(f, dest / f.name)
            if not res["ok"]:
                (dest / "error.txt").write_text(str(res.get("error")) + "\n")
        io.write_jsonl(tmp / RESULTS, results, sort_keys=True)
        io.publish_dir(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return results
