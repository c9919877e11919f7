"""Where a chain's time goes: a session proxy that adds up the seconds spent in each harness call.

Timings are measurements, not outputs: they go to the run log and the benchmark, never into the rows.
"""

from __future__ import annotations

import time
from collections import Counter
from contextlib import contextmanager
from typing import Any

from plandvc.browser.actions import NAMES as ACTIONS

# harness calls by phase: what the planner reads each turn, what the specialists do, what the gates read
PHASES = {
    "screenshot": "planner_capture",
    "snapshot": "snapshots",
    "backend_state": "gates",
    "goto": "prepare",
}


class Clock:
    """Seconds by phase, for one chain."""

    def __init__(self) -> None:
        self.seconds: Counter[str] = Counter()

    @contextmanager
    def phase(self, name: str):
        t0 = time.perf_counter()
        try:
            yield
        finally:
            self.seconds[name] += time.perf_counter() - t0

    def rounded(self) -> dict[str, float]:
        return {k: round(v, 4) for k, v in sorted(self.seconds.items())}


class TimedSession:
    """Forwards everything to the harness session; times its coroutine methods by phase."""

    def __init__(self, session: Any, clock: Clock) -> None:
        self._session, self._clock = session, clock

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._session, name)
        phase = PHASES.get(name) or ("specialist_actions" if name in ACTIONS else None)
        if phase is None or not callable(attr):
            return attr

        async def timed(*args: Any, **kwargs: Any) -> Any:
            with self._clock.phase(phase):
                return await attr(*args, **kwargs)

        return timed
