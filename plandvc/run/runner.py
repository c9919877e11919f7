"""run-chains: check every input, run the chains on an engine and publish the stage's output from the
per-chain cache.

The run is a short pipeline: `plan_run` checks all the inputs before anything starts (the chain list, its
parts, the sites, that OUT, the cache and the log can be written); the `Ledger` fingerprints every chain,
reuses the cache, decides where each chain's outcome goes (the cache, or nowhere) and publishes OUT at the
end (`plandvc.run.publish`); an `Engine` (`plandvc.run.engine`: the local one, or Ray's) makes the
attempts and hands each chain's final one to `Run.settle`, which records, times and counts it. The runner
never asks which engine it has: each is built from `ENGINES` and runs in the process life it asks for
(`plandvc.run.process`).

If any chain lost its machinery, the run publishes nothing and ends with an `InfrastructureError` (exit
75); a stop ends it with `Interrupted` / `Terminated` (exit 130 / 143). Either way the cache keeps every
chain that finished, so the next run resumes.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TypedDict

from plandvc import io
from plandvc.errors import InfrastructureError
from plandvc.io import tree_hash
from plandvc.pool.store import Pool, hash_files
from plandvc.records import ChainResult, ChainSpec, Part
from plandvc.run import process
from plandvc.run.cache import Cache
from plandvc.run.chain import ChainOutput, RunParams, SiteInfo
from plandvc.run.engine import Attempt, Engine, EngineConfig, Verdict
from plandvc.run.fingerprint import RunInputs, chain_fingerprint, code_hash
from plandvc.run.inputs import ChainJob, load_jobs
from plandvc.run.local import LocalEngine
from plandvc.run.progress import Progress
from plandvc.run.publish import COMMAND, Finished, check_out, publish
from plandvc.run.ray_engine import RayEngine

# the engines a run can use, by `--engine` name; neither changes a byte of the output
ENGINES: dict[str, Callable[[EngineConfig], Engine]] = {"local": LocalEngine, "ray": RayEngine}
KEPT = "finished chains are kept in the cache for the next run"  # what a stopped run says it kept


@dataclass
class RunConfig:
    chains: Path
    pool: Path
    sites: Path
    out: Path
    params: RunParams = field(default_factory=RunParams)
    workers: int = 2  # browsers in parallel (run-chains --workers); never changes the output
    ports: list[int] | None = None
    limit: int = 0
    shard: tuple[int, int] | None = None
    headful: bool = False
    cache: Path = Path(".plandvc/cache/run_chains")
    log: Path | None = None
    progress: bool = True
    allow_empty: bool = False
    engine: str = "local"  # where chains run: "local" or "ray" (plandvc.run.ray_engine); never the output


def load_chains(path: Path, limit: int = 0, shard: tuple[int, int] | None = None) -> list[object]:
    """The chain list's lines, sharded then limited (checked by `plandvc.run.inputs.load_jobs`)."""
    chains = io.read_jsonl(path)
    if shard:
        k, n = shard
        chains = chains[k::n]
    return chains[:limit] if limit else chains


def load_parts(pool: Pool, chain: ChainSpec) -> tuple[list[Part], str]:
    """The chain's parts ({id, task, traj, elements}, through the pool's reader) and the hash of their files."""
    ids = [p["id"] for p in chain["parts"]]
    return [pool.part(i) for i in ids], pool.files_hash(ids)


@dataclass
class RunPlan:
    """The run's inputs, all checked: the chain jobs to run (after --shard / --limit) and every job of the file."""

    jobs: list[ChainJob]
    all_jobs: list[ChainJob]


