"""run-chains on Ray (`--engine ray`): a real cluster on this host (Ray's `cluster_utils.Cluster`: a head
with no room for browsers, as docs/CLUSTER.md advises for the driver's machine, and two browser nodes with
room for one each), real servers and Chromium in the actors, the same driver.

The bytes are compared with a local-engine run of the same dozen chains: a run on the cluster that resumes
from part of the local cache, a run that loses a node mid-run, and a run whose first dispatch of a chain
hangs (its actor blocked: only the driver's deadline and a kill can end it). A run that loses every
browser node exits 75 with one line and leaves the published output as it was; the memory model's
fallbacks are summed over the actors to the local engine's figure. Ray missing or a cluster that does not
answer are one line each.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from bundled import pool_items_once
from openai_double import OpenAIDouble
from run_helpers import browsers_of, differing, finished, processes, subset, tree, wait_for

from plandvc import io
from plandvc.chains.walk import chain_specs
from plandvc.run.actor import ActorInfo
from plandvc.run.chain import RunParams
from plandvc.run.ray_cluster import (
    ONE_HOST_ENV,
    SESSION_SOCKET_TAIL,
    RayUnavailable,
    check_cluster,
    on_loopback,
    temp_dir,
)
from plandvc.run.ray_engine import dispatch_deadline, same_environment

ROOT = Path(__file__).resolve().parents[1]
POOL, SITES = ROOT / "data" / "pool", ROOT / "data" / "sites"
PLANDVC = [sys.executable, "-m", "plandvc"]

os.environ.setdefault(ONE_HOST_ENV, "0")  # before Ray is imported: the test clusters are on loopback only
import ray  # noqa: E402, F401 (plandvc[ray], installed by make setup: its absence fails here)


def common(chains: Path, out: Path, cache: Path, *extra: str) -> list[str]:
    args = ["--chains", chains, "--pool", POOL, "--sites", SITES, "--out", out, "--cache", cache]
    return [str(a) for a in (*args, *extra)]


def run_env(**extra: str) -> dict[str, str]:
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("RAY_ADDRESS", "PLANDVC_RAY", ONE_HOST_ENV))
    }
    env.update(extra)
    return env


def run_cli(args: list[str], env: dict[str, str], check: bool = True) -> subprocess.CompletedProcess[str]:
    p = subprocess.run(
        [*PLANDVC, "run-chains", *args, "--no-progress"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=900,
    )
    if check and p.returncode != 0:
        raise AssertionError(f"run-chains failed ({p.returncode}): {p.stderr[-3000:]}")
    return p


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("ray")
    records, _ = pool_items_once(POOL, SITES)
    chains = chain_specs(records, 12, seed=5)
    io.write_jsonl(d / "chains.jsonl", chains)
    io.write_jsonl(d / "six.jsonl", chains[:6])
    io.write_jsonl(d / "three.jsonl", chains[6:9])
    return d


@pytest.fixture(scope="module")
def local_ref(work: Path) -> Path:
    """The local engine's run of the dozen chains: the bytes every Ray run must give."""
    out = work / "raw_local"
    run_cli(common(work / "chains.jsonl", out, work / "cache_local", "--workers", "2"), run_env())
    return out


BROWSER_NODE: dict[str, Any] = {
    "num_cpus": 1,
    "resources": {"plandvc_browser": 1},
    "object_store_memory": 80 * 2**20,
}


@contextlib.contextmanager
def started_cluster(name: str, nodes: list[dict[str, Any]]) -> Iterator[Any]:
    """A Ray cluster of these nodes on this host (the first is the head), in a short temp dir of its own."""
    from ray.cluster_utils import Cluster

    tmp = f"/tmp/pdvc-{name}{os.getpid()}"
    saved = {k: os.environ.get(k) for k in ("RAY_TMPDIR", "RAY_AUTH_MODE", "RAY_USAGE_STATS_ENABLED")}
    os.environ.update(RAY_TMPDIR=tmp, RAY_AUTH_MODE="disabled", RAY_USAGE_STATS_ENABLED="0")
    os.makedirs(tmp, exist_ok=True)
    c: Any = None
    try:
        for attempt in range(3):  # a loaded host can miss Ray's fixed 15 s agent start-up timeout
            c = Cluster()
            try:
                c.add_node(**nodes[0], include_dashboard=False)
                for node in nodes[1:]:
                    c.add_node(**node)
                c.wait_for_nodes()
                break
            except Exception:
                c.shutdown()
                if attempt == 2:
                    raise
        yield c
    finally:
        if c is not None:
            c.shutdown()
        shutil.rmtree(tmp, ignore_errors=True)
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    """Three Ray nodes on this host: the head (no browsers: the driver's side) and two browser nodes with
    room for one browser each."""
    head = {**BROWSER_NODE, "resources": {"plandvc_browser": 0}}
    with started_cluster("t", [head, BROWSER_NODE, BROWSER_NODE]) as c:
        yield c


