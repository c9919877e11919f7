"""The engine interface: where a run's chain attempts are made, and how a failed attempt is sorted.

The runner (`plandvc.run.runner`) checks the inputs, fingerprints the chains, reuses the cache, records
each chain's final attempt and publishes OUT; an `Engine` only makes the attempts. `LocalEngine`
(`plandvc.run.local`: browsers in this process) and `RayEngine` (`plandvc.run.ray_engine`: browser actors
on a Ray cluster) both implement it, and both sort an attempt by the one rule here (`verdict`), so a chain's
outcome, and the bytes published, never depend on the engine.

A failed attempt is sorted once: the chain's own failure (a check that fails, a script not finished, an
action error) is final and cached; the machinery lost (the Playwright driver, Chromium, a site server or a
Ray actor died: the chain ran on something that is gone) is never a result: the chain runs again after a
recovery, up to `ATTEMPTS` times, then the run publishes nothing; a hang or an error that escaped the
harness on a live machine is retried once, then published as the chain's failure but not cached.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, Literal, Protocol

from plandvc.run.chain import ChainOutput, RunParams
from plandvc.run.fingerprint import Environment
from plandvc.run.inputs import ChainJob

if TYPE_CHECKING:
    from plandvc.run.progress import Progress

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

Verdict = Literal["done", "retry", "hang", "lost"]


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
class Attempt:
    """One attempt of a chain: its output, whether the machinery it ran on was lost during it (the browser,
    the site server, the actor), and the seconds its session took to open."""

    out: ChainOutput
    lost: bool
    t_open: float


def verdict(out: ChainOutput, lost: bool, attempt: int) -> Verdict:
    """What attempt number `attempt` (from 0) of a chain comes to: "done" (final: cache it), "retry",
    "hang" (final, never cached) or "lost" (the machinery is gone: publish nothing)."""
    error = out.result.get("error")
    if out.result["ok"]:
        return "done"
    if lost or is_lost(error):
        return "retry" if attempt + 1 < ATTEMPTS else "lost"
    if is_infra(error):
        return "retry" if attempt + 1 < HANG_ATTEMPTS else "hang"
    return "done"


class Settle(Protocol):
    """The runner's record of a chain's final attempt (made on worker `w`, started at monotonic `t0`)."""

    def __call__(self, w: int, job: ChainJob, a: Attempt, what: Verdict, t0: float) -> None: ...


@dataclass(frozen=True)
class EngineConfig:
    """What an engine is built from: the sites to serve, the run's params, how many browsers, and the
    local engine's server ports (None: free ones)."""

    sites: Path
    params: RunParams
    workers: int
    headful: bool = False
    ports: list[int] | None = None


class Engine(Protocol):
    """Where a run's chain attempts are made. `start` brings the browsers up and returns the environment
    they share (part of every chain's fingerprint and episode); `run` makes attempts until every job of the
    queue has its final verdict, handing each to `settle`; `close` stops everything it started;
    `memory_stats` is the memory model's fallbacks by reason over the run (None: no memory model).
    `own_process`: the engine's side of a run lives in a driver process of its own
    (`plandvc.run.process.in_driver_process`), because what it talks to can end its process unwound."""

    own_process: ClassVar[bool]

    async def start(self, progress: Progress) -> Environment: ...

    async def run(self, todo: asyncio.Queue[ChainJob], settle: Settle) -> None: ...

    async def close(self) -> None: ...

    def memory_stats(self) -> dict[str, int] | None: ...
