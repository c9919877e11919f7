"""run-chains: check every input, then run the chains on workers (one browser each, a fresh context per
chain) and publish the stage's output from the per-chain cache.

The run is a short pipeline: `plan_run` checks all the inputs before anything starts (the chain list, its
parts, the sites, that OUT, the cache and the log can be written); `Ledger` decides where each chain's
outcome goes (the cache, or nowhere) and publishes OUT at the end (`plandvc.run.publish`); `run_job` runs
one chain in a given session and is the seam another engine can drive; `Worker` owns one browser and
recovers the machinery between attempts; `attempt` is one try of a chain on a worker, and `Run.settle`
records a chain's final try. `--engine ray` (`plandvc.run.ray_engine`) makes the attempts on Ray actors
and keeps everything else here.

A failed chain is sorted once, in `verdict`: the chain's own failure (a check that fails, a script not
finished, an action error) is final and cached; the machinery lost (the Playwright driver, Chromium or a
site server died: the chain ran on something that is gone) is never a result: the machinery is recovered
(driver and browser relaunched, server restarted) and the chain runs again, up to `ATTEMPTS` times; a hang
or an error that escaped the harness on a live machine is retried once, then published as the chain's
failure but not cached. If any chain still lost its machinery, the run publishes nothing and exits
non-zero; the cache keeps every chain that finished, so the next run resumes.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict

from plandvc import io
from plandvc.pool.store import Pool, hash_files
from plandvc.ports import free_ports
from plandvc.records import ChainResult, ChainSpec, Part
from plandvc.run.cache import Cache
from plandvc.run.chain import ChainOutput, RunParams, SiteInfo, base_result, run_chain
from plandvc.run.fingerprint import chain_fingerprint, code_hash, environment, tree_hash
from plandvc.run.inputs import ChainJob, load_jobs
from plandvc.run.progress import Progress
from plandvc.run.publish import Finished, check_out, publish
from plandvc.run.sessions import Sessions

if TYPE_CHECKING:
    from plandvc.browser import Browser
    from plandvc.browser.protocol import SessionProtocol
    from plandvc.memory import MemoryModel
    from plandvc.run.ray_engine import RayEngine
    from plandvc.sites.servers import Servers

# errors that say the machinery failed, not the chain: retried on a fresh context, never cached.
# A bare Playwright `Error` escaped the harness (which turns what an action can do wrong into ActionError
# or StaleIndexError), and a chain timeout is a hang: both are the machine's, not the chain's.
INFRA_ERRORS = (
    "TargetClosedError",
    "BrowserCrashed",
    "ServerDownError",
    "Target page, context or browser has been closed",
)
INFRA_PREFIXES = ("Error:", "TimeoutError: chain timed out")
# of those, the ones that say a part of the machinery is gone (never a published result)
LOST_ERRORS = (*INFRA_ERRORS, "Connection closed", "BrowserError")
OWN_PREFIXES = ("check failed:", "script not finished")
ATTEMPTS = 3  # runs of a chain whose machinery was lost, each after a recovery
HANG_ATTEMPTS = 2  # runs of a chain that hung (or escaped the harness) on a live machine
EXIT_INFRA = 75  # the machinery failed and did not recover: try again (EX_TEMPFAIL)


class InfrastructureError(Exception):
    """The machinery failed and could not be recovered: nothing was published (one line)."""


def is_infra(error: str | None, browser_alive: bool = True) -> bool:
    """Whether a failed chain's error is the machinery's (retry it) rather than the chain's own."""
    text = str(error or "")
    return not browser_alive or text.startswith(INFRA_PREFIXES) or any(s in text for s in INFRA_ERRORS)


def is_lost(error: str | None) -> bool:
    """Whether a chain's error says the machinery it ran on is gone (driver, browser, server); a failed
    check or an unfinished script is the chain's own whatever its detail quotes."""
    text = str(error or "")
    if text.startswith(OWN_PREFIXES):
        return False
    return any(s in text for s in LOST_ERRORS)


@dataclass
class RunConfig:
    chains: Path
    pool: Path
    sites: Path
    out: Path
    params: RunParams = field(default_factory=RunParams)
    workers: int = 1
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


async def run_job(
    job: ChainJob,
    session: SessionProtocol,
    params: RunParams,
    memory: MemoryModel | None,
    env: dict[str, Any],
) -> ChainOutput:
    """Run one chain job in a given session (the seam for another engine): its output, never an exception."""
    return await run_chain(job.spec, job.parts, session, job.site, params, memory, env)


