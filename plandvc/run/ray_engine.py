"""The Ray engine of run-chains (`--engine ray`): the same chains, run by browser actors on a Ray cluster.

It implements `plandvc.run.engine.Engine`: the runner stays what it is for the local engine (it checks every
input, fingerprints every chain, reuses the cache, records each final attempt and publishes OUT). Only where
an attempt runs changes: an actor makes it with `plandvc.run.worker.attempt` on its own `Worker`, so the
output is byte-identical to `--engine local`, and a run resumes from either engine's cache.

- **Where**: `RAY_ADDRESS` when set, else a local Ray started for this run (`plandvc.run.ray_cluster`).
- **Browser actors**: `--workers` actors, each holding one Chromium and its own site servers on its node's
  loopback (the per-session state stays on the node). Each takes one unit of the custom resource
  `plandvc_browser`, so a node started with `--resources '{"plandvc_browser": N}'` runs at most N
  browsers. Actors need no working directory: every node runs the same install (the image), and the driver
  sends the sites and each chain's parts with the work. An actor whose code or environment (plandvc,
  Playwright, Chromium, image) differs from the others' stops the run before any chain: one line.
- **Window**: one chain in flight per actor; the next goes out when one comes back.
- **Hangs and deaths**: a dispatch is one attempt, and its outcome goes through the engine's `verdict`;
  a retry goes to any live actor. Every dispatch has a deadline (the chain's own timeout plus a minute).
  A chain past it is cancelled by force: its actor is killed (a hang inside Chromium or a blocked event
  loop cannot be cancelled from inside) and Ray restarts it; that is a hang (retried once, then published
  as the chain's failure, never cached). A chain whose actor died lost its machinery: retried up to
  `ATTEMPTS`, after which the run publishes nothing and exits 75, as the local engine does.
- **Every actor gone**: a dead actor is waited for while Ray restarts it (`REVIVE_TIMEOUT_S`); when none
  comes back (every browser node lost, no room left), the chains left are lost: nothing is published and
  the run exits 75 with one line, as when any chain's machinery is lost.
- **Stats**: each dispatch comes back with the memory model's fallbacks counted during it, so the run
  summary's `memory` is their sum over the actors (a local run's comes from its one client).
- **Cluster gone**: Ray ends a driver process whose node or cluster goes away at once, so the engine asks
  for a process of its own (`own_process`: `plandvc.run.process.in_driver_process`); such an end is one
  line and exit 75 too (nothing published, the finished chains cached).
- **Stop**: Ctrl-C, `kill -INT` or SIGTERM closes every actor (its browser and servers) and, for a local Ray,
  Ray; a second stop ends the driver at once (Ray then ends the actors it owned). `ray.init` installs
  SIGTERM handlers of Ray's own that would end the driver unwound: the run's are put back.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import os
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, ClassVar, Protocol, TypeVar

from plandvc.records import ChainSpec
from plandvc.run.actor import ActorInfo, ActorSetupError, ChainWorker, Dispatched, Job
from plandvc.run.chain import ChainOutput, RunParams, base_result
from plandvc.run.engine import Attempt, EngineConfig, Settle, Verdict, verdict
from plandvc.run.fingerprint import Environment
from plandvc.run.inputs import ChainJob
from plandvc.run.progress import Progress
from plandvc.run.ray_cluster import RESOURCE, RayUnavailable, connect, error_line, import_ray

MAX_RESTARTS = 4  # restarts of one browser actor (after a kill or a crash)
GRACE_S = 60.0  # a dispatch's deadline beyond the chain's own timeout
PLACE_TIMEOUT_S = 180.0  # how long the run waits for its actors to start
REVIVE_TIMEOUT_S = 300.0  # how long a restarted actor may take to come back before it is dropped
CLOSE_TIMEOUT_S = 20.0
DEADLINE_ENV = "PLANDVC_RAY_DEADLINE"  # seconds: overrides every dispatch's deadline (tests)
REVIVE_ENV = "PLANDVC_RAY_REVIVE"  # seconds: overrides REVIVE_TIMEOUT_S (tests)
HANG_ENV = "PLANDVC_RAY_TEST_HANG"  # test-only: the first dispatch of this chain key blocks its actor

T = TypeVar("T")
# a Ray actor handle: its methods' `.remote` are made by Ray at run time, so they have no static type
ActorHandle = Any


def site_files(sites: Path) -> dict[str, bytes]:
    """The sites folder as {relative path: bytes}: sent to every actor, so nodes need no checkout."""
    return {p.relative_to(sites).as_posix(): p.read_bytes() for p in sorted(sites.rglob("*")) if p.is_file()}


def dispatch_deadline(chain: ChainSpec, params: RunParams) -> float:
    """Seconds a dispatch (one attempt) may take: the chain's own timeout plus a grace."""
    if os.environ.get(DEADLINE_ENV):
        return float(os.environ[DEADLINE_ENV])
    turns = len(chain["parts"]) + sum(p.get("via") == "home" for p in chain["parts"]) + 1
    return params.timeout_base + params.timeout_per_turn * turns + GRACE_S


