"""What every application adapter shares: where apps live, a per-app venv from a lock with hashes, a seeded
template copied fresh per session, and a server process started on a free loopback port and always stopped.

An app lives under the apps home (`PLANDVC_APPS`, else `$XDG_CACHE_HOME/plandvc/apps`, else
`~/.cache/plandvc/apps`), never in the checkout, the system or the project venv:

    <home>/<app>-<lock hash>/venv/              the app's own venv, installed from its lock (`.installed` when done)
    <home>/<app>-<lock hash>/seed-<key>/        a seeded template (`.seeded` when done); key = seed, size, seed code
    <home>/<app>.lock                           a file lock: two processes install or seed one at a time

A folder without its done-marker is left from a killed run and is made again. A session gets a fresh copy of
the template in a temporary folder (`fresh_copy`), so no session sees another's changes.

`Server` starts a command in its own process group, polls its URL over HTTP until it answers (the pause between
polls is a wait on the process, which also notices a server that died), and kills the group on exit, whatever
happened. Nothing here reaches the network: the venv installs from the lock through pip's configured index.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import IO, TYPE_CHECKING, Any, Protocol, TypeVar

from plandvc.errors import InfrastructureError
from plandvc.ports import free_ports

T = TypeVar("T")

if TYPE_CHECKING:
    from plandvc.apps.script import AppTask, Solution
    from plandvc.browser import Browser, Session
    from plandvc.records import Ask, ChainGoal, ItemRecord


@dataclass(frozen=True)
class Summary:
    """A recording's count per macro: tasks made and trajectories kept."""

    tasks: dict[str, int]
    kept: dict[str, int]


class Served(Protocol):
    """One fresh session of an app, as its adapter's `serve` yields it."""

    @property
    def base(self) -> str:
        """The session's root URL (`http://127.0.0.1:<free port>`)."""
        ...

    def state(self) -> Mapping[str, Any]:
        """The gates' state of the session's database: `entries` and `changes` (`plandvc.checks`)."""
        ...

    def alive(self) -> bool:
        """Whether the session's server process still runs."""
        ...


@dataclass(frozen=True)
class Facts:
    """What the chain walk and the request composer need of one app task."""

    ask: Ask  # the composer's facts (plandvc.chains.ask for a generated site)
    control: str  # what the task acts on: a query parameter of the list, else macro:entry
    scope: list[str]  # the task's scope, widened where the app's pages tie parts together


@dataclass(frozen=True)
class App:
    """One application adapter, a table of its functions: the registry's line (`plandvc.apps.REGISTRY`).

    `tasks(seed, size, per_macro)` gives every task sorted by id, `solution(macro)` the scripted executor's
    solution, `serve(seed, size)` a fresh session (a context manager), `facts(seed, size)` a task's facts for
    the walk, `template(seed, size)` the seeded state every session copies. The trip home is a click on `home_link` (its text and href); `pages` are the docs' screenshots."""

    name: str  # the registry's key and the pool's run name
    title: str
    site: str  # the name the planner reads
    today: str  # the seeded app's today, YYYY-MM-DD
    home: str  # the start page's path: a fresh task starting there is a home start
    home_link: tuple[str, str]
    pages: tuple[tuple[str, str], ...]  # (("home", path), ("list", path), ("form", path))
    install: Callable[[], Path]
    macros: tuple[str, ...]
    tasks: Callable[[int, int, int], list[AppTask]]
    solution: Callable[[str], Solution]
    serve: Callable[[int, int], AbstractContextManager[Served]]
    facts: Callable[[int, int], Callable[[AppTask], Facts]]
    template: Callable[[int, int], Path]  # (seed, size) -> the seeded state sessions copy (made on first use)
    # (seed, size) -> its goal chains' answers from its database (plandvc.chains.goals.Answer); None: no goals
    goal: Callable[[int, int], Callable[[Sequence[ItemRecord], str], ChainGoal | None]] | None = None