def cluster_env(cluster: Any, **extra: str) -> dict[str, str]:
    return run_env(RAY_ADDRESS=cluster.address, RAY_AUTH_MODE="disabled", **extra)


@pytest.mark.slow
@pytest.mark.ray_cluster
@pytest.mark.timeout(1200)  # the module's reference run and cluster start count in the first
def test_a_dozen_chains_on_a_two_node_cluster_give_the_local_bytes(
    work: Path, local_ref: Path, cluster: Any
) -> None:
    """Three chains come from the local engine's cache (resume across engines), nine run on the cluster."""
    cache, out, log = work / "cache_ray", work / "raw_ray", work / "ray_log.json"
    cache.mkdir()
    keys = [c["key"] for c in io.read_jsonl(work / "chains.jsonl")]
    local_entries = {io.read_json(e / "result.json")["key"]: e for e in (work / "cache_local").iterdir()}
    for key in keys[:3]:
        shutil.copytree(local_entries[key], cache / local_entries[key].name)
    p = run_cli(
        common(work / "chains.jsonl", out, cache, "--workers", "2", "--engine", "ray", "--log", str(log)),
        cluster_env(cluster),
    )
    assert "(3 reused)" in p.stderr and "with 2 workers" in p.stderr, p.stderr[-2000:]
    assert differing(tree(out), tree(local_ref)) == []
    ran = io.read_json(log)["chains"]
    assert len(ran) == 9
    # each node has room for one browser, so the two actors are on the two nodes, and both ran chains
    assert {t["worker"] for t in ran} == {0, 1}


@pytest.mark.slow
@pytest.mark.ray_cluster
@pytest.mark.timeout(1200)  # the module's reference run and cluster start count in the first
def test_a_hung_chain_is_killed_and_retried_to_the_same_bytes(
    work: Path, local_ref: Path, cluster: Any
) -> None:
    """The first dispatch of one chain blocks its actor's event loop; the driver's deadline kills the actor,
    Ray restarts it, and the chain runs again."""
    chains = io.read_jsonl(work / "three.jsonl")
    hung = chains[0]["key"]
    out = work / "raw_hang"
    env = cluster_env(cluster, PLANDVC_RAY_TEST_HANG=hung, PLANDVC_RAY_DEADLINE="30")
    p = run_cli(
        common(work / "three.jsonl", out, work / "cache_hang", "--workers", "2", "--engine", "ray"), env
    )
    assert (
        f"chain {hung} lost" in p.stderr and "timed out after 30s" in p.stderr and "actor killed" in p.stderr
    )
    assert "sending it again" in p.stderr
    assert differing(tree(out), subset(tree(local_ref), [c["key"] for c in chains])) == []


def alive_actor_pids(cluster: Any) -> set[int]:
    table = cluster.global_state.actor_table(None, actor_state_name="ALIVE")
    return {int(a["Pid"]) for a in table.values() if a["ActorClassName"].endswith("ChainWorker")}