class Ledger:
    """Where each chain's outcome goes: a finished chain into the cache (verified on reuse), a hang into the
    output only, a chain whose machinery was lost nowhere; `publish` writes OUT at the end."""

    def __init__(self, cache: Cache, jobs: list[ChainJob], run_inputs: dict[str, Any]) -> None:
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


class ServerWatch:
    """The site servers, restarted when found dead, with a count of restarts per server (so a chain knows
    whether its server died under it)."""

    def __init__(self, servers: Servers | None, progress: Progress) -> None:
        self.servers, self.progress = servers, progress
        self.restarts: Counter[int] = Counter()

    def ensure_alive(self) -> None:
        if self.servers is None:
            return
        for i in self.servers.ensure_alive():
            self.restarts[i] += 1
            self.progress.note(f"site server on port {self.servers.ports[i]} was lost: restarted it")


class Worker:
    """One browser (relaunched, or replaced with a fresh Playwright driver, when lost) and its sessions."""

    def __init__(self, w: int, base: str, headful: bool, progress: Progress) -> None:
        from plandvc.browser import Browser

        self.w, self.base, self.headful, self.progress = w, base, headful, progress
        self.browser = Browser(headless=not headful)
        self.sessions = Sessions(self.browser, base)
        self.generation = 0  # browsers replaced so far

    async def start(self) -> None:
        await self.browser.start()

    async def recover(self) -> None:
        """Make the browser usable: relaunch Chromium if it died; if that fails (the driver is gone), start
        a new driver and browser."""
        from plandvc.browser import Browser

        if self.browser.alive:
            return
        try:
            if await asyncio.wait_for(self.browser.ensure_alive(), 60):
                self.generation += 1
                self.progress.note(f"worker {self.w}: chromium was lost: relaunched it")
            return
        except Exception:
            pass
        await self.sessions.aclose()
        await _close_quietly(self.browser)
        self.browser = Browser(headless=not self.headful)
        self.sessions = Sessions(self.browser, self.base)
        await self.browser.start()
        self.generation += 1
        self.progress.note(f"worker {self.w}: the browser driver was lost: started a new one")

    def mark(self) -> tuple[int, int]:
        return self.generation, self.browser.launches

    def lost_since(self, mark: tuple[int, int]) -> bool:
        return not self.browser.alive or self.mark() != mark

    async def close(self) -> None:
        await self.sessions.aclose()
        await _close_quietly(self.browser)


async def _close_quietly(browser: Browser) -> None:
    with contextlib.suppress(Exception):
        await asyncio.wait_for(browser.close(), 30)


def verdict(out: ChainOutput, lost: bool, attempt: int) -> str:
    """What a chain's outcome is: "done" (final: cache it), "retry", "hang" (final, never cached), "lost"."""
    error = out.result.get("error")
    if out.result["ok"]:
        return "done"
    if lost or is_lost(error):
        return "retry" if attempt + 1 < ATTEMPTS else "lost"
    if is_infra(error):
        return "retry" if attempt + 1 < HANG_ATTEMPTS else "hang"
    return "done"


@dataclass
class Attempt:
    """One attempt of a chain on a worker: its output, whether the machinery it ran on was lost during it
    (the browser, or the site server), and the seconds its session took to open."""

    out: ChainOutput
    lost: bool
    t_open: float


async def attempt(
    worker: Worker,
    watch: ServerWatch,
    server: int,
    job: ChainJob,
    params: RunParams,
    memory: MemoryModel | None,
    env: dict[str, Any],
    more: bool,
) -> Attempt:
    """Run `job` once on `worker` (recovering its browser first, restarting a dead server): a local worker
    and a Ray actor both call this, and the caller applies `verdict`. `more` says another chain follows on
    this worker (its context then opens while this one runs)."""
    watch.ensure_alive()
    restarts = watch.restarts[server]
    t_open = time.perf_counter()
    try:
        await worker.recover()
        session = await worker.sessions.take()
    except Exception as e:  # the browser cannot start: the machinery is lost for this attempt
        out = ChainOutput(
            base_result(job.chain, f"BrowserCrashed: {type(e).__name__}: {_first_line(e)}"[:300])
        )
        session = None
    t_open = time.perf_counter() - t_open
    mark = worker.mark()
    if session is not None:
        if more:
            worker.sessions.open_ahead()  # the next chain's context opens while this one runs
        try:
            out = await run_job(job, session, params, memory, env)
        finally:
            worker.sessions.release(session)
    if not out.result["ok"]:
        watch.ensure_alive()
    lost = session is None or worker.lost_since(mark) or watch.restarts[server] != restarts
    return Attempt(out, lost and not out.result["ok"], t_open)


