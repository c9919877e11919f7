"""The local engine of run-chains (`--engine local`, the default): `--workers` browsers in this process,
each a `Worker` taking chain jobs from the run's queue, beside the site servers it starts on loopback."""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import TYPE_CHECKING, ClassVar

from plandvc.ports import free_ports
from plandvc.run.engine import ATTEMPTS, EngineConfig, Settle, verdict
from plandvc.run.fingerprint import Environment, environment
from plandvc.run.inputs import ChainJob
from plandvc.run.progress import Progress
from plandvc.run.worker import ServerWatch, Worker, attempt

if TYPE_CHECKING:
    from plandvc.memory import MemoryModel

SERVERS_MAX = 2  # site servers for a local run (free ports) when --ports is not given


class LocalEngine:
    """Browsers in this process and site servers beside them (see `plandvc.run.engine.Engine`)."""

    own_process: ClassVar[bool] = False

    def __init__(self, cfg: EngineConfig) -> None:
        self.cfg = cfg
        self.workers: list[Worker] = []
        self.watch: ServerWatch | None = None
        self.memory: MemoryModel | None = None
        self.env: Environment = {}
        self._stack = contextlib.ExitStack()

    async def start(self, progress: Progress) -> Environment:
        """Start the site servers, the memory model's client and every browser; their environment."""
        from plandvc.memory import connect_or_none
        from plandvc.sites.servers import Servers

        ports = self.cfg.ports or free_ports(max(1, min(self.cfg.workers, SERVERS_MAX)))
        servers = self._stack.enter_context(Servers(ports, self.cfg.sites))
        self.watch = ServerWatch(servers, progress)
        bases = servers.bases
        self.workers = [
            Worker(w, bases[w % len(bases)], self.cfg.headful, progress) for w in range(self.cfg.workers)
        ]
        self.memory = await connect_or_none(self.cfg.params.memory_url, self.cfg.params.memory_model)
        first = self.workers[0]
        await first.start()
        self.env = environment(first.browser.version, first.browser.binary)
        await asyncio.gather(*(wk.start() for wk in self.workers[1:]))
        return self.env

    async def run(self, todo: asyncio.Queue[ChainJob], settle: Settle) -> None:
        """Every worker takes jobs from the queue until it is empty."""
        await asyncio.gather(*(self._work(wk, todo, settle) for wk in self.workers))

    async def _work(self, worker: Worker, todo: asyncio.Queue[ChainJob], settle: Settle) -> None:
        assert self.watch is not None, "start() first"
        while not todo.empty():
            job = todo.get_nowait()
            more = not todo.empty()
            for n in range(ATTEMPTS):
                t0 = time.monotonic()
                a = await attempt(worker, self.watch, job, self.cfg.params, self.memory, self.env, more)
                what = verdict(a.out, a.lost, n)
                if what != "retry":
                    break
            settle(worker.w, job, a, what, t0)

    async def close(self) -> None:
        """Close every browser, the memory client and the servers."""
        try:
            await asyncio.gather(*(wk.close() for wk in self.workers), return_exceptions=True)
            if self.memory is not None:
                await self.memory.close()
        finally:
            self._stack.close()

    def memory_stats(self) -> dict[str, int] | None:
        return dict(self.memory.stats) if self.memory is not None else None