def start_ray_run(
    work: Path,
    out: Path,
    cache: Path,
    env: dict[str, str],
    chains: str = "six.jsonl",
    ready: Callable[[], bool] | None = None,
    sigint: Any = signal.SIG_DFL,
) -> subprocess.Popen[str]:
    """run-chains on the cluster (six chains unless named, two browsers) in its own process group, returned
    once `ready()` (when given) has held and then its first chain is in the cache: the moment a test interrupts
    or breaks something. The run starts with SIGINT at `sigint` whatever this process inherited: a terminal's
    foreground job has it at its default, a non-interactive shell's background job has it ignored."""
    args = common(work / chains, out, cache, "--workers", "2", "--engine", "ray", "--no-progress")
    proc = subprocess.Popen(
        [*PLANDVC, "run-chains", *args],
        cwd=ROOT,
        env=env,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, sigint),
    )
    try:
        if ready is not None:
            wait_for(lambda: ready() or proc.poll() is not None, 600, "the run to be ready")
        wait_for(lambda: finished(cache) >= 1 or proc.poll() is not None, 600, "a finished chain")
    except BaseException:
        os.killpg(proc.pid, signal.SIGKILL)
        raise
    assert proc.poll() is None, "the run ended before it could be interrupted"
    return proc


def end_of(proc: subprocess.Popen[str], act: Callable[[], object], timeout: float = 600) -> str:
    """Do `act` to a running run and wait for its end, killing its process group if it outlives `timeout`
    (a test never leaves a run behind); the run's stderr."""
    try:
        act()
        _, stderr = proc.communicate(timeout=timeout)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    return stderr


# how a stop reaches the run: (signal, to the whole process group or to run-chains' pid only, exit, last line)
STOPS = {
    "ctrl-c": (signal.SIGINT, True, 130, "interrupted; finished chains are kept"),
    "kill-int": (signal.SIGINT, False, 130, "interrupted; finished chains are kept"),
    "sigterm": (signal.SIGTERM, False, 143, "terminated; finished chains are kept"),
}


@pytest.mark.slow
@pytest.mark.ray_cluster
@pytest.mark.timeout(1200)
@pytest.mark.parametrize("stop", sorted(STOPS))
def test_a_stop_ends_the_clusters_work_cleanly(work: Path, cluster: Any, stop: str) -> None:
    """Ctrl-C (SIGINT to the terminal's whole foreground group), `kill -INT` of run-chains alone, or SIGTERM:
    the driver closes its actors (browsers and servers) and kills them itself, rather than leaving them to
    Ray's clean-up of a dead driver; nothing is published and the finished chains stay in the cache. The
    actors and their browsers are found before the first chain finishes and the stop follows it at once,
    on the dozen chains."""
    sig, group, code, said = STOPS[stop]
    out, cache = work / f"raw_{stop}", work / f"cache_{stop}"
    seen: set[int] = set()

    def browsers_up() -> bool:
        pids = alive_actor_pids(cluster)
        if len(pids) == 2 and len(browsers_of(pids)) >= 2:
            seen.update(pids)
        return bool(seen)

    proc = start_ray_run(work, out, cache, cluster_env(cluster), "chains.jsonl", browsers_up)
    pids = seen
    assert len(pids) == 2
    stderr = end_of(proc, lambda: os.killpg(proc.pid, sig) if group else proc.send_signal(sig), 120)
    assert proc.returncode == code and said in stderr.strip().splitlines()[-1], stderr[-2000:]
    assert not out.exists() and 1 <= finished(cache) < 12
    wait_for(
        lambda: not (alive_actor_pids(cluster) & pids) and not browsers_of(pids), 60, "the actors to end"
    )
    dead = [
        a
        for a in cluster.global_state.actor_table(None, actor_state_name="DEAD").values()
        if int(a["Pid"]) in pids
    ]
    assert len(dead) == 2 and all("ray.kill" in str(a["DeathCause"]) for a in dead), [
        str(a["DeathCause"])[:300] for a in dead
    ]