def app_of(
    adapter: ModuleType,
    facts: ModuleType,
    tasks: ModuleType,
    *,
    name: str,
    title: str,
    home_text: str,
    pages: tuple[tuple[str, str], ...],
) -> App:
    """An application's `App` from its package's three modules, each of one shape: `adapter` (`install`,
    `serve`, `template`), `facts` (`SITE_NAME`, `TODAY`, `HOME`, `facts`, and `goal` when it answers goal
    chains) and `tasks` (`MACROS`, `app_tasks`); what differs per app is its name, title, the home link's text
    (the trip home clicks it, to `facts.HOME`) and the docs' pages."""
    return App(
        name=name,
        title=title,
        site=facts.SITE_NAME,
        today=facts.TODAY,
        home=facts.HOME,
        home_link=(home_text, facts.HOME),
        pages=pages,
        install=adapter.install,
        macros=tasks.MACROS.names(),
        tasks=tasks.app_tasks,
        solution=tasks.MACROS.solution,
        serve=adapter.serve,
        facts=facts.facts,
        template=adapter.template,
        goal=getattr(facts, "goal", None),
    )


LOCKS = Path(__file__).resolve().parent / "locks"
READY_TIMEOUT_S = 60.0
PORT_TRIES = 3  # ports tried for one session when another program takes the one chosen
STOP_TIMEOUT_S = 10.0


def apps_home() -> Path:
    """The folder apps are installed and seeded in (outside the checkout)."""
    if home := os.environ.get("PLANDVC_APPS"):
        return Path(home)
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "plandvc" / "apps"


def file_hash(*paths: Path) -> str:
    """The first 12 hex digits of the sha256 of the files' bytes, in order."""
    h = hashlib.sha256()
    for p in paths:
        h.update(p.read_bytes())
    return h.hexdigest()[:12]


@contextlib.contextmanager
def locked(name: str) -> Iterator[None]:
    """An exclusive lock on `<home>/<name>.lock` for the block (another process waits)."""
    home = apps_home()
    home.mkdir(parents=True, exist_ok=True)
    with open(home / f"{name}.lock", "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def built(folder: Path, marker: str, build: Callable[[Path], None]) -> Path:
    """`folder`, made by `build(folder)` unless it has its done-marker; a folder without one is made again."""
    if (folder / marker).exists():
        return folder
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    build(folder)
    (folder / marker).write_text("")
    return folder


def install_venv(app: str, lock: Path) -> Path:
    """The app's venv (its folder's `venv/`), installed from `lock` with `--require-hashes` on first use, by
    the project venv's pip into a venv of the same Python (`pip --python`), wheels only; quick once done."""
    root = apps_home() / f"{app}-{file_hash(lock)}"

    def build(folder: Path) -> None:
        venv = folder / "venv"
        _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], "make the venv")
        _run(
            [
                sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install", "--quiet",
                "--disable-pip-version-check", "--no-input", "--require-hashes", "--no-deps",
                "--only-binary", ":all:", "-r", str(lock),
            ],
            f"install {lock.name}",
        )  # fmt: skip

    with locked(app):
        built(root, ".installed", build)
    return root


def _run(cmd: Sequence[str], what: str, env: dict[str, str] | None = None) -> str:
    """Run a command to its end; its output on success, an InfrastructureError naming what failed otherwise."""
    r = subprocess.run(list(cmd), capture_output=True, text=True, env=env, stdin=subprocess.DEVNULL)
    if r.returncode != 0:
        tail = (r.stderr or r.stdout).strip().splitlines()[-3:]
        raise InfrastructureError(f"cannot {what}: exit {r.returncode}: {' | '.join(tail)}")
    return r.stdout


def fresh_copy(template: Path, dest: Path) -> Path:
    """A copy of the seeded template at `dest` (which must not exist): one session's own state."""
    shutil.copytree(template, dest, ignore=shutil.ignore_patterns(".seeded"))
    return dest


def quiet_env(**extra: str) -> dict[str, str]:
    """The environment for an app's processes: warnings off, no user site, the extra variables."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    return env | {"PYTHONWARNINGS": "ignore", "PYTHONNOUSERSITE": "1"} | extra


class PortTakenError(InfrastructureError):
    """Another program answers on the port an application's server was given (exit 75): its port is named."""

    def __init__(self, port: int, app: str, output: str) -> None:
        said = f": {output}" if output else ""
        super().__init__(f"port {port}: another program answers there, not {app}'s server{said}")
        self.port = port


