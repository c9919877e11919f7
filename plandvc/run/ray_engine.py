"""The Ray engine of run-chains (`--engine ray`): the same chains, run by browser actors on a Ray cluster.

The driver (`plandvc.run.runner`) stays what it is for the local engine: `plan_run` checks every input,
the `Ledger` fingerprints every chain, reuses the cache and publishes OUT, `verdict` sorts every failed
attempt, and `Run.settle` records, times and counts each chain. Only where an attempt runs changes: an
actor runs the runner's `attempt` (which calls `run_job`) on its own `Worker`, so the output is
byte-identical to `--engine local`, and a run resumes from either engine's cache.

- **Where**: `RAY_ADDRESS` when set (a cluster started with `ray start --head` / `ray start --address`),
  else a local Ray started for this run (small: no dashboard, one CPU, a 100 MiB object store, a short
  temp dir so its unix sockets stay under the 107-byte limit, on loopback only).
- **Browser actors**: `--workers` actors, each holding one Chromium and its own site servers on its node's
  loopback (the per-session state stays on the node). Each takes one unit of the custom resource
  `plandvc_browser`, so a node started with `--resources '{"plandvc_browser": N}'` runs at most N
  browsers. Actors need no working directory: every node runs the same install (the image), and the driver
  sends the sites and each chain's parts with the work. An actor whose code or environment (plandvc,
  Playwright, Chromium, image) differs from the others' stops the run before any chain: one line.
- **Window**: one chain in flight per actor; the next goes out when one comes back.
- **Hangs and deaths**: a dispatch is one attempt, and its outcome goes through the runner's `verdict`;
  a retry goes to any live actor. Every dispatch has a deadline (the chain's own timeout plus a minute).
  A chain past it is cancelled by force: its actor is killed (a hang inside Chromium or a blocked event
  loop cannot be cancelled from inside) and Ray restarts it; that is a hang (retried once, then published
  as the chain's failure, never cached). A chain whose actor died lost its machinery: retried up to the
  runner's `ATTEMPTS`, after which the run publishes nothing and exits 75, as the local engine does.
- **Every actor gone**: a dead actor is waited for while Ray restarts it (`REVIVE_TIMEOUT_S`); when none
  comes back (every browser node lost, no room left), the chains left are lost: nothing is published and
  the run exits 75 with one line, as when any chain's machinery is lost.
- **Stats**: each dispatch comes back with the memory model's fallbacks counted during it, so the run
  summary's `memory` is their sum over the actors (a local run's comes from its one client).
- **Cluster gone**: when the driver's own Ray node or the whole cluster goes away, Ray ends the driver
  process at once; the run's Ray side therefore runs in a forked driver process (`in_driver_process`), and
  such an end is one line and exit 75 too (nothing published, the finished chains cached).
- **Stop**: Ctrl-C, `kill -INT` or SIGTERM closes every actor (its browser and servers) and, for a local Ray,
  Ray; a second stop ends the driver at once (Ray then ends the actors it owned). `ray.init` installs
  SIGTERM handlers of Ray's own that would end the driver unwound: the run's are put back.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import os
import shutil
import signal
import socket
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from plandvc import io
from plandvc.ports import free_ports
from plandvc.run.chain import ChainOutput, RunParams, base_result
from plandvc.run.inputs import ChainJob
from plandvc.run.runner import (
    Attempt,
    InfrastructureError,
    Run,
    RunConfig,
    ServerWatch,
    Worker,
    attempt,
    verdict,
)

T = TypeVar("T")

RESOURCE = "plandvc_browser"  # custom resource: browsers a node may run
MAX_RESTARTS = 4  # restarts of one browser actor (after a kill or a crash)
GRACE_S = 60.0  # a dispatch's deadline beyond the chain's own timeout
PLACE_TIMEOUT_S = 180.0  # how long the run waits for its actors to start
REVIVE_TIMEOUT_S = 300.0  # how long a restarted actor may take to come back before it is dropped
LOCAL_OBJECT_STORE = 100 * 1024 * 1024
LOCAL_START_TRIES = 3  # a loaded machine can miss Ray's fixed start-up timeouts; a fresh start then works
# a unix socket path (sun_path) is at most 107 bytes; Ray's live in <temp dir>/session_<when>_<pid>/sockets/
SOCKET_PATH_MAX = 107
SESSION_SOCKET_TAIL = len("/session_2026-01-01_00-00-00_000000_4194304/sockets/plasma_store")
DEADLINE_ENV = "PLANDVC_RAY_DEADLINE"  # seconds: overrides every dispatch's deadline (tests)
REVIVE_ENV = "PLANDVC_RAY_REVIVE"  # seconds: overrides REVIVE_TIMEOUT_S (tests)
HANG_ENV = "PLANDVC_RAY_TEST_HANG"  # test-only: the first dispatch of this chain key blocks its actor
TMPDIR_ENV = "PLANDVC_RAY_TMPDIR"
# Ray's switch for clusters of many hosts: off, every node takes 127.0.0.1 for its address, so a Ray on one
# host listens and talks on loopback only (on, it takes the host's network address)
ONE_HOST_ENV = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"
INSTALL_HINT = "pip install 'plandvc[ray]' (make setup installs it)"


class RayUnavailable(io.InputError):
    """Ray missing, a cluster unreachable, or no actor able to run: one line naming what to do."""


class ActorSetupError(RuntimeError):
    """A browser actor could not start its servers or its browser (the message is the cause's one line)."""


@dataclass
class Job:
    """What one dispatch carries to a browser actor: the checked chain job (chain, parts, site) and hints."""

    job: ChainJob
    more: bool  # another chain will follow on this actor (its next context opens ahead)
    hang: bool = False  # test-only: block the actor (a hang nothing inside it can end)


@dataclass
class Dispatched:
    """What a browser actor hands back for one dispatch: the attempt, and the memory model's fallbacks (by
    reason) it counted during it, so the driver reports the run's figure summed over every actor."""

    attempt: Attempt
    fallbacks: dict[str, int]


@dataclass
class ActorInfo:
    """What a browser actor reports once it is up."""

    env: dict[str, Any]
    code: str
    node: str


def import_ray() -> Any:
    """Ray, set up not to re-create environments per worker; a clear line when it is not installed."""
    # `uv run` drivers would otherwise make Ray build a fresh environment for every worker process
    os.environ.setdefault("RAY_ENABLE_UV_RUN_RUNTIME_ENV", "0")
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    address = os.environ.get("RAY_ADDRESS", "").strip()
    if not address:
        # a local Ray uses a token (made once); said before Ray reads its config, it does not warn each start
        os.environ.setdefault("RAY_AUTH_MODE", "token")
    if not address or on_loopback(address):
        # a Ray on this host alone stays on loopback; a driver without the switch never joins a cluster
        # started with it (ray.init waits for ever), and one with it joins either kind
        os.environ.setdefault(ONE_HOST_ENV, "0")
    try:
        import ray
    except ImportError as e:
        raise RayUnavailable(f"run-chains --engine ray needs Ray ({e}): {INSTALL_HINT}") from None
    return ray


def on_loopback(address: str) -> bool:
    """Whether a cluster address (`host:port`, maybe `ray://`) names this host's loopback."""
    host = address.removeprefix("ray://").rpartition(":")[0].strip("[]")
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def temp_dir() -> str:
    """Ray's temp dir for a local start: short, so every unix socket path fits in 107 bytes."""
    path = os.environ.get(TMPDIR_ENV) or f"/tmp/plandvc-ray-{os.getuid()}"
    if len(path.encode()) + SESSION_SOCKET_TAIL >= SOCKET_PATH_MAX:
        room = SOCKET_PATH_MAX - SESSION_SOCKET_TAIL - 1
        raise RayUnavailable(f"{TMPDIR_ENV}={path}: too long for Ray's unix sockets (at most {room} bytes)")
    return path


def _first_line(e: BaseException) -> str:
    lines = [ln.strip() for ln in str(e).splitlines() if ln.strip()]
    return lines[0] if lines else type(e).__name__


def check_reachable(address: str, timeout: float = 5.0) -> None:
    """Fail fast, in one line, when a `host:port` cluster address does not answer."""
    host, sep, port = address.removeprefix("ray://").rpartition(":")
    if not sep or not port.isdigit():
        return  # "auto" and the like: Ray resolves them
    try:
        socket.create_connection((host.strip("[]") or "127.0.0.1", int(port)), timeout=timeout).close()
    except OSError as e:
        why = e.strerror or type(e).__name__
        raise RayUnavailable(f"cannot reach the Ray cluster at {address} (RAY_ADDRESS): {why}") from None


@contextlib.contextmanager
def own_stop_handlers() -> Iterator[None]:
    """Keep the run's SIGINT and SIGTERM handlers across `ray.init`: Ray sets its own (a `sys.exit` for
    SIGTERM, and its core worker's stack dump that ends the process), which would end the driver unwound,
    with no clean-up and no outcome."""
    saved = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, handler in saved.items():
            if handler is not None:
                signal.signal(sig, handler)


def connect(ray: Any, workers: int) -> str:
    """Join the cluster at RAY_ADDRESS, else start a small local Ray with room for `workers` browsers."""
    import logging

    common: dict[str, Any] = {
        "log_to_driver": False,
        "logging_level": logging.WARNING,
        "namespace": "plandvc",
        # no working_dir, no pip/conda: every node runs the same install, nothing is packaged
        "runtime_env": {"env_vars": {"RAY_ENABLE_UV_RUN_RUNTIME_ENV": "0"}},
    }
    address = os.environ.get("RAY_ADDRESS", "").strip()
    if address:
        check_reachable(address)
        try:
            with own_stop_handlers():
                ray.init(address=address, **common)
        except Exception as e:
            raise RayUnavailable(
                f"cannot connect to the Ray cluster at {address} (RAY_ADDRESS): {_first_line(e)}"
            ) from None
        return f"the Ray cluster at {address}"
    tmp = temp_dir()
    for try_no in range(LOCAL_START_TRIES):
        try:
            with own_stop_handlers():
                ray.init(
                    address="local",
                    num_cpus=1,
                    resources={RESOURCE: workers},
                    object_store_memory=LOCAL_OBJECT_STORE,
                    include_dashboard=False,
                    _temp_dir=tmp,
                    **common,
                )
            return "a local Ray"
        except Exception as e:
            with contextlib.suppress(Exception):
                ray.shutdown()
            if try_no == LOCAL_START_TRIES - 1:
                raise RayUnavailable(
                    f"a local Ray did not start (temp dir {tmp}): {_first_line(e)}"
                ) from None
    raise AssertionError("unreachable")


def site_files(sites: Path) -> dict[str, bytes]:
    """The sites folder as {relative path: bytes}: sent to every actor, so nodes need no checkout."""
    return {p.relative_to(sites).as_posix(): p.read_bytes() for p in sorted(sites.rglob("*")) if p.is_file()}


def dispatch_deadline(chain: dict[str, Any], params: RunParams) -> float:
    """Seconds a dispatch (one attempt) may take: the chain's own timeout plus a grace."""
    if os.environ.get(DEADLINE_ENV):
        return float(os.environ[DEADLINE_ENV])
    turns = len(chain["parts"]) + sum(p.get("via") == "home" for p in chain["parts"]) + 1
    return params.timeout_base + params.timeout_per_turn * turns + GRACE_S


def same_environment(infos: list[ActorInfo], code: str, where: str) -> dict[str, Any]:
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


class ChainWorker:
    """A browser actor: its own site servers on the node's loopback, one runner `Worker` (a Chromium it
    recovers), the chains sent to it. Set up on the first call after each (re)start, so a restarted actor
    comes back whole."""

    def __init__(self, params: RunParams, headful: bool) -> None:
        self.params, self.headful = params, headful
        self._lock = asyncio.Lock()
        self._info: ActorInfo | None = None
        self._dir: str | None = None
        self.servers: Any = None
        self.watch: ServerWatch | None = None
        self.worker: Worker | None = None
        self.memory: Any = None
        self.env: dict[str, Any] = {}

    async def ready(self, files: dict[str, bytes]) -> ActorInfo:
        """Start the servers on these site files and the browser (once); what this actor runs with."""
        async with self._lock:
            if self._info is None:
                try:
                    self._info = await self._setup(files)
                except Exception as e:  # one line the driver can print as it is
                    raise ActorSetupError(f"{type(e).__name__}: {_first_line(e)}") from None
            return self._info

    async def _setup(self, files: dict[str, bytes]) -> ActorInfo:
        import ray

        from plandvc.memory import connect_or_none
        from plandvc.run.fingerprint import code_hash, environment
        from plandvc.run.progress import Progress
        from plandvc.sites.servers import Servers

        self._dir = tempfile.mkdtemp(prefix="plandvc-sites-")
        for rel, data in files.items():
            path = Path(self._dir, rel)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        self.servers = Servers(free_ports(1), self._dir).__enter__()
        progress = Progress(0, False)  # the actor's notes (a relaunch, a restart) go to its own log
        self.watch = ServerWatch(self.servers, progress)
        self.worker = Worker(0, self.servers.bases[0], self.headful, progress)
        await self.worker.start()
        self.memory = await connect_or_none(self.params.memory_url, self.params.memory_model)
        browser = self.worker.browser
        self.env = environment(browser.version, browser.binary)
        node = ray.get_runtime_context().get_node_id()
        return ActorInfo(self.env, code_hash(), node)

    async def run(self, job: Job) -> Dispatched:
        """One attempt of one chain, as a local worker makes it (the driver applies the verdict), and the
        memory model's fallbacks counted during it."""
        if self._info is None or self.worker is None or self.watch is None:
            raise RuntimeError("browser actor not set up: ready() first")
        if job.hang:
            time.sleep(24 * 3600)  # test-only: a hang nothing inside the actor can end
        before = Counter(self.memory.stats) if self.memory is not None else Counter()
        a = await attempt(self.worker, self.watch, 0, job.job, self.params, self.memory, self.env, job.more)
        after = Counter(self.memory.stats) if self.memory is not None else Counter()
        return Dispatched(a, dict(after - before))

    async def close(self) -> None:
        """Close the browser, the memory client, the servers and the sites copy."""
        if self.worker is not None:
            await self.worker.close()
        if self.memory is not None:
            await self.memory.close()
        if self.servers is not None:
            self.servers.stop()
        if self._dir is not None:
            shutil.rmtree(self._dir, ignore_errors=True)
        self._info = None


class RayEngine:
    """Runs the driver's chain jobs on browser actors and hands every final attempt back to its `Run`."""

    def __init__(self, cfg: RunConfig, workers: int) -> None:
        self.cfg, self.workers = cfg, workers
        self.ray: Any = None
        self.where = ""
        self.actors: list[Any] = []
        self._files: Any = None
        self._hang_key = os.environ.get(HANG_ENV) or None
        # the memory model's fallbacks summed over every actor's dispatches (None: no memory model)
        self.fallbacks: Counter[str] | None = Counter() if cfg.params.memory_url else None

    async def start(self) -> dict[str, Any]:
        """Connect, start the browser actors and return the environment they all share."""
        self.ray = ray = import_ray()
        self.where = connect(ray, self.workers)
        try:
            return await self._start_actors()
        except BaseException:
            await self.aclose()
            raise

    async def _start_actors(self) -> dict[str, Any]:
        from plandvc.run.fingerprint import code_hash

        ray = self.ray
        self._files = ray.put(site_files(self.cfg.sites))  # sent with ready(), so a restart finds them
        actor_class = ray.remote(ChainWorker).options(
            num_cpus=0, resources={RESOURCE: 1}, max_restarts=MAX_RESTARTS, max_task_retries=0
        )
        self.actors = [actor_class.remote(self.cfg.params, self.cfg.headful) for _ in range(self.workers)]
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
                self.ray.kill(self.actors[i], no_restart=True)
            self.actors = [a for i, a in enumerate(self.actors) if i in infos]
            print(
                f"run-chains: {len(infos)} of {self.workers} browser actors started on {self.where} within "
                f"{PLACE_TIMEOUT_S:.0f}s (no room for more? raise the nodes' {RESOURCE} resource)",
                file=sys.stderr,
            )
        return same_environment([infos[i] for i in sorted(infos)], code_hash(), self.where)

    async def run(self, todo: asyncio.Queue[ChainJob], run: Run) -> None:
        """Send every job out (one attempt in flight per actor) until each has its final verdict."""
        ray = self.ray
        outstanding = todo.qsize()
        if outstanding == 0:
            return
        dispatches: dict[str, int] = {}
        finished = asyncio.Event()
        live = len(self.actors)

        def settle(w: int, job: ChainJob, a: Attempt, what: str, t0: float) -> None:
            nonlocal outstanding
            run.settle(w, job, a, what, t0)
            outstanding -= 1
            if outstanding == 0:
                finished.set()

        async def feed(w: int, actor: Any) -> None:
            nonlocal live
            while not finished.is_set():
                job = await todo.get()
                n = dispatches.get(job.key, 0)
                dispatches[job.key] = n + 1
                hang = job.key == self._hang_key and n == 0
                deadline = dispatch_deadline(job.chain, self.cfg.params)
                t0 = time.monotonic()
                lost_actor = ""
                try:
                    ref = actor.run.remote(Job(job, more=not todo.empty(), hang=hang))
                    d: Dispatched = await asyncio.wait_for(_await(ref), deadline)
                    a = d.attempt
                    if self.fallbacks is not None:
                        self.fallbacks.update(d.fallbacks)
                except TimeoutError:  # a hang: the force cancel, and Ray restarts the actor
                    ray.kill(actor, no_restart=False)
                    lost_actor = (
                        f"TimeoutError: chain timed out after {deadline:.0f}s on {self.where} (actor killed)"
                    )
                    a = Attempt(ChainOutput(base_result(job.chain, lost_actor)), False, 0.0)
                except Exception as e:  # the actor died (node lost, process killed): the machinery is lost
                    lost_actor = f"ActorDied: {_cause(e)}"[:300]
                    a = Attempt(ChainOutput(base_result(job.chain, lost_actor)), True, 0.0)
                what = verdict(a.out, a.lost, n)
                if lost_actor:
                    print(
                        f"run-chains: chain {job.key} lost on browser actor {w} ({lost_actor}); "
                        + ("sending it again" if what == "retry" else f"giving up after {n + 1} dispatches"),
                        file=sys.stderr,
                        flush=True,
                    )
                if what == "retry":
                    todo.put_nowait(job)  # any live actor takes it
                else:
                    settle(w, job, a, what, t0)
                if lost_actor and not await self._revive(actor):
                    live -= 1
                    if live == 0:
                        why = f"ActorDied: no browser actor left on {self.where}"
                        while not todo.empty():
                            left = todo.get_nowait()
                            gone = Attempt(ChainOutput(base_result(left.chain, why)), True, 0.0)
                            settle(w, left, gone, "lost", time.monotonic())
                    return

        feeders = [asyncio.ensure_future(feed(w, a)) for w, a in enumerate(self.actors)]
        waiter: asyncio.Future[Any] = asyncio.ensure_future(finished.wait())
        tasks: list[asyncio.Future[Any]] = [waiter, *feeders]
        try:
            while not finished.is_set():
                await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
                for f in feeders:
                    err = f.exception() if f.done() and not f.cancelled() else None
                    if err is not None:
                        raise err
                if all(f.done() for f in feeders) and not finished.is_set():
                    raise RuntimeError("the Ray engine's feeders stopped with chains left")
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    def memory_stats(self) -> dict[str, int] | None:
        """The memory model's fallbacks by reason, summed over the actors (what a local run reports from its
        one client); None without a memory model."""
        return None if self.fallbacks is None else dict(sorted(self.fallbacks.items()))

    async def _revive(self, actor: Any) -> bool:
        """Wait for a killed or crashed actor to come back (restarted by Ray); False when it does not."""
        timeout = float(os.environ.get(REVIVE_ENV) or REVIVE_TIMEOUT_S)
        try:
            await asyncio.wait_for(_await(actor.ready.remote(self._files)), timeout)
            return True
        except Exception:
            return False

    async def aclose(self) -> None:
        """Close every actor (browser, servers) and stop a local Ray; the cluster's work ends with the run."""
        if self.ray is None:
            return
        ray = self.ray
        if self.actors:
            closes = [_await(a.close.remote()) for a in self.actors]
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(asyncio.gather(*closes, return_exceptions=True), 20)
            for a in self.actors:
                with contextlib.suppress(Exception):
                    ray.kill(a, no_restart=True)
            self.actors = []
        with contextlib.suppress(Exception):
            ray.shutdown()
        self.ray = None


def in_driver_process(run: Callable[[], T]) -> T:
    """`run()` (the Ray side of a run: connect, run, publish) in a forked driver process, its outcome handed
    back. When the node the driver joined, or the whole cluster, goes away, Ray ends the driver process at
    once, unwound by nothing; here that is one InfrastructureError (exit 75, nothing published, the finished
    chains cached) instead of a bare exit 1.

    Stops reach the driver through this process: the first SIGINT or SIGTERM it gets is passed on, so `kill
    -INT` of run-chains' pid works as Ctrl-C does; a second stop kills the driver at once (Ray ends the
    actors it owns with it). A terminal's Ctrl-C, or a signal to the process group, reaches the driver
    twice, so `run` must act on its first stop only (`_run_in_loop(..., once=True)`). A SIGINT this process
    inherited ignored (a non-interactive shell's background job) stays ignored in both, as with the local
    engine."""
    import multiprocessing

    ctx = multiprocessing.get_context("fork")
    reader, writer = ctx.Pipe(duplex=False)
    stops = {signal.SIGTERM} | (
        {signal.SIGINT} if signal.getsignal(signal.SIGINT) is signal.default_int_handler else set()
    )

    def driver() -> None:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        outcome: tuple[str, Any]
        try:
            outcome = ("done", run())
        except KeyboardInterrupt:
            outcome = ("interrupted", None)
        except asyncio.CancelledError:
            outcome = ("terminated", None)
        except Exception as e:
            outcome = ("error", e)
        for sig in stops:  # a stop from here on would only lose the outcome
            signal.signal(sig, signal.SIG_IGN)
        try:
            writer.send(outcome)
        except Exception as e:  # an error that does not pickle: its line
            writer.send(("error", RuntimeError(f"{type(outcome[1]).__name__}: {outcome[1]} ({e})")))
        writer.close()

    proc = ctx.Process(target=driver, name="plandvc-ray-driver")
    got: list[int] = []  # the stops this process got, in order
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, stops)  # a stop waits until it can be passed on
    try:
        proc.start()
        pid = proc.pid
        assert pid is not None

        def pass_on(signum: int, frame: Any) -> None:
            got.append(signum)
            os.kill(pid, signum if len(got) == 1 else signal.SIGKILL)

        previous = {sig: signal.signal(sig, pass_on) for sig in stops}
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
    writer.close()
    try:
        outcome: tuple[str, Any] | None = None
        with contextlib.suppress(EOFError):  # the driver ended without a word
            outcome = reader.recv()
        proc.join()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    if outcome is None and got:  # stopped (killed by a second stop, or before it could say so)
        outcome = ("interrupted" if got[0] == signal.SIGINT else "terminated", None)
    if outcome is None:
        where = os.environ.get("RAY_ADDRESS", "").strip() or "the local Ray"
        raise InfrastructureError(
            f"the Ray driver process ended at once (exit code {proc.exitcode}): Ray ends it when its node or "
            f"the whole cluster ({where}) is gone; nothing was published, and the finished chains are kept in "
            "the cache for the next run"
        )
    what, value = outcome
    if what == "interrupted":
        raise KeyboardInterrupt
    if what == "terminated":
        raise asyncio.CancelledError
    if what == "error":
        raise value
    result: T = value
    return result


async def _await(ref: Any) -> Any:
    """An ObjectRef's value in asyncio."""
    return await asyncio.wrap_future(ref.future())


def _cause(e: BaseException) -> str:
    """The first useful line of a Ray error (a task error carries its cause)."""
    cause = getattr(e, "cause", None)
    if isinstance(cause, ActorSetupError):
        return str(cause)
    if isinstance(cause, BaseException):
        return f"{type(cause).__name__}: {_first_line(cause)}"
    return f"{type(e).__name__}: {_first_line(e)}"