@pytest.mark.slow
@pytest.mark.ray_cluster
@pytest.mark.timeout(1200)
def test_a_second_stop_ends_the_driver_at_once(work: Path, cluster: Any) -> None:
    """One actor is held by the hang hook, so a clean stop would wait for it to close (up to 20 s); a second
    stop kills the driver instead: Ctrl-C is still what the run reports, and Ray ends the actors the dead
    driver owned (their death is their owner's, not the driver's `ray.kill`)."""
    out, cache = work / "raw_twice", work / "cache_twice"
    hung = io.read_jsonl(work / "six.jsonl")[0]["key"]
    seen: set[int] = set()

    def actors_up() -> bool:
        seen.update(alive_actor_pids(cluster))
        return len(seen) == 2

    env = cluster_env(cluster, PLANDVC_RAY_TEST_HANG=hung)
    proc = start_ray_run(work, out, cache, env, ready=actors_up)
    stderr = end_of(proc, lambda: (proc.send_signal(signal.SIGINT), proc.send_signal(signal.SIGTERM)), 120)
    assert proc.returncode == 130 and "interrupted" in stderr.strip().splitlines()[-1], stderr[-2000:]
    assert not out.exists()
    wait_for(lambda: not (alive_actor_pids(cluster) & seen), 120, "the actors to end")
    dead = [
        str(a["DeathCause"])
        for a in cluster.global_state.actor_table(None, actor_state_name="DEAD").values()
        if int(a["Pid"]) in seen
    ]
    assert len(dead) == 2 and not any("ray.kill" in d for d in dead), [d[:300] for d in dead]


@pytest.mark.slow
@pytest.mark.ray_cluster
@pytest.mark.timeout(1200)
def test_a_run_that_ignores_sigint_goes_on_to_the_local_bytes(
    work: Path, local_ref: Path, cluster: Any
) -> None:
    """A non-interactive shell's background job starts with SIGINT ignored: a SIGINT to its group then
    stops nothing, as with the local engine, and the run ends with the local engine's bytes."""
    out, cache = work / "raw_ign", work / "cache_ign"
    proc = start_ray_run(work, out, cache, cluster_env(cluster), sigint=signal.SIG_IGN)
    stderr = end_of(proc, lambda: os.killpg(proc.pid, signal.SIGINT))
    assert proc.returncode == 0, stderr[-3000:]
    keys = [c["key"] for c in io.read_jsonl(work / "six.jsonl")]
    assert differing(tree(out), subset(tree(local_ref), keys)) == []


@pytest.mark.slow
@pytest.mark.ray_cluster
@pytest.mark.timeout(1200)  # the module's reference run and cluster start count in the first
def test_removing_a_node_mid_run_still_gives_the_same_bytes(
    work: Path, local_ref: Path, cluster: Any
) -> None:
    out, cache = work / "raw_node", work / "cache_node"
    proc = start_ray_run(work, out, cache, cluster_env(cluster))
    worker = sorted(cluster.worker_nodes, key=lambda n: n.unique_id)[0]
    try:  # its raylet, object store and actor (with its Chromium) are gone
        stderr = end_of(proc, lambda: cluster.remove_node(worker))
    finally:
        cluster.add_node(**BROWSER_NODE)
    assert proc.returncode == 0, stderr[-3000:]
    assert "lost on browser actor" in stderr and "ActorDied" in stderr, stderr[-3000:]
    keys = [c["key"] for c in io.read_jsonl(work / "six.jsonl")]
    assert differing(tree(out), subset(tree(local_ref), keys)) == []


@pytest.mark.slow
@pytest.mark.ray_cluster
@pytest.mark.timeout(1200)
def test_every_browser_node_gone_is_exit_75_and_loses_nothing_published(
    work: Path, local_ref: Path, cluster: Any
) -> None:
    """Both browser nodes removed mid-run: no actor can come back (no node has room), the run says so in
    one last line and exits 75, the output published before is untouched and the finished chains stay in
    the cache."""
    out, cache = work / "raw_dead", work / "cache_dead"
    shutil.copytree(local_ref, out)  # what an earlier run published
    published = tree(out)
    # a restarted actor waits 20 s for room on a node (there is none left), not the default 300 s
    proc = start_ray_run(work, out, cache, cluster_env(cluster, PLANDVC_RAY_REVIVE="20"))
    try:
        stderr = end_of(proc, lambda: [cluster.remove_node(node) for node in list(cluster.worker_nodes)])
    finally:
        for _ in range(2 - len(cluster.worker_nodes)):
            cluster.add_node(**BROWSER_NODE)
    lines = stderr.strip().splitlines()
    assert proc.returncode == 75, stderr[-3000:]
    assert "no browser actor left" in lines[-1] and "nothing was published" in lines[-1], stderr[-3000:]
    assert lines[-1].startswith("run-chains: ") and "kept in the cache" in lines[-1]
    assert all(ln.startswith("run-chains: ") for ln in lines), stderr[-3000:]
    assert tree(out) == published
    done = finished(cache)
    assert 1 <= done < 6 and f"the {done} finished chains are kept in the cache" in lines[-1]