def same_environment(infos: list[ActorInfo], code: str, where: str) -> Environment:
    """The environment every actor reported; a one-line error when two differ or an actor's code is not
    the driver's (its rows would then carry another fingerprint's bytes)."""
    first = infos[0]
    for info in infos:
        if info.code != code:
            raise RayUnavailable(
                f"node {info.node[:8]} of {where} runs other plandvc code than this driver: install the same "
                "plandvc on every node"
            )
        if info.env != first.env:
            diff = sorted(k for k in {*first.env, *info.env} if first.env.get(k) != info.env.get(k))
            theirs = ", ".join(f"{k} {first.env.get(k)!r} vs {info.env.get(k)!r}" for k in diff)
            raise RayUnavailable(
                f"browser actors on nodes {first.node[:8]} and {info.node[:8]} of {where} differ in {theirs}: "
                "run the same image on every node"
            )
    return first.env


@dataclass
class Flight:
    """The jobs of one `run` still without a final verdict, and the actors still alive to take them."""

    outstanding: int
    live: int
    settle: Settle
    finished: asyncio.Event = field(default_factory=asyncio.Event)
    dispatches: Counter[str] = field(default_factory=Counter)

    def done(self, w: int, job: ChainJob, a: Attempt, what: Verdict, t0: float) -> None:
        self.settle(w, job, a, what, t0)
        self.outstanding -= 1
        if self.outstanding == 0:
            self.finished.set()