class Run:
    """One run-chains run over checked jobs: workers take jobs from a queue and record them in the ledger."""

    def __init__(self, cfg: RunConfig, ledger: Ledger, watch: ServerWatch, progress: Progress) -> None:
        self.cfg, self.ledger, self.watch, self.progress = cfg, ledger, watch, progress
        self.memory: MemoryModel | None = None
        self.env: dict[str, Any] = {}
        self.timings: list[dict[str, Any]] = []

    async def work(self, worker: Worker, todo: asyncio.Queue[ChainJob]) -> None:
        while not todo.empty():
            job = todo.get_nowait()
            await self.one_chain(worker, job, more=not todo.empty())

    async def one_chain(self, worker: Worker, job: ChainJob, more: bool) -> None:
        server = worker.w % max(1, len(self.watch.servers.ports) if self.watch.servers else 1)
        for n in range(ATTEMPTS):
            t0 = time.monotonic()
            a = await attempt(worker, self.watch, server, job, self.cfg.params, self.memory, self.env, more)
            what = verdict(a.out, a.lost, n)
            if what != "retry":
                break
        self.settle(worker.w, job, a, what, t0)

    def settle(self, w: int, job: ChainJob, a: Attempt, what: str, t0: float) -> None:
        """Record a chain's final attempt (from either engine) by its verdict: in the ledger, timed, counted."""
        out = a.out
        if what == "lost":
            self.ledger.record_lost(job, str(out.result.get("error")))
            return
        t_write = time.perf_counter()
        self.ledger.record(job, out, cached=what == "done")
        self.timings.append(
            {
                "key": job.key,
                "seconds": round(time.monotonic() - t0, 3),
                "worker": w,
                "phases": {
                    **out.clock.rounded(),
                    "session_open": round(a.t_open, 4),
                    "row_writing": round(time.perf_counter() - t_write, 4),
                },
                "turns": out.result.get("turns"),
            }
        )
        self.progress.add(bool(out.result["ok"]), reused=False)


def _first_line(e: BaseException) -> str:
    lines = [ln for ln in str(e).splitlines() if ln.strip()]
    return lines[0] if lines else ""


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


async def _run(cfg: RunConfig, plan: RunPlan, bases: list[str], servers: Servers | None) -> RunSummary:
    from plandvc.memory import connect_or_none

    t_start = time.monotonic()
    progress = Progress(len(plan.jobs), cfg.progress)
    watch = ServerWatch(servers, progress)
    n_workers = max(1, min(cfg.workers, len(plan.jobs) or 1))
    engine: RayEngine | None = (
        None  # the Ray engine runs the attempts on its actors; the rest of the run is the same
    )
    workers: list[Worker] = []
    memory: MemoryModel | None = None
    try:
        if cfg.engine == "ray":
            from plandvc.run.ray_engine import RayEngine

            engine = RayEngine(cfg, n_workers)
            env = await engine.start()  # the environment every browser actor reported (all the same)
        else:
            workers = [Worker(w, bases[w % len(bases)], cfg.headful, progress) for w in range(n_workers)]
            memory = await connect_or_none(cfg.params.memory_url, cfg.params.memory_model)
            await workers[0].start()
            env = environment(workers[0].browser.version, workers[0].browser.binary)
        run_inputs = {
            "params": asdict(cfg.params),
            "code": code_hash(),
            "sites": tree_hash(cfg.sites),
            "env": env,
        }
        cache = Cache(cfg.cache)
        cfg.cache.mkdir(parents=True, exist_ok=True)
        ledger = Ledger(cache, plan.all_jobs, run_inputs)
        run = Run(cfg, ledger, watch, progress)
        run.memory, run.env = memory, env
        todo: asyncio.Queue[ChainJob] = asyncio.Queue()
        for job in ledger.reuse(plan.jobs, progress):
            todo.put_nowait(job)
        t0 = time.monotonic()
        await asyncio.gather(*(wk.start() for wk in workers[1:]))
        startup = time.monotonic() - t_start
        if engine is not None:
            await engine.run(todo, run)
        else:
            await asyncio.gather(*(run.work(wk, todo) for wk in workers))
    finally:
        progress.close()
        await asyncio.gather(*(wk.close() for wk in workers), return_exceptions=True)
        if engine is not None:
            await engine.aclose()
        if memory is not None:
            await memory.close()
    results = ledger.publish(cfg.out)
    if cfg.shard is None and not cfg.limit:  # keep the cache to what this chain list uses
        cache.prune(e.name for e in ledger.entries.values())
    summary: RunSummary = {
        "chains": len(plan.jobs),
        "ok": sum(r["ok"] for r in results),
        "failed": sum(not r["ok"] for r in results),
        "reused": progress.tally["reused"],
        "workers": n_workers,
        "wall_s": round(time.monotonic() - t0, 2),
        "startup_s": round(startup, 2),
        "memory": dict(memory.stats) if memory is not None else None,
        "errors": dict(Counter(str(r.get("error")).split(":")[0] for r in results if not r["ok"])),
    }
    if engine is not None:  # the memory model's fallbacks, summed over the Ray engine's actors
        summary["memory"] = engine.memory_stats()
    if cfg.log:
        io.write_json(cfg.log, {"summary": summary, "chains": sorted(run.timings, key=lambda t: t["key"])})
    return summary