@pytest.mark.slow
@pytest.mark.ray_cluster
@pytest.mark.timeout(1200)
def test_the_memory_models_fallbacks_are_summed_over_the_actors(work: Path, cluster: Any) -> None:
    """A memory model that refuses every request (HTTP 400): each chain falls back, and the run's log
    reports the same fallbacks by reason from the two actors as the local engine from its one client."""
    chains = io.read_jsonl(work / "six.jsonl")[:4]
    io.write_jsonl(work / "four.jsonl", chains)
    summaries, trees = {}, {}
    with OpenAIDouble(models=("memory-test",)) as api:
        memory = ["--memory-url", api.url, "--memory-model", "memory-test", "--workers", "2"]
        for engine, env in (("local", run_env()), ("ray", cluster_env(cluster))):
            out, log = work / f"raw_mem_{engine}", work / f"mem_{engine}.json"
            args = common(work / "four.jsonl", out, work / f"cache_mem_{engine}", *memory, "--log", str(log))
            run_cli([*args, "--engine", engine], env)
            summaries[engine], trees[engine] = io.read_json(log)["summary"]["memory"], tree(out)
    assert summaries["local"] and sum(summaries["local"].values()) >= len(chains), summaries
    assert summaries["ray"] == summaries["local"]
    assert differing(trees["ray"], trees["local"]) == []


@pytest.mark.slow
@pytest.mark.ray_cluster
@pytest.mark.timeout(1200)
def test_the_whole_cluster_gone_is_exit_75_and_one_line(work: Path, tmp_path: Path) -> None:
    """The only node of a cluster of its own removed mid-run: run-chains ends with one line and exit 75,
    publishing nothing, the finished chains cached. Which line depends on who is first: Ray ending the
    driver process at once (its node is gone), or the driver finding no actor left."""
    out, cache = tmp_path / "raw", tmp_path / "cache"
    with started_cluster("g", [{**BROWSER_NODE, "resources": {"plandvc_browser": 2}}]) as gone:
        proc = start_ray_run(work, out, cache, cluster_env(gone))
        stderr = end_of(proc, lambda: gone.remove_node(gone.head_node))
    last = stderr.strip().splitlines()[-1]
    assert proc.returncode == 75, stderr[-3000:]
    ended = ("run-chains: the Ray driver process ended at once", "no browser actor left")
    assert last.startswith("run-chains: ") and any(e in last for e in ended), stderr[-3000:]
    assert "nothing was published" in last and "finished chains are kept in the cache" in last
    assert not out.exists() and finished(cache) >= 1


def listening(pids: set[int]) -> set[str]:
    """The addresses these processes listen on over TCP (from /proc: their socket inodes in net/tcp{,6})."""
    inodes: set[str] = set()
    for pid in pids:
        with contextlib.suppress(OSError):
            for fd in os.listdir(f"/proc/{pid}/fd"):
                with contextlib.suppress(OSError):
                    target = os.readlink(f"/proc/{pid}/fd/{fd}")
                    if target.startswith("socket:["):
                        inodes.add(target[8:-1])
    found = set()
    for table, family in (("/proc/net/tcp", socket.AF_INET), ("/proc/net/tcp6", socket.AF_INET6)):
        for row in Path(table).read_text().splitlines()[1:]:
            cols = row.split()
            if cols[3] == "0A" and cols[9] in inodes:  # a listening socket of one of them
                raw = bytes.fromhex(cols[1].split(":")[0])  # the address, in 32-bit little-endian words
                words = b"".join(raw[i : i + 4][::-1] for i in range(0, len(raw), 4))
                found.add(socket.inet_ntop(family, words))
    return found