def plan_run(cfg: RunConfig) -> RunPlan:
    """Check every input before any work: the sites, every chain and its parts, and that OUT, the cache and
    the log can be written. One InputError lists every problem; nothing is written."""
    from plandvc.browser.chromium import chromium_path
    from plandvc.browser.errors import ChromiumMissingError
    from plandvc.sites.spec import load_sites, site_name

    if cfg.params.memory_url and not cfg.params.memory_model:
        raise io.InputError(
            "--memory-model: needed with --memory-url (the memory model's name on that server)"
        )
    chromium = Path(chromium_path(headless=not cfg.headful))
    if not (chromium.is_file() and os.access(chromium, os.X_OK)):
        raise io.InputError(str(ChromiumMissingError(str(chromium))))
    specs = load_sites(cfg.sites)
    sites = {s: SiteInfo(site_name(cfg.sites, s), specs[s].today) for s in specs}
    lines = io.read_jsonl(cfg.chains)
    all_jobs = load_jobs(cfg.chains, lines, cfg.pool, sites, allow_empty=cfg.allow_empty)
    check_out(cfg.out)
    out, cache = cfg.out.resolve(), cfg.cache.resolve()
    if out == cache or cache in out.parents or out in cache.parents:
        raise io.InputError(f"--out {cfg.out}: must not be inside --cache {cfg.cache} nor contain it")
    io.check_writable(cfg.cache, "--cache")
    if cfg.log is not None:
        io.check_writable(cfg.log, "--log")
    jobs = all_jobs
    if cfg.shard:
        k, n = cfg.shard
        jobs = jobs[k::n]
    if cfg.limit:
        jobs = jobs[: cfg.limit]
    return RunPlan(jobs, all_jobs)


class Ledger:
    """Where each chain's outcome goes: a finished chain into the cache (verified on reuse), a hang into the
    output only, a chain whose machinery was lost nowhere; `publish` writes OUT at the end."""

    def __init__(self, cache: Cache, jobs: list[ChainJob], run_inputs: RunInputs) -> None:
        self.cache = cache
        self.entries = {
            j.key: cache.entry(chain_fingerprint(j.chain, hash_files(j.files), run_inputs)) for j in jobs
        }
        self.finished: dict[str, Finished] = {}
        self.lost: dict[str, str] = {}

    def reuse(self, jobs: list[ChainJob], progress: Progress) -> list[ChainJob]:
        """Take every chain whose cache entry is whole; the jobs left to run."""
        todo = []
        for j in jobs:
            result = self.cache.read(self.entries[j.key])
            if result is None:
                todo.append(j)
            else:
                self.finished[j.key] = Finished(result, self.entries[j.key])
                progress.add(bool(result["ok"]), reused=True)
        return todo

    def record(self, job: ChainJob, out: ChainOutput, cached: bool = True) -> None:
        if cached:
            entry = self.entries[job.key]
            self.cache.write(entry, out)
            self.finished[job.key] = Finished(out.result, entry)
        else:  # a hang: published as the chain's failure (it has no rows), never cached
            self.finished[job.key] = Finished(out.result)

    def record_lost(self, job: ChainJob, error: str) -> None:
        self.lost[job.key] = error

    def publish(self, out: Path) -> list[ChainResult]:
        """Publish OUT, or raise InfrastructureError (publishing nothing) when a chain lost its machinery."""
        if self.lost:
            key, error = sorted(self.lost.items())[0]
            raise InfrastructureError(
                f"{len(self.lost)} chain(s) could not run because the machinery failed and did not recover "
                f"(first: {key}: {error}); nothing was published, and the {len(self.finished)} finished chains "
                "are kept in the cache for the next run"
            )
        return publish(out, self.finished, self.cache)


class Run:
    """What a run records of each chain's final attempt: the ledger entry, its timing, the progress line."""

    def __init__(self, ledger: Ledger, progress: Progress) -> None:
        self.ledger, self.progress = ledger, progress
        self.timings: list[ChainTiming] = []

    def settle(self, w: int, job: ChainJob, a: Attempt, what: Verdict, t0: float) -> None:
        """Record a chain's final attempt (from either engine) by its verdict: in the ledger, timed, counted."""
        out = a.out
        if what == "lost":
            self.ledger.record_lost(job, str(out.result.get("error")))
            return
        t_write = time.perf_counter()
        self.ledger.record(job, out, cached=what == "done")
        phases = {
            **out.clock.rounded(),
            "session_open": round(a.t_open, 4),
            "row_writing": round(time.perf_counter() - t_write, 4),
        }
        self.timings.append(
            ChainTiming(
                key=job.key,
                seconds=round(time.monotonic() - t0, 3),
                worker=w,
                phases=phases,
                turns=out.result.get("turns"),
            )
        )
        self.progress.add(bool(out.result["ok"]), reused=False)


