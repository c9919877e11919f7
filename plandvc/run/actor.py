"""The Ray engine's browser actor (`ChainWorker`) and what crosses to and from it: the work of one dispatch
(`Job`), its outcome (`Dispatched`) and what an actor reports once it is up (`ActorInfo`).

The actor makes each attempt with the very code the local engine runs (`plandvc.run.worker.attempt` on its
own `Worker`, beside its own site servers on the node's loopback), so its rows are the local engine's bytes.
"""

from __future__ import annotations

import asyncio
import shutil
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from plandvc.ports import free_ports
from plandvc.run.chain import RunParams
from plandvc.run.engine import Attempt
from plandvc.run.fingerprint import Environment
from plandvc.run.inputs import ChainJob
from plandvc.run.worker import ServerWatch, Worker, attempt, first_line

if TYPE_CHECKING:
    from plandvc.memory import MemoryModel
    from plandvc.sites.servers import Servers


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

    env: Environment
    code: str
    node: str


@dataclass
class Setup:
    """What a browser actor runs with, once set up."""

    info: ActorInfo
    folder: str  # its copy of the sites
    servers: Servers
    watch: ServerWatch
    worker: Worker
    memory: MemoryModel | None


class ChainWorker:
    """A browser actor: its own site servers on the node's loopback, one `Worker` (a Chromium it recovers),
    the chains sent to it. Set up on the first call after each (re)start, so a restarted actor comes back
    whole."""

    def __init__(self, params: RunParams, headful: bool) -> None:
        self.params, self.headful = params, headful
        self._lock = asyncio.Lock()
        self._setup: Setup | None = None

    async def ready(self, files: dict[str, bytes]) -> ActorInfo:
        """Start the servers on these site files and the browser (once); what this actor runs with."""
        async with self._lock:
            if self._setup is None:
                try:
                    self._setup = await self._set_up(files)
                except Exception as e:  # one line the driver can print as it is
                    raise ActorSetupError(f"{type(e).__name__}: {first_line(e)}") from None
            return self._setup.info

    async def _set_up(self, files: dict[str, bytes]) -> Setup:
        import ray

        from plandvc.memory import connect_or_none
        from plandvc.run.fingerprint import code_hash, environment
        from plandvc.run.progress import Progress
        from plandvc.sites.servers import Servers

        folder = tempfile.mkdtemp(prefix="plandvc-sites-")
        for rel, data in files.items():
            path = Path(folder, rel)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        servers = Servers(free_ports(1), folder).__enter__()
        progress = Progress(0, False)  # the actor's notes (a relaunch, a restart) go to its own log
        worker = Worker(0, servers.bases[0], self.headful, progress)
        try:
            await worker.start()
            memory = await connect_or_none(self.params.memory_url, self.params.memory_model)
        except BaseException:
            await worker.close()
            servers.stop()
            shutil.rmtree(folder, ignore_errors=True)
            raise
        env = environment(worker.browser.version, worker.browser.binary)
        info = ActorInfo(env, code_hash(), ray.get_runtime_context().get_node_id())
        return Setup(info, folder, servers, ServerWatch(servers, progress), worker, memory)

    async def run(self, job: Job) -> Dispatched:
        """One attempt of one chain, as a local worker makes it (the driver applies the verdict), and the
        memory model's fallbacks counted during it."""
        s = self._setup
        if s is None:
            raise RuntimeError("browser actor not set up: ready() first")
        if job.hang:
            time.sleep(24 * 3600)  # test-only: a hang nothing inside the actor can end
        before = Counter(s.memory.stats) if s.memory is not None else Counter()
        a = await attempt(s.worker, s.watch, job.job, self.params, s.memory, s.info.env, job.more)
        after = Counter(s.memory.stats) if s.memory is not None else Counter()
        return Dispatched(a, dict(after - before))

    async def close(self) -> None:
        """Close the browser, the memory client, the servers and the sites copy."""
        s, self._setup = self._setup, None
        if s is None:
            return
        await s.worker.close()
        if s.memory is not None:
            await s.memory.close()
        s.servers.stop()
        shutil.rmtree(s.folder, ignore_errors=True)