def run_chains(cfg: RunConfig) -> RunSummary:
    """Check every input, run every chain of `cfg.chains` (resuming from the cache) and publish `cfg.out`;
    returns a summary. Raises InputError (bad input, nothing written) or InfrastructureError (nothing
    published, finished chains cached)."""
    from plandvc.sites.servers import Servers

    plan = plan_run(cfg)
    if cfg.engine == "ray":  # each browser actor serves the sites on its own node's loopback
        from plandvc.run.ray_engine import in_driver_process

        return in_driver_process(lambda: _run_in_loop(cfg, plan, [], None, once=True))
    ports = cfg.ports or free_ports(max(1, min(cfg.workers, 2)))
    with Servers(ports, cfg.sites) as servers:
        return _run_in_loop(cfg, plan, servers.bases, servers)


def _dump_tasks() -> None:
    """SIGUSR1: print where every task of the run is waiting (for a run that seems stuck)."""
    for t in asyncio.all_tasks():
        print(f"--- task {t.get_name()}", file=sys.stderr)
        coro: Any = t.get_coro()
        while coro is not None:
            frame = getattr(coro, "cr_frame", None) or getattr(coro, "ag_frame", None)
            if frame is not None:
                print(
                    f"  {frame.f_code.co_filename}:{frame.f_lineno} {frame.f_code.co_name}", file=sys.stderr
                )
            coro = getattr(coro, "cr_await", None) or getattr(coro, "ag_await", None)
    sys.stderr.flush()


def _quiet_lost_futures(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    """Drop "Future exception was never retrieved" for a lost driver or browser: Playwright's pending calls
    (and its transport's own error future, a bare `Exception("Connection closed ...")`) fail with nobody
    waiting; the loss is already handled and reported. Anything else goes to the default handler."""
    exc = context.get("exception")
    lost = exc is not None and (
        type(exc).__module__.startswith("playwright") or str(exc).startswith("Connection closed")
    )
    if lost and "never retrieved" in str(context.get("message", "")):
        return
    loop.default_exception_handler(context)


def _run_in_loop(
    cfg: RunConfig, plan: RunPlan, bases: list[str], servers: Servers | None, once: bool = False
) -> RunSummary:
    """asyncio.run with SIGTERM turned into a cancellation, so browsers and servers are stopped cleanly;
    SIGINT is asyncio's (a cancellation, then KeyboardInterrupt; a second one at once). With `once` (the Ray
    engine's driver process, which gets a stop both from the process group and from its parent) SIGINT is
    a cancellation too, and only the first stop counts. A SIGINT inherited ignored stays ignored."""
    interruptible = signal.getsignal(signal.SIGINT) is signal.default_int_handler

    async def main() -> RunSummary:
        task = asyncio.current_task()
        loop = asyncio.get_running_loop()
        assert task is not None
        stopped: list[int] = []

        def stop(sig: int) -> None:
            if not (once and stopped):
                stopped.append(sig)
                task.cancel()

        stops = [signal.SIGTERM, *([signal.SIGINT] if once and interruptible else [])]
        loop.set_exception_handler(_quiet_lost_futures)
        for sig in stops:
            loop.add_signal_handler(sig, stop, sig)
        loop.add_signal_handler(signal.SIGUSR1, _dump_tasks)
        try:
            return await _run(cfg, plan, bases, servers)
        except asyncio.CancelledError:
            if stopped[:1] == [signal.SIGINT]:
                raise KeyboardInterrupt from None
            raise
        finally:
            for sig in (*stops, signal.SIGUSR1):
                loop.remove_signal_handler(sig)

    return asyncio.run(main())