class ChainTiming(TypedDict):
    """One chain's line in the run log: where its time went."""

    key: str
    seconds: float
    worker: int
    phases: dict[str, float]
    turns: int | None


class RunSummary(TypedDict):
    """What a run did, for the command's last lines and the run log."""

    chains: int
    ok: int
    failed: int
    reused: int
    workers: int
    wall_s: float
    startup_s: float
    memory: dict[str, int] | None  # the memory model's fallbacks by reason (None: no memory model)
    errors: dict[str, int]  # failed chains by the first word of their error


async def _run(cfg: RunConfig, plan: RunPlan, engine: Engine) -> RunSummary:
    """Start the engine, reuse the cache, run the chains left, publish OUT; the run's summary."""
    t_start = time.monotonic()
    progress = Progress(len(plan.jobs), cfg.progress)
    try:
        env = await engine.start(progress)
        run_inputs: RunInputs = {
            "params": asdict(cfg.params),
            "code": code_hash(),
            "sites": tree_hash(cfg.sites),
            "env": env,
        }
        cache = Cache(cfg.cache)
        cfg.cache.mkdir(parents=True, exist_ok=True)
        ledger = Ledger(cache, plan.all_jobs, run_inputs)
        run = Run(ledger, progress)
        todo: asyncio.Queue[ChainJob] = asyncio.Queue()
        for job in ledger.reuse(plan.jobs, progress):
            todo.put_nowait(job)
        t0 = time.monotonic()
        startup = t0 - t_start
        await engine.run(todo, run.settle)
    finally:
        progress.close()
        await engine.close()
    results = ledger.publish(cfg.out)
    if cfg.shard is None and not cfg.limit:  # keep the cache to what this chain list uses
        cache.prune(e.name for e in ledger.entries.values())
    summary = RunSummary(
        chains=len(plan.jobs),
        ok=sum(r["ok"] for r in results),
        failed=sum(not r["ok"] for r in results),
        reused=progress.tally["reused"],
        workers=cfg_workers(cfg, plan),
        wall_s=round(time.monotonic() - t0, 2),
        startup_s=round(startup, 2),
        memory=engine.memory_stats(),
        errors=dict(Counter(str(r.get("error")).split(":")[0] for r in results if not r["ok"])),
    )
    if cfg.log:
        timings = sorted(run.timings, key=lambda t: t["key"])
        io.write_json(cfg.log, {"summary": summary, "chains": timings})
    return summary


def cfg_workers(cfg: RunConfig, plan: RunPlan) -> int:
    """The browsers the run starts: --workers, but no more than there are chains."""
    return max(1, min(cfg.workers, len(plan.jobs) or 1))


def run_chains(cfg: RunConfig) -> RunSummary:
    """Check every input, run every chain of `cfg.chains` (resuming from the cache) and publish `cfg.out`;
    returns a summary. OUT's lock (`io.exclusive`) is held from before the checks to the end, so a second
    run-chains on OUT is one line. Raises InputError (bad input, nothing written), InfrastructureError (nothing
    published, finished chains cached) or, when stopped, Interrupted / Terminated (the same)."""
    with io.exclusive(cfg.out, COMMAND):  # one writer of OUT, whichever engine: held until it is published
        plan = plan_run(cfg)
        engine = ENGINES[cfg.engine](
            EngineConfig(cfg.sites, cfg.params, cfg_workers(cfg, plan), cfg.headful, cfg.ports)
        )
        return process.run(lambda: _run(cfg, plan, engine), engine.own_process, KEPT)
