"""A run's process life, in one place: its event loop and signals, how a stop ends it, the task dump on
SIGUSR1, and the forked driver process an engine that needs one (`Engine.own_process`: Ray) runs in.

- **Stops**: SIGTERM is a cancellation, so browsers and servers are stopped cleanly; SIGINT (Ctrl-C, `kill
  -INT`) is asyncio's (a cancellation; a second one at once). A stop ends the run with `Interrupted` (exit
  130) or `Terminated` (exit 143), whose line says what was kept. A SIGINT the process inherited ignored (a
  non-interactive shell's background job) stays ignored.
- **SIGUSR1** prints where every task of the run is waiting (for a run that seems stuck).
- **The driver process**: when the node a Ray driver joined, or the whole cluster, goes away, Ray ends the
  driver process at once, unwound by nothing. An engine that says so therefore runs in a forked driver
  process (`in_driver_process`), and such an end is one `InfrastructureError` (exit 75) instead of a bare
  exit 1. Stops reach the driver through this process: the first SIGINT or SIGTERM is passed on, so `kill
  -INT` of the command's pid works as Ctrl-C does; a second stop kills the driver at once (Ray then ends
  the actors it owned). A terminal's Ctrl-C, or a signal to the process group, reaches the driver twice,
  so there only the first stop counts.
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
import signal
import sys
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from types import FrameType
from typing import Generic, Literal, TypeVar, cast

from plandvc.errors import InfrastructureError, Interrupted, Terminated

T = TypeVar("T")
Main = Callable[[], Coroutine[object, object, T]]


def run(main: Main[T], own_process: bool, kept: str) -> T:
    """`main()` in an event loop with the run's signal handling, in a driver process of its own when
    `own_process`; a stop is `Interrupted` / `Terminated` with the line "interrupted; <kept>"."""
    try:
        if own_process:
            return in_driver_process(lambda: run_async(main, once=True))
        return run_async(main)
    except KeyboardInterrupt:
        raise Interrupted(f"interrupted; {kept}") from None
    except asyncio.CancelledError:
        raise Terminated(f"terminated; {kept}") from None


def run_async(main: Main[T], once: bool = False) -> T:
    """asyncio.run with SIGTERM turned into a cancellation, so browsers and servers are stopped cleanly;
    SIGINT is asyncio's (a cancellation, then KeyboardInterrupt; a second one at once). With `once` (a
    driver process, which gets a stop both from the process group and from its parent) SIGINT is a
    cancellation too, and only the first stop counts. A SIGINT inherited ignored stays ignored."""
    interruptible = signal.getsignal(signal.SIGINT) is signal.default_int_handler

    async def guarded() -> T:
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
        loop.add_signal_handler(signal.SIGUSR1, dump_tasks)
        try:
            return await main()
        except asyncio.CancelledError:
            if stopped[:1] == [signal.SIGINT]:
                raise KeyboardInterrupt from None
            raise
        finally:
            for sig in (*stops, signal.SIGUSR1):
                loop.remove_signal_handler(sig)

    return asyncio.run(guarded())


def dump_tasks() -> None:
    """SIGUSR1: print where every task of the run is waiting (for a run that seems stuck)."""
    for t in asyncio.all_tasks():
        print(f"--- task {t.get_name()}", file=sys.stderr)
        coro: object = t.get_coro()
        while coro is not None:
            frame = getattr(coro, "cr_frame", None) or getattr(coro, "ag_frame", None)
            if frame is not None:
                print(
                    f"  {frame.f_code.co_filename}:{frame.f_lineno} {frame.f_code.co_name}", file=sys.stderr
                )
            coro = getattr(coro, "cr_await", None) or getattr(coro, "ag_await", None)
    sys.stderr.flush()


def _quiet_lost_futures(loop: asyncio.AbstractEventLoop, context: dict[str, object]) -> None:
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


@dataclass
class Outcome(Generic[T]):
    """What the driver process hands back: how it ended, and its value or its error."""

    how: Literal["done", "interrupted", "terminated", "error"]
    value: T | None = None
    error: Exception | None = None


def _drive(work: Callable[[], T], send: Callable[[Outcome[T]], None], stops: set[signal.Signals]) -> None:
    """The driver process: run `work` and send its outcome (a stop from then on would only lose it)."""
    outcome: Outcome[T]
    try:
        outcome = Outcome("done", work())
    except KeyboardInterrupt:
        outcome = Outcome("interrupted")
    except asyncio.CancelledError:
        outcome = Outcome("terminated")
    except Exception as e:
        outcome = Outcome("error", error=e)
    for sig in stops:
        signal.signal(sig, signal.SIG_IGN)
    try:
        send(outcome)
    except Exception as e:  # an error that does not pickle: its line
        what = f"{type(outcome.error).__name__}: {outcome.error}"
        send(Outcome("error", error=RuntimeError(f"{what} ({e})")))


def in_driver_process(work: Callable[[], T]) -> T:
    """`work()` in a forked driver process, its outcome handed back: its value, its error, a stop as
    KeyboardInterrupt (SIGINT) or CancelledError (SIGTERM), and the process ended at once (Ray's end of a
    driver whose cluster is gone) as an `InfrastructureError`."""
    ctx = multiprocessing.get_context("fork")
    reader, writer = ctx.Pipe(duplex=False)
    stops = {signal.SIGTERM} | (
        {signal.SIGINT} if signal.getsignal(signal.SIGINT) is signal.default_int_handler else set()
    )
    got: list[int] = []  # the stops this process got, in order
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, stops)  # a stop waits until it can be passed on

    def driver() -> None:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        _drive(work, writer.send, stops)
        writer.close()

    proc = ctx.Process(target=driver, name="plandvc-ray-driver")
    try:
        proc.start()
        pid = proc.pid
        assert pid is not None

        def pass_on(signum: int, frame: FrameType | None) -> None:
            got.append(signum)
            os.kill(pid, signum if len(got) == 1 else signal.SIGKILL)

        previous = {sig: signal.signal(sig, pass_on) for sig in stops}
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
    writer.close()
    try:
        outcome: Outcome[T] | None = None
        with contextlib.suppress(EOFError):  # the driver ended without a word
            outcome = reader.recv()
        proc.join()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return _handed_back(outcome, got, proc.exitcode)


def _handed_back(outcome: Outcome[T] | None, got: list[int], exitcode: int | None) -> T:
    """The driver's outcome as this process's: its value, or the error or stop that ended it."""
    if outcome is None and got:  # stopped (killed by a second stop, or before it could say so)
        outcome = Outcome("interrupted" if got[0] == signal.SIGINT else "terminated")
    if outcome is None:
        where = os.environ.get("RAY_ADDRESS", "").strip() or "the local Ray"
        raise InfrastructureError(
            f"the Ray driver process ended at once (exit code {exitcode}): Ray ends it when its node or "
            f"the whole cluster ({where}) is gone; nothing was published, and the finished chains are kept in "
            "the cache for the next run"
        )
    if outcome.how == "interrupted":
        raise KeyboardInterrupt
    if outcome.how == "terminated":
        raise asyncio.CancelledError
    if outcome.error is not None:
        raise outcome.error
    return cast(T, outcome.value)  # "done": the value `work` returned
