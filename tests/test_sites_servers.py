"""`Servers` starts, restarts and always stops its processes; `plandvc serve` runs until Ctrl-C and rejects bad
input with one line."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from bundled import SITES_DIR
from click.testing import CliRunner

from plandvc.cli import cli
from plandvc.io import InputError
from plandvc.ports import free_ports
from plandvc.sites.servers import ServerError, Servers, health

ROOT = Path(__file__).resolve().parents[1]


def gone(pid: int, timeout: float = 10.0) -> bool:
    """True once process `pid` no longer exists (or is a zombie), polling until `timeout`."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{pid}/stat") as f:
                if f.read().split(")")[-1].split()[0] == "Z":
                    return True
        except FileNotFoundError:
            return True
        time.sleep(0.05)
    return False


def test_servers_start_answer_and_stop_on_exit():
    ports = [free_ports(1)[0], free_ports(1)[0]]
    with Servers(ports, SITES_DIR) as s:
        assert s.bases == [f"http://127.0.0.1:{p}" for p in ports]
        assert all(health(p) for p in ports)
        pids = [p.pid for p in s.procs if p]
        assert len(pids) == 2
    assert all(gone(pid) for pid in pids)
    assert not any(health(p) for p in ports)


def test_servers_stop_on_an_exception():
    port = free_ports(1)[0]
    with pytest.raises(RuntimeError, match="boom"), Servers([port], SITES_DIR) as s:
        pid = s.procs[0].pid
        raise RuntimeError("boom")
    assert gone(pid) and not health(port)


def test_a_taken_port_is_a_clear_error():
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        port = held.getsockname()[1]
        with pytest.raises(ServerError, match=rf"^port {port}: .*(in use|did not start)"):
            Servers([port], SITES_DIR).__enter__()
    port = free_ports(1)[0]
    with Servers([port], SITES_DIR), pytest.raises(ServerError, match=rf"port {port}: already taken"):
        Servers([port], SITES_DIR).__enter__()


def test_bad_specs_name_the_file(tmp_path: Path):
    (tmp_path / "shop").mkdir()
    (tmp_path / "shop" / "site.json").write_text("{}")
    port = free_ports(1)[0]
    with pytest.raises(ServerError, match=rf"port {port}: .*site\.json: site: missing"):
        Servers([port], tmp_path).__enter__()
    with pytest.raises(InputError, match="sites directory not found"):
        Servers([port], tmp_path / "nope")


def test_restart_and_ensure_alive_after_a_server_dies():
    ports = [free_ports(1)[0], free_ports(1)[0]]
    with Servers(ports, SITES_DIR) as s:
        assert s.ensure_alive() == []
        victim = s.procs[1]
        victim.kill()
        victim.wait()
        assert not health(ports[1])
        assert s.ensure_alive() == [1]
        assert health(ports[1]) and s.procs[1].pid != victim.pid
        old = s.procs[0].pid
        s.restart(0)
        assert gone(old) and health(ports[0])


def test_no_orphans_when_the_parent_is_killed(tmp_path: Path):
    """A parent killed with SIGKILL cannot clean up: its servers notice stdin closing and exit."""
    port = free_ports(1)[0]
    script = (
        "import sys, time\n"
        "from plandvc.sites.servers import Servers\n"
        f"s = Servers([{port}], {str(SITES_DIR)!r}).__enter__()\n"
        "print(s.procs[0].pid, flush=True)\n"
        "time.sleep(600)\n"
    )
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, cwd=ROOT)
    try:
        assert parent.stdout is not None
        child = int(parent.stdout.readline())
        assert health(port)
        parent.kill()
        parent.wait()
        assert gone(child), "the server outlived its parent"
        assert not health(port)
    finally:
        if parent.poll() is None:
            parent.kill()


def test_serve_help_has_an_example():
    r = CliRunner().invoke(cli, ["serve", "--help"], catch_exceptions=False)
    assert r.exit_code == 0
    lines = [x.strip() for x in r.output.splitlines()]
    i = lines.index("Example:")
    assert lines[i + 1] == "plandvc serve --sites data/sites --ports 8320,8321"


@pytest.mark.parametrize(
    ("args", "message"),
    [(["--ports", "abc"], "'abc' is not a port number"), (["--ports", "8320,99999"], "'99999' is not a port"),
     (["--ports", "8320,8320"], "duplicate port"), (["--ports", ""], "is not a port number"),
     (["--sites", "/nonexistent/sites"], "sites directory not found")],
)  # fmt: skip
def test_serve_rejects_bad_input_with_one_line(args: list[str], message: str):
    r = CliRunner().invoke(cli, ["serve", *args])
    assert r.exit_code != 0
    lines = [x for x in r.output.splitlines() if x.strip()]
    assert len(lines) == 1 and message in lines[0] and lines[0].startswith("Error: "), r.output


def _ignore_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # as a non-interactive shell starts a background job


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
@pytest.mark.parametrize("inherited", ["default", "sigint-ignored"])
def test_serve_runs_until_ctrl_c_or_sigterm(sig: signal.Signals, inherited: str) -> None:
    ports = [free_ports(1)[0], free_ports(1)[0]]
    proc = subprocess.Popen(
        [sys.executable, "-m", "plandvc", "serve", "--sites", str(SITES_DIR), "--ports", ",".join(map(str, ports))],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT, env={**os.environ, "PYTHONUNBUFFERED": "1"},
        preexec_fn=_ignore_sigint if inherited == "sigint-ignored" else None,
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline().decode()
        assert line.startswith("serving 6 sites") or line.startswith("serving "), line
        assert all(health(p) for p in ports)
        proc.send_signal(sig)
        assert proc.wait(timeout=20) == 0
        assert not any(health(p) for p in ports), "the server processes must stop with serve"
    finally:
        if proc.poll() is None:
            proc.kill()