@pytest.mark.slow
@pytest.mark.ray_cluster
@pytest.mark.timeout(1200)
def test_a_local_ray_listens_on_loopback_stops_on_ctrl_c_and_resumes(work: Path, local_ref: Path) -> None:
    """No RAY_ADDRESS: run-chains starts a Ray of its own, on loopback only; Ctrl-C ends it with its
    processes (nothing published, the finished chains cached), and the next run resumes to the local
    engine's bytes."""
    out, cache = work / "raw_own", work / "cache_own"
    tmp = f"/tmp/pdvc-own{os.getpid()}"
    env = run_env(PLANDVC_RAY_TMPDIR=tmp)
    addresses: set[str] = set()

    def local_ray() -> set[int]:  # its processes name their temp dir
        return processes(lambda cmd: tmp.encode() in cmd)

    def ray_up() -> bool:
        addresses.update(listening(local_ray()))
        return bool(addresses)

    try:
        proc = start_ray_run(work, out, cache, env, ready=ray_up)
        addresses.update(listening(local_ray()))
        stderr = end_of(proc, lambda: os.killpg(proc.pid, signal.SIGINT), 120)
        assert proc.returncode == 130 and "interrupted" in stderr.strip().splitlines()[-1], stderr[-2000:]
        assert not out.exists() and 1 <= finished(cache) < 6
        assert addresses and all(a.startswith(("127.", "::ffff:127.")) for a in addresses), addresses
        wait_for(lambda: not local_ray(), 60, "the local Ray's processes to end")
        p = run_cli(common(work / "six.jsonl", out, cache, "--workers", "2", "--engine", "ray"), env)
        assert "reused)" in p.stderr and "(0 reused)" not in p.stderr, p.stderr[-2000:]
    finally:
        for pid in local_ray():
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        shutil.rmtree(tmp, ignore_errors=True)
    keys = [c["key"] for c in io.read_jsonl(work / "six.jsonl")]
    assert differing(tree(out), subset(tree(local_ref), keys)) == []


def test_ray_missing_is_one_line_naming_what_to_install(work: Path, tmp_path: Path) -> None:
    code = "import sys; sys.modules['ray'] = None; from plandvc.cli import cli; cli()"
    args = common(work / "six.jsonl", tmp_path / "out", tmp_path / "cache", "--engine", "ray")
    p = subprocess.run(
        [sys.executable, "-c", code, "run-chains", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=run_env(),
    )
    lines = p.stderr.strip().splitlines()
    assert p.returncode != 0 and len(lines) == 1 and "pip install 'plandvc[ray]'" in lines[0], p.stderr
    assert not (tmp_path / "out").exists()


def test_an_unreachable_cluster_is_one_line_naming_the_address(work: Path, tmp_path: Path) -> None:
    address = f"127.0.0.1:{free_port()}"
    args = common(work / "six.jsonl", tmp_path / "out", tmp_path / "cache", "--engine", "ray")
    p = run_cli(args, run_env(RAY_ADDRESS=address), check=False)
    lines = p.stderr.strip().splitlines()
    assert p.returncode != 0 and len(lines) == 1, p.stderr
    assert address in lines[0] and "RAY_ADDRESS" in lines[0] and "cannot reach" in lines[0]
    assert not (tmp_path / "out").exists()


@contextlib.contextmanager
def http_server() -> Iterator[str]:
    """A real HTTP server on a free loopback port (not Ray): its `host:port`."""
    import http.server
    import threading

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), http.server.SimpleHTTPRequestHandler)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"127.0.0.1:{srv.server_address[1]}"
    finally:
        srv.shutdown()
        srv.server_close()
        thread.join()


def test_a_port_that_is_not_ray_is_one_line_naming_the_address(work: Path, tmp_path: Path) -> None:
    """RAY_ADDRESS at a listening HTTP server: ray.init would wait for ever; the run ends at once, exit 1
    (a wrong address: running again unchanged cannot help), one line naming the address."""
    args = common(work / "six.jsonl", tmp_path / "out", tmp_path / "cache", "--engine", "ray")
    with http_server() as address:
        t0 = time.monotonic()
        p = subprocess.run(
            [*PLANDVC, "run-chains", *args, "--no-progress"],
            capture_output=True,
            text=True,
            cwd=ROOT,
            env=run_env(RAY_ADDRESS=address),
            timeout=90,
        )
        took = time.monotonic() - t0
    lines = p.stderr.strip().splitlines()
    assert p.returncode == 1 and len(lines) == 1, p.stderr[-2000:]
    assert address in lines[0] and "RAY_ADDRESS" in lines[0] and "not a Ray cluster" in lines[0], lines
    assert "answered gRPC's HTTP/2 preface with '<!DOCTYPE'" in lines[0], lines  # its error page
    assert took < 30, f"took {took:.0f}s"
    assert not (tmp_path / "out").exists()