class RayEngine:
    """Runs chain jobs on browser actors (see `plandvc.run.engine.Engine`)."""

    own_process: ClassVar[bool] = True  # Ray ends a driver whose cluster is gone at once

    def __init__(self, cfg: EngineConfig) -> None:
        self.cfg = cfg
        self.ray: ModuleType | None = None
        self.where = ""
        self.actors: list[ActorHandle] = []
        self._files: object = None  # the sites, in Ray's object store
        self._hang_key = os.environ.get(HANG_ENV) or None
        # the memory model's fallbacks summed over every actor's dispatches (None: no memory model)
        self.fallbacks: Counter[str] | None = Counter() if cfg.params.memory_url else None

    async def start(self, progress: Progress) -> Environment:
        """Connect, start the browser actors and return the environment they all share."""
        self.ray = import_ray()
        self.where = connect(self.ray, self.cfg.workers)
        try:
            return await self._start_actors(self.ray)
        except BaseException:
            await self.close()
            raise

    async def _start_actors(self, ray: ModuleType) -> Environment:
        from plandvc.run.fingerprint import code_hash

        self._files = ray.put(site_files(self.cfg.sites))  # sent with ready(), so a restart finds them
        actor_class = ray.remote(ChainWorker).options(
            num_cpus=0, resources={RESOURCE: 1}, max_restarts=MAX_RESTARTS, max_task_retries=0
        )
        self.actors = [actor_class.remote(self.cfg.params, self.cfg.headful) for _ in range(self.cfg.workers)]
        pending = {
            asyncio.ensure_future(_await(a.ready.remote(self._files))): i for i, a in enumerate(self.actors)
        }
        done, late = await asyncio.wait(pending, timeout=PLACE_TIMEOUT_S)
        infos: dict[int, ActorInfo] = {}
        for fut in done:
            try:
                infos[pending[fut]] = fut.result()
            except Exception as e:
                raise RayUnavailable(
                    f"a browser actor on {self.where} failed to start: {_cause(e)}"
                ) from None
        for fut in late:
            fut.cancel()
        if not infos:
            raise RayUnavailable(
                f"no browser actor started on {self.where} within {PLACE_TIMEOUT_S:.0f}s: start nodes with "
                f"--resources '{{\"{RESOURCE}\": N}}'"
            )
        if late:
            for i in sorted(pending[f] for f in late):
                ray.kill(self.actors[i], no_restart=True)
            self.actors = [a for i, a in enumerate(self.actors) if i in infos]
            print(
                f"run-chains: {len(infos)} of {self.cfg.workers} browser actors started on {self.where} "
                f"within {PLACE_TIMEOUT_S:.0f}s (no room for more? raise the nodes' {RESOURCE} resource)",
                file=sys.stderr,
            )
        return same_environment([infos[i] for i in sorted(infos)], code_hash(), self.where)

    async def run(self, todo: asyncio.Queue[ChainJob], settle: Settle) -> None:
        """Send every job out (one attempt in flight per actor) until each has its final verdict."""
        if todo.empty():
            return
        flight = Flight(todo.qsize(), len(self.actors), settle)
        feeders: list[asyncio.Future[object]] = [
            asyncio.ensure_future(self._feed(w, a, todo, flight)) for w, a in enumerate(self.actors)
        ]
        tasks: list[asyncio.Future[object]] = [asyncio.ensure_future(flight.finished.wait()), *feeders]
        try:
            while not flight.finished.is_set():
                await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
                for f in feeders:
                    err = f.exception() if f.done() and not f.cancelled() else None
                    if err is not None:
                        raise err
                if all(f.done() for f in feeders) and not flight.finished.is_set():
                    raise RuntimeError("the Ray engine's feeders stopped with chains left")
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    async def _feed(self, w: int, actor: ActorHandle, todo: asyncio.Queue[ChainJob], flight: Flight) -> None:
        """Actor `w`'s loop: take a job, make one attempt, sort it; stop when the actor does not come back
        (the last live actor then settles every job left as lost)."""
        while not flight.finished.is_set():
            job = await todo.get()
            n = flight.dispatches[job.key]
            flight.dispatches[job.key] += 1
            t0 = time.monotonic()
            a, lost_actor = await self._dispatch(
                actor, Job(job, more=not todo.empty(), hang=self._hang(job, n))
            )
            what = verdict(a.out, a.lost, n)
            if lost_actor:
                then = "sending it again" if what == "retry" else f"giving up after {n + 1} dispatches"
                print(
                    f"run-chains: chain {job.key} lost on browser actor {w} ({lost_actor}); {then}",
                    file=sys.stderr,
                    flush=True,
                )
            if what == "retry":
                todo.put_nowait(job)  # any live actor takes it
            else:
                flight.done(w, job, a, what, t0)
            if lost_actor and not await self._revive(actor):
                flight.live -= 1
                if flight.live == 0:
                    why = f"ActorDied: no browser actor left on {self.where}"
                    while not todo.empty():
                        left = todo.get_nowait()
                        gone = Attempt(ChainOutput(base_result(left.chain, why)), True, 0.0)
                        flight.done(w, left, gone, "lost", time.monotonic())
                return

    def _hang(self, job: ChainJob, n: int) -> bool:
        return job.key == self._hang_key and n == 0

    async def _dispatch(self, actor: ActorHandle, job: Job) -> tuple[Attempt, str]:
        """One attempt on `actor`, and why the actor was lost during it ("" when it was not): past the
        deadline it is killed (a hang; Ray restarts it), and an actor that died lost the machinery."""
        assert self.ray is not None
        deadline = dispatch_deadline(job.job.spec, self.cfg.params)
        try:
            d: Dispatched = await asyncio.wait_for(_await(actor.run.remote(job)), deadline)
        except TimeoutError:
            self.ray.kill(actor, no_restart=False)
            why = f"TimeoutError: chain timed out after {deadline:.0f}s on {self.where} (actor killed)"
            return Attempt(ChainOutput(base_result(job.job.chain, why)), False, 0.0), why
        except Exception as e:  # the actor died (node lost, process killed): the machinery is lost
            why = f"ActorDied: {_cause(e)}"[:300]
            return Attempt(ChainOutput(base_result(job.job.chain, why)), True, 0.0), why
        if self.fallbacks is not None:
            self.fallbacks.update(d.fallbacks)
        return d.attempt, ""

    def memory_stats(self) -> dict[str, int] | None:
        """The memory model's fallbacks by reason, summed over the actors (what a local run reports from its
        one client); None without a memory model."""
        return None if self.fallbacks is None else dict(sorted(self.fallbacks.items()))

    async def _revive(self, actor: ActorHandle) -> bool:
        """Wait for a killed or crashed actor to come back (restarted by Ray); False when it does not."""
        timeout = float(os.environ.get(REVIVE_ENV) or REVIVE_TIMEOUT_S)
        try:
            await asyncio.wait_for(_await(actor.ready.remote(self._files)), timeout)
            return True
        except Exception:
            return False

    async def close(self) -> None:
        """Close every actor (browser, servers) and stop a local Ray; the cluster's work ends with the run."""
        if self.ray is None:
            return
        ray = self.ray
        if self.actors:
            closes = [_await(a.close.remote()) for a in self.actors]
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(asyncio.gather(*closes, return_exceptions=True), CLOSE_TIMEOUT_S)
            for a in self.actors:
                with contextlib.suppress(Exception):
                    ray.kill(a, no_restart=True)
            self.actors = []
        with contextlib.suppress(Exception):
            ray.shutdown()
        self.ray = None


class ObjectRef(Protocol[T]):
    """What the engine uses of a Ray ObjectRef: its value as a concurrent future."""

    def future(self) -> concurrent.futures.Future[T]: ...


async def _await(ref: ObjectRef[T]) -> T:
    """An ObjectRef's value in asyncio."""
    return await asyncio.wrap_future(ref.future())


def _cause(e: BaseException) -> str:
    """The first useful line of a Ray error (a task error carries its cause)."""
    cause = getattr(e, "cause", None)
    if isinstance(cause, ActorSetupError):
        return str(cause)
    if isinstance(cause, BaseException):
        return f"{type(cause).__name__}: {error_line(cause)}"
    return f"{type(e).__name__}: {error_line(e)}"
