"""`Servers`: start one sites-server process per port, wait until each answers, and always stop them.

    with Servers([8320, 8321], "data/sites") as s:
        s.bases  # ["http://127.0.0.1:8320", "http://127.0.0.1:8321"]

Each child watches its stdin: if this process dies (even by SIGKILL) the pipe closes and the child exits, so
no server outlives the run that started it.
"""

from __future__ import annotations

import http.client
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import TracebackType

from plandvc.errors import SetupError
from plandvc.io import InputError

HOST = "127.0.0.1"


class ServerError(SetupError, RuntimeError):
    """A server did not come up (port taken, bad specs, crash); the message names the port."""


def health(port: int, timeout: float = 1.0) -> bool:
    """True when `GET /_health` on the port answers `ok`."""
    conn = http.client.HTTPConnection(HOST, port, timeout=timeout)
    try:
        conn.request("GET", "/_health")
        r = conn.getresponse()
        return r.status == 200 and r.read() == b"ok"
    except OSError:
        return False
    finally:
        conn.close()


class Servers:
    """One `python -m plandvc.sites.server` process per port, started on enter and stopped on exit."""

    def __init__(self, ports: list[int], sites_dir: str | Path, start_timeout: float = 15.0):
        if not ports:
            raise InputError("Servers: no ports given")
        if len(set(ports)) != len(ports):
            raise InputError(f"Servers: duplicate port in {ports}")
        self.ports = list(ports)
        self.sites_dir = Path(sites_dir)
        if not self.sites_dir.is_dir():
            raise InputError(f"{self.sites_dir}: sites directory not found")
        self.start_timeout = start_timeout
        self.procs: list[subprocess.Popen[bytes] | None] = [None] * len(ports)
        self._logs: list[tempfile._TemporaryFileWrapper[bytes] | None] = [None] * len(ports)

    @property
    def bases(self) -> list[str]:
        return [f"http://{HOST}:{p}" for p in self.ports]

    def __enter__(self) -> Servers:
        try:
            for i in range(len(self.ports)):
                self._spawn(i)
            for i in range(len(self.ports)):
                self._wait(i)
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(
        self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    def _spawn(self, i: int) -> None:
        port = self.ports[i]
        if health(port, timeout=0.3):
            raise ServerError(f"port {port}: already taken by another server")
        cmd = [sys.executable, "-m", "plandvc.sites.server", "--sites", str(self.sites_dir), "--port", str(port),
               "--watch-stdin"]  # fmt: skip
        log = tempfile.NamedTemporaryFile(prefix=f"plandvc-sites-{port}-", suffix=".log")  # noqa: SIM115
        self._logs[i] = log
        self.procs[i] = subprocess.Popen(
            cmd, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=log,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )  # fmt: skip

    def _wait(self, i: int) -> None:
        """Poll `/_health` with a short backoff until it answers; fail fast if the process exits."""
        port, proc = self.ports[i], self.procs[i]
        assert proc is not None
        deadline = time.monotonic() + self.start_timeout
        delay = 0.01
        while True:
            if proc.poll() is not None:
                err = self.stderr(i)
                last = err.splitlines()[-1] if err else f"exit code {proc.returncode}"
                raise ServerError(f"port {port}: the sites server did not start: {last}")
            if health(port, timeout=0.5):
                return
            if time.monotonic() > deadline:
                raise ServerError(
                    f"port {port}: the sites server did not answer /_health in {self.start_timeout:g}s"
                )
            time.sleep(delay)  # a poll interval, not a wait for a result
            delay = min(delay * 2, 0.2)

    def alive(self, i: int) -> bool:
        proc = self.procs[i]
        return proc is not None and proc.poll() is None and health(self.ports[i])

    def restart(self, i: int) -> None:
        """Stop server `i` if it still runs, start it again on the same port and wait for it."""
        self._stop_one(i)
        self._spawn(i)
        self._wait(i)

    def ensure_alive(self) -> list[int]:
        """Restart every server that died or stopped answering; returns their indices."""
        dead = [i for i in range(len(self.ports)) if not self.alive(i)]
        for i in dead:
            self.restart(i)
        return dead

    def _stop_one(self, i: int) -> None:
        proc = self.procs[i]
        if proc is None:
            return
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if proc.stdin is not None:
            try:
                proc.stdin.close()
            except OSError:
                pass
        log = self._logs[i]
        if log is not None:
            log.close()
        self.procs[i] = self._logs[i] = None

    def stderr(self, i: int) -> str:
        """What server `i` wrote to stderr so far (its errors)."""
        log = self._logs[i]
        if log is None:
            return ""
        log.flush()
        return Path(log.name).read_text(encoding="utf-8", errors="replace").strip()

    def stop(self) -> None:
        """Stop every server (idempotent)."""
        for i in range(len(self.ports)):
            self._stop_one(i)
