"""Where the Ray engine runs: the cluster at `RAY_ADDRESS`, checked before Ray is asked to join it, else a
small local Ray started for the run.

- **A cluster**: its address must answer, and answer as Ray: Ray's GCS (and the Ray Client server of a
  `ray://` address) speak gRPC, whose server answers a client's HTTP/2 connection preface with a SETTINGS
  frame. Anything else on that port (an HTTP/1 server, a silent one) would leave `ray.init` waiting for
  ever, so it is one line naming the address instead, within `PROBE_TIMEOUT_S`.
- **A local Ray**: no dashboard, one CPU, a 100 MiB object store, a short temp dir so its unix sockets stay
  under the 107-byte limit, on loopback only.
"""

from __future__ import annotations

import contextlib
import ipaddress
import logging
import os
import signal
import socket
from collections.abc import Iterator
from types import ModuleType

from plandvc.errors import InputError
from plandvc.run.worker import first_line

RESOURCE = "plandvc_browser"  # custom resource: browsers a node may run
LOCAL_OBJECT_STORE = 100 * 1024 * 1024
LOCAL_START_TRIES = 3  # a loaded machine can miss Ray's fixed start-up timeouts; a fresh start then works
# a unix socket path (sun_path) is at most 107 bytes; Ray's live in <temp dir>/session_<when>_<pid>/sockets/
SOCKET_PATH_MAX = 107
SESSION_SOCKET_TAIL = len("/session_2026-01-01_00-00-00_000000_4194304/sockets/plasma_store")
TMPDIR_ENV = "PLANDVC_RAY_TMPDIR"
# Ray's switch for clusters of many hosts: off, every node takes 127.0.0.1 for its address, so a Ray on one
# host listens and talks on loopback only (on, it takes the host's network address)
ONE_HOST_ENV = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"
INSTALL_HINT = "pip install 'plandvc[ray]' (make setup installs it)"
PROBE_TIMEOUT_S = 5.0  # connecting to RAY_ADDRESS, then its answer to the HTTP/2 preface
# HTTP/2's client connection preface and an empty SETTINGS frame (RFC 9113, 3.4 and 6.5)
H2_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + bytes([0, 0, 0, 4, 0, 0, 0, 0, 0])
H2_SETTINGS = 4  # the frame type a server's own preface starts with
H2_FRAME_HEADER = 9


class RayUnavailable(InputError):
    """Ray missing, a cluster unreachable or not Ray, or no actor able to run: one line naming what to do."""


def import_ray() -> ModuleType:
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


def error_line(e: BaseException) -> str:
    """An error's first line, or its type's name when it says nothing."""
    return first_line(e) or type(e).__name__


def check_cluster(address: str, timeout: float = PROBE_TIMEOUT_S) -> None:
    """Fail fast, in one line naming the address, when a `host:port` cluster address does not answer, or
    answers but not as Ray (no HTTP/2 SETTINGS frame in reply to the preface) - `ray.init` would wait for
    ever. A cluster that uses TLS (RAY_USE_TLS) is only checked for an answer."""
    host, sep, port = address.removeprefix("ray://").rpartition(":")
    if not sep or not port.isdigit():
        return  # "auto" and the like: Ray resolves them
    try:
        conn = socket.create_connection((host.strip("[]") or "127.0.0.1", int(port)), timeout=timeout)
    except OSError as e:
        why = e.strerror or type(e).__name__
        raise RayUnavailable(f"cannot reach the Ray cluster at {address} (RAY_ADDRESS): {why}") from None
    with conn:
        if os.environ.get("RAY_USE_TLS", "0").lower() in ("1", "true"):
            return
        why = _http2_reply(conn)
    if why:
        raise RayUnavailable(
            f"the server at {address} (RAY_ADDRESS) is not a Ray cluster: {why}; set RAY_ADDRESS to the "
            "head's GCS address (`ray start --head` prints it)"
        )


def _http2_reply(conn: socket.socket) -> str:
    """Send HTTP/2's connection preface; "" when the reply starts with a SETTINGS frame, else what came."""
    try:
        conn.sendall(H2_PREFACE)
        head = b""
        while len(head) < H2_FRAME_HEADER:
            chunk = conn.recv(H2_FRAME_HEADER - len(head))
            if not chunk:
                break
            head += chunk
    except TimeoutError:
        return f"no answer to gRPC's HTTP/2 preface within {conn.gettimeout():g}s"
    except OSError as e:
        return f"the connection failed ({e.strerror or type(e).__name__})"
    if len(head) == H2_FRAME_HEADER and head[3] == H2_SETTINGS:
        return ""
    said = head.decode("latin-1").splitlines()[0][:40] if head.strip() else "nothing"
    return f"it answered gRPC's HTTP/2 preface with {said!r}"


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


# what every ray.init of the run says: no working_dir, no pip/conda (every node runs the same install)
INIT_OPTIONS = {
    "log_to_driver": False,
    "logging_level": logging.WARNING,
    "namespace": "plandvc",
    "runtime_env": {"env_vars": {"RAY_ENABLE_UV_RUN_RUNTIME_ENV": "0"}},
}


def connect(ray: ModuleType, workers: int) -> str:
    """Join the cluster at RAY_ADDRESS, else start a small local Ray with room for `workers` browsers;
    where the run is, for its lines."""
    address = os.environ.get("RAY_ADDRESS", "").strip()
    if not address:
        return start_local(ray, workers)
    check_cluster(address)
    try:
        with own_stop_handlers():
            ray.init(address=address, **INIT_OPTIONS)
    except Exception as e:
        raise RayUnavailable(
            f"cannot connect to the Ray cluster at {address} (RAY_ADDRESS): {error_line(e)}"
        ) from None
    return f"the Ray cluster at {address}"


def start_local(ray: ModuleType, workers: int) -> str:
    """Start a local Ray for this run (tried again when a loaded machine misses its start-up timeouts)."""
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
                    **INIT_OPTIONS,
                )
            return "a local Ray"
        except Exception as e:
            with contextlib.suppress(Exception):
                ray.shutdown()
            if try_no == LOCAL_START_TRIES - 1:
                raise RayUnavailable(f"a local Ray did not start (temp dir {tmp}): {error_line(e)}") from None
    raise AssertionError("unreachable")