def test_a_port_that_never_answers_is_refused_within_the_probes_deadline() -> None:
    """A port that takes the connection and says nothing (the kernel completes it on the listen backlog)."""
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(1)
        address = f"127.0.0.1:{silent.getsockname()[1]}"
        t0 = time.monotonic()
        with pytest.raises(RayUnavailable, match=rf"the server at {address} \(RAY_ADDRESS\) is not a Ray"):
            check_cluster(address, timeout=1.0)
        assert time.monotonic() - t0 < 5


def test_the_engine_is_an_environment_choice_never_a_param(tmp_path: Path) -> None:
    """PLANDVC_ENGINE picks the engine (a bad one is refused), and no stage's params name it."""
    p = subprocess.run(
        [*PLANDVC, "run-chains", "--chains", "x", "--pool", "x", "--sites", "x", "--out", "x"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=run_env(PLANDVC_ENGINE="spark"),
    )
    assert p.returncode == 2 and "'spark' is not one of 'local', 'ray'" in p.stderr
    assert (
        "engine" not in (ROOT / "params.yaml").read_text()
        and "--engine" not in (ROOT / "dvc.yaml").read_text()
    )


def test_actors_must_share_the_drivers_code_and_one_environment() -> None:
    env = {"chromium": "146.0", "image": None, "playwright": "1.58.0", "plandvc": "0.1.0"}
    a, b = ActorInfo(env, "c0de", "node-a-1234"), ActorInfo(dict(env), "c0de", "node-b-5678")
    assert same_environment([a, b], "c0de", "here") == env
    other = ActorInfo({**env, "chromium": "145.0"}, "c0de", "node-c-9999")
    with pytest.raises(RayUnavailable, match=r"differ in chromium '146.0' vs '145.0'.*same image"):
        same_environment([a, other], "c0de", "here")
    with pytest.raises(RayUnavailable, match="node node-b-5 of here runs other plandvc code"):
        same_environment([a, ActorInfo(env, "beef", "node-b-5678")], "c0de", "here")


@pytest.mark.parametrize(
    ("address", "loopback"),
    [("127.0.0.1:6379", True), ("127.3.0.1:1", True), ("localhost:6379", True), ("[::1]:6379", True),
     ("ray://127.0.0.1:10001", True), ("10.0.0.1:6379", False), ("head:6379", False), ("auto", False)],
)  # fmt: skip
def test_a_cluster_on_loopback_is_joined_on_loopback(address: str, loopback: bool) -> None:
    assert on_loopback(address) is loopback


def test_the_temp_dir_must_leave_room_for_rays_sockets(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PLANDVC_RAY_TMPDIR", "/tmp/r")
    assert temp_dir() == "/tmp/r"
    long = "/scratch/slurm-job-123456789/tmp/" + "x" * 20
    monkeypatch.setenv("PLANDVC_RAY_TMPDIR", long)
    with pytest.raises(RayUnavailable, match="too long for Ray's unix sockets"):
        temp_dir()
    monkeypatch.delenv("PLANDVC_RAY_TMPDIR")
    assert len(temp_dir()) + SESSION_SOCKET_TAIL < 107


def test_a_dispatch_deadline_covers_the_chains_own_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PLANDVC_RAY_DEADLINE", raising=False)
    chain = {"parts": [{"id": "a", "via": None}, {"id": "b", "via": "home"}]}  # 2 parts, a trip home, done
    assert dispatch_deadline(chain, RunParams(timeout_base=100, timeout_per_turn=10)) == 100 + 10 * 4 + 60
    monkeypatch.setenv("PLANDVC_RAY_DEADLINE", "7")
    assert dispatch_deadline(chain, RunParams()) == 7