def listening_inodes(port: int) -> set[int]:
    """The socket inodes listening on TCP `port` (any address), from the kernel's tables (/proc/net/tcp{,6})."""
    found: set[int] = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            cols = line.split()
            if len(cols) > 9 and cols[3] == "0A" and int(cols[1].rsplit(":", 1)[1], 16) == port:
                found.add(int(cols[9]))  # state 0A: LISTEN; column 9: the socket's inode
    return found


def socket_pids(inodes: set[int]) -> set[int]:
    """The processes holding one of these socket inodes open (their /proc/<pid>/fd links `socket:[inode]`)."""
    names = {f"socket:[{i}]" for i in inodes}
    pids: set[int] = set()
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            if any(os.readlink(fd) in names for fd in (proc / "fd").iterdir()):
                pids.add(int(proc.name))
        except OSError:  # gone meanwhile, or not ours to read
            continue
    return pids


@dataclass
class Server:
    """A server process for one app session: `cmd` started in its own process group, ready when `probe`
    answers HTTP (any status below 500) *and* the socket listening on its port is held by a process of that
    group (`owns_port`: another program that took the port answers too, and is never taken for the app),
    stopped with its whole group on exit. `base` is its root URL; `app` names it in errors."""

    cmd: list[str]
    base: str
    probe: str = "/"
    env: dict[str, str] = field(default_factory=quiet_env)
    cwd: Path | None = None
    proc: subprocess.Popen[bytes] | None = None
    _out: IO[bytes] | None = None
    started_s: float = 0.0  # how long it took to answer (a measurement, never in an output)
    app: str = ""

    @property
    def port(self) -> int:
        return int(self.base.rsplit(":", 1)[1].split("/", 1)[0])

    def owns_port(self) -> bool:
        """Whether the socket listening on the server's port is held by its own process group."""
        if self.proc is None:
            return False
        group = self.proc.pid  # started with start_new_session: the group's and the session's id
        for pid in socket_pids(listening_inodes(self.port)):
            with contextlib.suppress(OSError):
                if os.getsid(pid) == group:
                    return True
        return False

    def alive(self) -> bool:
        """Whether the server process still runs."""
        return self.proc is not None and self.proc.poll() is None

    def __enter__(self) -> Server:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
        self.close_output()

    @property
    def pid(self) -> int:
        if self.proc is None:
            raise InfrastructureError("the server is not running")
        return self.proc.pid

    def start(self, timeout: float = READY_TIMEOUT_S) -> None:
        # the server's output, kept for the error when it does not start (closed by close_output)
        self._out = tempfile.TemporaryFile()  # noqa: SIM115
        t0 = time.monotonic()
        self.proc = subprocess.Popen(
            self.cmd, env=self.env, cwd=self.cwd, stdin=subprocess.DEVNULL, stdout=self._out,
            stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
        try:
            self._wait_ready(timeout)
        except BaseException:
            self.stop()
            raise
        self.started_s = time.monotonic() - t0

    def output(self) -> str:
        """The last lines the server printed."""
        if self._out is None:
            return ""
        self._out.seek(0)
        return " | ".join(self._out.read().decode(errors="replace").strip().splitlines()[-3:])

    def _wait_ready(self, timeout: float) -> None:
        assert self.proc is not None
        deadline = time.monotonic() + timeout
        url = self.base + self.probe
        answered = False  # something answered on the port (ours, or another program's)
        while True:
            try:
                with urllib.request.urlopen(url, timeout=5) as r:
                    answered = r.status < 500
            except urllib.error.HTTPError as e:
                answered = e.code < 500
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                answered = False
            if answered and self.owns_port():
                return
            try:
                code = self.proc.wait(timeout=0.1)  # the pause between polls; returns if the server died
            except subprocess.TimeoutExpired:
                if time.monotonic() > deadline:
                    if answered:  # someone answers, but it was never the app's own process
                        raise PortTakenError(self.port, self.app or Path(self.cmd[0]).name, "") from None
                    raise InfrastructureError(
                        f"{self.cmd[0]}: no answer on {url} after {timeout:.0f} s"
                    ) from None
                continue
            if answered or listening_inodes(self.port):
                raise PortTakenError(self.port, self.app or Path(self.cmd[0]).name, self.output())
            raise InfrastructureError(
                f"{Path(self.cmd[0]).name} exited with {code} before answering on {url}: {self.output()}"
            )

    def stop(self) -> None:
        """SIGTERM to the process group, SIGKILL if it has not ended in STOP_TIMEOUT_S; idempotent."""
        proc, self.proc = self.proc, None
        if proc is None:
            return
        for sig, wait in ((signal.SIGTERM, STOP_TIMEOUT_S), (signal.SIGKILL, STOP_TIMEOUT_S)):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, sig)
            try:
                proc.wait(timeout=wait)
                return
            except subprocess.TimeoutExpired:
                continue

    def close_output(self) -> None:
        if self._out is not None:
            self._out.close()
            self._out = None

    def rss_kib(self) -> int:
        """The server process's resident memory (VmRSS, KiB): a measurement."""
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        return 0


