"""The live progress line of run-chains on stderr: done/total, ok/failed, reused, rate, ETA.

On a terminal the line is redrawn in place; in a log (not a tty) a line is printed at most every 5 s and
at the end. It never reaches an output."""

from __future__ import annotations

import sys
import time
from collections import Counter


class Progress:
    """A live line on stderr: done/total, ok/failed, rate, ETA."""

    def __init__(self, total: int, enabled: bool) -> None:
        self.total, self.enabled, self.t0 = total, enabled, time.monotonic()
        self.tally: Counter[str] = Counter()
        self.tty = sys.stderr.isatty()
        self.last = 0.0

    def add(self, ok: bool, reused: bool) -> None:
        self.tally["ok" if ok else "failed"] += 1
        self.tally["reused"] += reused
        now = time.monotonic()
        done = self.tally["ok"] + self.tally["failed"]
        if not self.enabled or (not self.tty and now - self.last < 5 and done < self.total):
            return
        self.last = now
        rate = done / max(now - self.t0, 1e-6) * 60
        eta = (self.total - done) / rate * 60 if rate else 0
        line = (
            f"[{done}/{self.total}] ok {self.tally['ok']} failed {self.tally['failed']} "
            f"(reused {self.tally['reused']}) {rate:.1f} chains/min ETA {eta:.0f}s"
        )
        print(("\r" + line) if self.tty else line, end="" if self.tty else "\n", file=sys.stderr, flush=True)

    def note(self, text: str) -> None:
        """A line about the run itself (a relaunched browser, a restarted server), on its own line."""
        lead = "\n" if self.enabled and self.tty else ""
        print(f"{lead}run-chains: {text}", file=sys.stderr, flush=True)

    def close(self) -> None:
        if self.enabled and self.tty:
            print(file=sys.stderr)