def seeded_template(name: str, root: Path, key: str, seed_env: Callable[[Path], None]) -> Path:
    """The seeded state sessions copy (`<root>/seed-<key>/env`), made once by `seed_env(env)` under the
    app's lock; `key` names the seed, the size and the seeding code, so a change to any makes a new one."""
    folder = root / f"seed-{key}"
    with locked(name):
        built(folder, ".seeded", lambda f: seed_env(f / "env"))
    return folder / "env"


@dataclass
class FreshSession:
    """One served session of an app (the `Served` every adapter's `serve` yields): its own copy of the template
    (`env`), its server, and the adapter's reader of the gates' state (`read(env, template)`); `settle(base)`,
    when the app has one, runs first so the state read follows the server's last request."""

    env: Path
    template: Path
    server: Server
    read: Callable[[Path, Path], Mapping[str, Any]]
    settle: Callable[[str], None] | None = None

    @property
    def base(self) -> str:
        return self.server.base

    def alive(self) -> bool:
        """Whether the session's server still runs (a server that died mid-task is `on_fresh_session`'s)."""
        return self.server.alive()

    def state(self) -> Mapping[str, Any]:
        if self.settle is not None:
            self.settle(self.base)
        return self.read(self.env, self.template)


@contextlib.contextmanager
def serve_copy(
    name: str,
    template: Path,
    server: Callable[[Path, int], Server],
    read: Callable[[Path, Path], Mapping[str, Any]],
    settle: Callable[[str], None] | None = None,
) -> Iterator[FreshSession]:
    """A fresh copy of `template` in a temporary folder, served by `server(env, port)` on a free loopback
    port; the server stopped and the copy removed on exit, whatever happened. A port another program took
    meanwhile (`PortTakenError`) is given up for another free one, PORT_TRIES times at most."""
    with tempfile.TemporaryDirectory(prefix=f"plandvc-{name}-") as tmp:
        env = fresh_copy(template, Path(tmp) / "env")
        for attempt in range(1, PORT_TRIES + 1):
            s = server(env, free_ports(1)[0])
            s.app = s.app or name
            try:
                s.start()
            except PortTakenError:
                s.close_output()
                if attempt == PORT_TRIES:
                    raise
                continue
            break
        try:
            yield FreshSession(env, template, s, read, settle)
        finally:
            s.stop()
            s.close_output()


async def on_fresh_session(
    app: App,
    seeded: tuple[int, int],
    browser: Browser,
    what: str,
    work: Callable[[Session, Served], Awaitable[T]],
) -> T:
    """`work(session, served)` on a fresh session of the app (seeded with (seed, size)) in `browser`: what every
    command that drives an app runs each task or chain through. A server that died during it (killed, crashed:
    whatever `work` then raised or returned) is started again on a fresh copy and `work` rerun, once; a second
    death is an InfrastructureError naming the application and `what` (exit 75), never bad input."""
    for _attempt in range(2):
        with app.serve(*seeded) as served:
            session = await browser.new_session(served.base)
            try:
                result = await work(session, served)
            except Exception:
                if served.alive():
                    raise
                continue  # the server died under it: the error is the death's, not the task's
            finally:
                with contextlib.suppress(Exception):
                    await session.close()
            if served.alive():
                return result
    raise InfrastructureError(
        f"{app.name}: the application's server died during {what}, and again when started afresh"
    )
