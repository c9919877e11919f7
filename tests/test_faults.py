"""Fault injection: bad inputs, outputs that must not be replaced, and the machinery killed mid-run.

Every case runs the real command (`python -m plandvc ...`) on the committed pool and sites and asserts
the exit code, a one-line message naming what is wrong, and that nothing was written where it should not
be: each run's `--out` has a sentinel file beside it, and the folder holding both is compared before and
after. The kill -9 cases (the Playwright driver, one Chromium, one site server, each mid-run) assert the
published output is byte for byte an uninterrupted run's; a stop (Ctrl-C, `kill -INT`, SIGTERM) publishes
nothing, keeps the finished chains, and the rerun resumes to those bytes.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import stat
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from bundled import pool_items_once
from run_helpers import browsers_of, one_line, plandvc

from plandvc import io
from plandvc.chains.walk import chain_specs

ROOT = Path(__file__).resolve().parents[1]
POOL, SITES = ROOT / "data" / "pool", ROOT / "data" / "sites"

# ── helpers ────────────────────────────────────────────────────────────────


def run_args(chains: Path, out: Path, cache: Path, *extra: str | Path) -> list[str | Path]:
    return ["run-chains", "--chains", chains, "--pool", POOL, "--sites", SITES, "--out", out, "--cache", cache,
            "--no-progress", *extra]  # fmt: skip


def tree(d: Path) -> dict[str, bytes]:
    return {p.relative_to(d).as_posix(): p.read_bytes() for p in sorted(d.rglob("*")) if p.is_file()}


def around(out: Path) -> dict[str, bytes]:
    """Every file in the folder that holds `out`, except `out`'s own (what a run must never touch)."""
    return {k: v for k, v in tree(out.parent).items() if not k.startswith(out.name + "/")}


def results_done(cache: Path) -> int:
    return sum(1 for _ in cache.glob("*/result.json")) if cache.exists() else 0


def wait_for(pred: Callable[[], bool], what: str, timeout: float = 300) -> None:
    t0 = time.monotonic()
    while not pred():
        if time.monotonic() - t0 > timeout:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.1)  # a poll interval, not a wait for a result


def children(pid: int) -> Iterator[tuple[int, list[bytes]]]:
    """(pid, argv) of every descendant of `pid`."""
    parents: dict[int, int] = {}
    argv: dict[int, list[bytes]] = {}
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            st = (proc / "stat").read_text()
            argv[int(proc.name)] = (proc / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        parents[int(proc.name)] = int(st.rsplit(")", 1)[1].split()[1])
    todo, seen = [pid], set()
    while todo:
        p = todo.pop()
        for c, pp in parents.items():
            if pp == p and c not in seen:
                seen.add(c)
                todo.append(c)
                yield c, argv.get(c, [])


def find_child(pid: int, match: Callable[[list[bytes]], bool]) -> int | None:
    return next((c for c, args in children(pid) if match(args)), None)


def is_driver(args: list[bytes]) -> bool:
    return any(a.endswith(b"run-driver") for a in args)


def is_chromium(args: list[bytes]) -> bool:
    return any(a.startswith(b"--plandvc-browser=") for a in args) and not any(
        a.startswith(b"--type=") for a in args
    )


def is_server(args: list[bytes]) -> bool:
    return b"plandvc.sites.server" in args


EMPTY_OK = ("--allow-empty",)


def read_only_dir(tmp_path: Path) -> Path:
    """A folder nothing can be written in (root ignores permission bits: then a sysfs folder)."""
    if os.geteuid() == 0:
        return Path("/sys")
    d = tmp_path / "ro"
    d.mkdir()
    d.chmod(stat.S_IRUSR | stat.S_IXUSR)
    return d


# ── shared inputs ──────────────────────────────────────────────────────────


@pytest.fixture(scope="module")
def chains_all() -> list[dict]:
    records, _ = pool_items_once(POOL, SITES)
    return chain_specs(records, 20, seed=11)


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory, chains_all: list[dict]) -> Path:
    d = tmp_path_factory.mktemp("faults")
    io.write_jsonl(d / "four.jsonl", chains_all[:4])
    io.write_jsonl(d / "one.jsonl", chains_all[:1])
    return d


@pytest.fixture(scope="module")
def reference(work: Path) -> Path:
    """An uninterrupted run of the four chains."""
    out = work / "ref" / "raw"
    p = plandvc(*run_args(work / "four.jsonl", out, work / "ref_cache", "--workers", "2"))
    assert p.returncode == 0, p.stderr[-3000:]
    return out


def place(tmp_path: Path) -> Path:
    """A fresh `--out` path with a sentinel file beside it."""
    d = tmp_path / "place"
    d.mkdir()
    (d / "sentinel.txt").write_text("not the command's\n")
    return d / "raw"


def bad_chains(tmp_path: Path, chains: list[dict]) -> Path:
    p = tmp_path / "chains.jsonl"
    io.write_jsonl(p, chains)
    return p


# ── 1. a key never leads outside --out ─────────────────────────────────────


def test_keys_that_are_not_safe_folder_names_are_refused_before_any_work(tmp_path: Path, chains_all) -> None:
    c = chains_all[0]
    chains = bad_chains(
        tmp_path,
        [{**c, "key": "../../evil"}, {**c, "key": "a/b"}, {**c, "key": "_failed"}, {**c, "key": ".x"}],
    )
    out = place(tmp_path)
    before = tree(tmp_path)
    p = plandvc(*run_args(chains, out, tmp_path / "cache"))
    assert p.returncode == 1, p.stderr[-2000:]
    for n, key in enumerate(["../../evil", "a/b", "_failed", ".x"], 1):
        assert f"chains.jsonl:{n}: key {key!r} is not a safe folder name" in p.stderr
    assert "Traceback" not in p.stderr
    assert tree(tmp_path) == before and not (tmp_path.parent / "evil").exists()


# ── 2. nothing wiped by mistake ────────────────────────────────────────────


def test_an_unrelated_out_folder_is_never_replaced(tmp_path: Path, work: Path) -> None:
    out = place(tmp_path)
    out.mkdir()
    (out / "thesis.tex").write_text("years of work\n")
    before = tree(tmp_path)
    p = plandvc(*run_args(work / "one.jsonl", out, tmp_path / "cache"))
    assert p.returncode == 1
    assert "is not a previous output of run-chains" in one_line(p)
    assert tree(tmp_path) == before


@pytest.mark.slow
def test_an_empty_chains_file_never_replaces_an_output(tmp_path: Path, reference: Path) -> None:
    out = place(tmp_path)
    shutil.copytree(reference, out)
    (tmp_path / "empty.jsonl").write_text("")
    before = tree(tmp_path)
    p = plandvc(*run_args(tmp_path / "empty.jsonl", out, tmp_path / "cache"))
    assert p.returncode == 1 and "no chains" in one_line(p)
    assert tree(tmp_path) == before
    # asked for explicitly, an empty run replaces its own previous output
    p = plandvc(*run_args(tmp_path / "empty.jsonl", out, tmp_path / "cache", "--allow-empty"))
    assert p.returncode == 0, p.stderr[-2000:]
    assert tree(out) == {"results.jsonl": b""}


def test_chain_specs_with_empty_items_keeps_the_chains_file(tmp_path: Path) -> None:
    chains = tmp_path / "chains.jsonl"
    io.write_jsonl(chains, [{"key": "plan-shop-1", "site": "shop", "parts": [{"id": "x", "via": None}]}])
    before = chains.read_bytes()
    (tmp_path / "items.jsonl").write_text("")
    p = plandvc("chain-specs", "--items", tmp_path / "items.jsonl", "--out", chains)
    assert p.returncode == 1 and "no items" in one_line(p)
    assert chains.read_bytes() == before


def test_pool_items_and_chain_specs_never_replace_an_unrelated_file(tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n")
    p = plandvc("pool-items", "--pool", POOL, "--sites", SITES, "--out", notes)
    assert p.returncode == 1 and "not a previous output of pool-items" in one_line(p)
    assert notes.read_text() == "my notes\n"


def test_filter_rows_never_replaces_an_unrelated_folder(tmp_path: Path, work: Path) -> None:
    raw = tmp_path / "raw"
    raw.mkdir()
    (raw / "results.jsonl").write_text("")
    out = place(tmp_path)
    out.mkdir()
    (out / "keep.txt").write_text("mine\n")
    before = tree(tmp_path)
    p = plandvc("filter-rows", "--raw", raw, "--out", out, "--metrics", tmp_path / "m", "--allow-empty")
    assert p.returncode == 1 and "not a previous output of filter-rows" in one_line(p)
    assert tree(tmp_path) == before


# ── 4. one line, not a traceback ───────────────────────────────────────────


def test_a_missing_chromium_is_one_line(tmp_path: Path, work: Path) -> None:
    out = place(tmp_path)
    p = plandvc(
        *run_args(work / "one.jsonl", out, tmp_path / "cache"), env={"PLANDVC_CHROMIUM": "/nonexistent"}
    )
    assert p.returncode == 1 and "chromium not found at /nonexistent" in one_line(p)
    assert not out.exists()


def test_a_port_in_use_is_one_line(tmp_path: Path, work: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        p = plandvc(*run_args(work / "one.jsonl", place(tmp_path), tmp_path / "cache", "--ports", str(port)))
    assert p.returncode == 1 and f"port {port}" in one_line(p)


@pytest.mark.parametrize("command", ["pool-items", "chain-specs", "run-chains", "filter-rows"])
def test_an_unwritable_out_is_one_line_before_any_work(tmp_path: Path, work: Path, command: str) -> None:
    out = read_only_dir(tmp_path) / "plandvc-fault-test" / "out"
    items = tmp_path / "items.jsonl"
    io.write_jsonl(items, pool_items_once(POOL, SITES)[0])
    raw = tmp_path / "raw"
    raw.mkdir()
    io.write_jsonl(raw / "results.jsonl", [])
    args = {
        "pool-items": ["pool-items", "--pool", POOL, "--sites", SITES, "--out", out],
        "chain-specs": ["chain-specs", "--items", items, "--out", out, "--n", "3"],
        "run-chains": run_args(work / "one.jsonl", out, tmp_path / "cache"),
        "filter-rows": ["filter-rows", "--raw", raw, "--out", out, "--metrics", tmp_path / "m", *EMPTY_OK],
    }[command]
    p = plandvc(*args)
    assert p.returncode == 1 and str(out) in one_line(p)
    assert results_done(tmp_path / "cache") == 0


def test_pool_items_out_a_folder_and_chain_specs_items_a_folder_are_one_line(tmp_path: Path) -> None:
    p = plandvc("pool-items", "--pool", POOL, "--sites", SITES, "--out", tmp_path)
    assert p.returncode == 1 and "is a folder" in one_line(p)
    p = plandvc("chain-specs", "--items", tmp_path, "--out", tmp_path / "chains.jsonl")
    assert p.returncode == 1 and "Is a directory" in one_line(p)
    assert not (tmp_path / "chains.jsonl").exists()


def test_debug_shows_the_traceback_of_a_one_line_error(tmp_path: Path) -> None:
    p = plandvc("--debug", "chain-specs", "--items", tmp_path, "--out", tmp_path / "chains.jsonl")
    assert p.returncode == 1 and "Traceback (most recent call last)" in p.stderr
    assert p.stderr.strip().splitlines()[-1] == f"Error: {tmp_path}: cannot read (Is a directory)"


# ── 5. problems found before the work, not after ──────────────────────────


def test_a_duplicate_key_is_found_before_any_chain_runs(tmp_path: Path, chains_all) -> None:
    chains = bad_chains(tmp_path, [chains_all[0], chains_all[1], chains_all[0]])
    out = place(tmp_path)
    before = tree(tmp_path)
    p = plandvc(*run_args(chains, out, tmp_path / "cache"))
    assert p.returncode == 1
    assert f"chains.jsonl:3: key {chains_all[0]['key']!r}: duplicate key (first on line 1)" in one_line(p)
    assert results_done(tmp_path / "cache") == 0 and tree(tmp_path) == before
    assert not list(out.parent.glob(".raw.tmp*"))


# ── 6. every bad input named ───────────────────────────────────────────────


def test_ids_that_do_not_exist_are_named(tmp_path: Path) -> None:
    ids = tmp_path / "ids.txt"
    ids.write_text("no-such-id\nshop-nothing-0001\n")
    out = tmp_path / "items.jsonl"
    p = plandvc("pool-items", "--pool", POOL, "--sites", SITES, "--ids", ids, "--out", out)
    assert p.returncode == 1 and not out.exists()
    assert f"{ids}:1: id 'no-such-id' is not a kept trajectory" in p.stderr
    assert f"{ids}:2: id 'shop-nothing-0001' is not a kept trajectory" in p.stderr


def test_an_empty_pool_is_an_error_unless_asked_for(tmp_path: Path) -> None:
    pool = tmp_path / "pool"
    pool.mkdir()
    (pool / "kept.jsonl").write_text("")
    (pool / "pool_ids.txt").write_text("")
    out = tmp_path / "items.jsonl"
    p = plandvc("pool-items", "--pool", pool, "--sites", SITES, "--out", out)
    assert p.returncode == 1 and "no usable trajectory" in one_line(p) and not out.exists()
    p = plandvc("pool-items", "--pool", pool, "--sites", SITES, "--out", out, "--allow-empty")
    assert p.returncode == 0 and out.read_bytes() == b""


def test_an_unknown_macro_is_named(tmp_path: Path) -> None:
    pool = tmp_path / "pool"
    shutil.copytree(POOL, pool)
    kept = io.read_jsonl(pool / "kept.jsonl")
    tid, run = kept[0]["id"], kept[0]["run"]
    traj_path = pool / "runs" / run / "accepted" / tid / "trajectory.json"
    traj = io.read_json(traj_path)
    traj["macro"] = "teleport_somewhere"
    io.write_json(traj_path, traj)
    p = plandvc("pool-items", "--pool", pool, "--sites", SITES, "--out", tmp_path / "items.jsonl")
    assert p.returncode == 0, p.stderr
    assert f"runs/{run}/accepted/{tid}/trajectory.json: macro 'teleport_somewhere'" in p.stderr


def test_a_bad_via_a_wrong_site_and_a_missing_part_are_each_named(tmp_path: Path, chains_all) -> None:
    a, b, c = chains_all[0], chains_all[1], chains_all[2]
    other = next(x for x in chains_all if x["site"] != b["site"])
    teleport = {**a, "parts": [a["parts"][0], {**a["parts"][1], "via": "teleport"}]}
    wrong_site = {**b, "site": other["site"]}
    missing = {**c, "parts": [c["parts"][0], {"id": "no-such-part", "via": "page"}]}
    chains = bad_chains(tmp_path, [teleport, wrong_site, missing])
    out = place(tmp_path)
    p = plandvc(*run_args(chains, out, tmp_path / "cache"))
    assert p.returncode == 1 and "Traceback" not in p.stderr
    assert f"chains.jsonl:1: key {a['key']!r}: parts[1].via 'teleport' is not 'page' or 'home'" in p.stderr
    assert f"chains.jsonl:2: key {b['key']!r}: parts[0].id {b['parts'][0]['id']!r} is of site" in p.stderr
    assert (
        f"chains.jsonl:3: key {c['key']!r}: parts[1].id 'no-such-part' is not a kept trajectory" in p.stderr
    )
    assert not out.exists() and results_done(tmp_path / "cache") == 0


# ── 7. file modes, damaged cache entries, no noise ─────────────────────────


def test_outputs_get_the_usual_file_modes(tmp_path: Path) -> None:
    out = tmp_path / "items.jsonl"
    mask = os.umask(0o022)
    try:
        p = plandvc("pool-items", "--pool", POOL, "--sites", SITES, "--out", out)
    finally:
        os.umask(mask)
    assert p.returncode == 0, p.stderr
    assert stat.S_IMODE(out.stat().st_mode) == 0o644


@pytest.mark.slow
def test_a_damaged_cache_entry_is_rerun_not_republished(tmp_path: Path, work: Path, reference: Path) -> None:
    cache = tmp_path / "cache"
    shutil.copytree(work / "ref_cache", cache)
    png = sorted(cache.glob("*/step_1.png"))[0]
    png.write_bytes(png.read_bytes()[:100])  # truncated
    out = place(tmp_path)
    p = plandvc(*run_args(work / "four.jsonl", out, cache, "--workers", "1"))
    assert p.returncode == 0, p.stderr[-2000:]
    assert "(3 reused)" in p.stderr
    assert tree(out) == tree(reference)
    assert {k: v for k, v in tree(out).items() if k.endswith(".png")}.keys() == {
        k for k in tree(reference) if k.endswith(".png")
    }
    assert stat.S_IMODE((out / "results.jsonl").stat().st_mode) == 0o644


# ── 3. the machinery killed mid-run ────────────────────────────────────────


@pytest.mark.parametrize(
    ("error", "lost", "attempt", "expected"),
    [
        (None, False, 0, "done"),  # ok
        ("check failed: query: expected /a, found /b", False, 0, "done"),
        ("check failed: answer: expected 'Connection closed', found None", False, 0, "done"),
        ("ActionError: click [3] <a>: Timeout 10000ms exceeded", False, 0, "done"),
        ("TargetClosedError: Target page, context or browser has been closed", False, 0, "retry"),
        ("TargetClosedError: Target page, context or browser has been closed", False, 2, "lost"),
        ("BrowserCrashed: BrowserError: chromium at /x failed to start: boom", False, 2, "lost"),
        ("check failed: query: expected /a, found /b", True, 0, "retry"),  # its server or browser died
        ("check failed: query: expected /a, found /b", True, 2, "lost"),
        ("TimeoutError: chain timed out after 200s at turn 3", False, 0, "retry"),
        ("TimeoutError: chain timed out after 200s at turn 3", False, 1, "hang"),
        ("Error: Execution context was destroyed", False, 1, "hang"),
    ],
)
def test_the_verdict_on_a_chain(error: str | None, lost: bool, attempt: int, expected: str) -> None:
    from plandvc.run.chain import ChainOutput, base_result
    from plandvc.run.engine import verdict

    result = base_result({"key": "k", "site": "s", "parts": [{"id": "a", "via": None}]}, error)
    result["ok"] = error is None
    assert verdict(ChainOutput(result), lost, attempt) == expected


def killed_mid_run(
    tmp_path: Path,
    work: Path,
    find: Callable[[int], int | None] | None,
    what: str,
    sig: int = signal.SIGKILL,
    env: dict[str, str] | None = None,
    code: int = 0,
) -> tuple[Path, str]:
    """Run the four chains on one worker (in `env`), kill -9 the process `find` names once a chain finished
    (or, with `find` None, send `sig` to the run's whole process group, which ignores SIGINT as a script's
    background job does), and return OUT and the run's stderr (asserting exit `code`)."""
    out, cache = place(tmp_path), tmp_path / "cache"
    before = around(out)
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "plandvc",
            *map(str, run_args(work / "four.jsonl", out, cache, "--workers", "1")),
        ],
        cwd=ROOT,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
        env=env,
    )
    try:
        wait_for(lambda: results_done(cache) >= 1 or proc.poll() is not None, "a finished chain")
        assert proc.poll() is None, "the run ended before the fault"
        if find is None:
            os.killpg(proc.pid, sig)
        else:
            pid = find(proc.pid)
            assert pid is not None, f"no {what} of the run found"
            os.kill(pid, signal.SIGKILL)
        _, stderr = proc.communicate(timeout=600)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == code, stderr[-3000:]
    assert around(out) == before  # nothing outside --out changed
    assert "Future exception was never retrieved" not in stderr
    return out, stderr


@pytest.mark.slow
def test_kill_the_playwright_driver_mid_run(tmp_path: Path, work: Path, reference: Path) -> None:
    out, stderr = killed_mid_run(tmp_path, work, lambda pid: find_child(pid, is_driver), "driver")
    assert "browser driver was lost" in stderr
    assert tree(out) == tree(reference)


@pytest.mark.slow
def test_ctrl_c_that_reaches_only_the_children_of_a_run_ignoring_sigint(
    tmp_path: Path, work: Path, reference: Path
) -> None:
    """A script's background job ignores SIGINT; Ctrl-C still reaches the driver, Chromium and the servers:
    they are restarted and the output is the uninterrupted run's."""
    out, _ = killed_mid_run(tmp_path, work, None, "process group", sig=signal.SIGINT)
    assert tree(out) == tree(reference)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("stop", "code", "said"),
    [("ctrl-c", 130, "interrupted"), ("kill-int", 130, "interrupted"), ("sigterm", 143, "terminated")],
)
def test_a_stop_publishes_nothing_keeps_the_finished_chains_and_the_rerun_resumes(
    tmp_path: Path, work: Path, reference: Path, stop: str, code: int, said: str
) -> None:
    """Ctrl-C (SIGINT to the terminal's foreground group: Chromium and the servers get it too), `kill -INT`
    of the run alone, or SIGTERM, once a chain finished: the run stops with its own exit code and one last
    line, publishes nothing, leaves no browser behind and keeps the finished chains; the rerun resumes from
    them to the uninterrupted run's bytes."""
    out, cache = place(tmp_path), tmp_path / "cache"
    before = around(out)
    args = [
        sys.executable,
        "-m",
        "plandvc",
        *map(str, run_args(work / "four.jsonl", out, cache, "--workers", "1")),
    ]
    proc = subprocess.Popen(
        args, cwd=ROOT, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # as a terminal's foreground job
    )  # fmt: skip
    try:
        wait_for(lambda: results_done(cache) >= 1 or proc.poll() is not None, "a finished chain")
        assert proc.poll() is None, "the run ended before the stop"
        if stop == "ctrl-c":
            os.killpg(proc.pid, signal.SIGINT)
        else:
            proc.send_signal(signal.SIGTERM if stop == "sigterm" else signal.SIGINT)
        _, stderr = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    last = stderr.strip().splitlines()[-1]
    assert (
        proc.returncode == code
        and last == f"run-chains: {said}; finished chains are kept in the cache for the next run"
    ), stderr[-3000:]
    assert not out.exists() and around(out) == before
    assert 1 <= results_done(cache) < 4
    wait_for(lambda: not browsers_of({proc.pid}), "the run's browsers to end", 30)
    p = plandvc(*run_args(work / "four.jsonl", out, cache, "--workers", "1"))
    assert p.returncode == 0 and "reused)" in p.stderr and "(0 reused)" not in p.stderr, p.stderr[-3000:]
    assert tree(out) == tree(reference)


@pytest.mark.slow
def test_kill_chromium_mid_run(tmp_path: Path, work: Path, reference: Path) -> None:
    out, _ = killed_mid_run(tmp_path, work, lambda pid: find_child(pid, is_chromium), "chromium")
    assert tree(out) == tree(reference)


@pytest.mark.slow
def test_kill_a_site_server_mid_run(tmp_path: Path, work: Path, reference: Path) -> None:
    out, _ = killed_mid_run(tmp_path, work, lambda pid: find_child(pid, is_server), "site server")
    assert tree(out) == tree(reference)


@pytest.mark.slow
def test_a_browser_that_cannot_come_back_publishes_nothing_and_keeps_the_cache(
    tmp_path: Path, work: Path
) -> None:
    """Chromium killed mid-run, and every relaunch fails (a wrapper that starts the real Chromium once):
    exit 75, OUT not published, the chains finished before the fault kept in the cache."""
    once = tmp_path / "launched"
    wrapper = tmp_path / "chromium-once"
    real = os.environ.get("PLANDVC_CHROMIUM") or "/usr/bin/chromium"
    wrapper.write_text(f'#!/bin/sh\n[ -e "{once}" ] && exit 1\ntouch "{once}"\nexec "{real}" "$@"\n')
    wrapper.chmod(0o755)
    env = {**os.environ, "PLANDVC_CHROMIUM": str(wrapper)}
    out, stderr = killed_mid_run(
        tmp_path, work, lambda pid: find_child(pid, is_chromium), "chromium", env=env, code=75
    )
    last = [ln for ln in stderr.splitlines() if ln.strip()][-1]
    assert "nothing was published" in last and "kept in the cache" in last
    assert not out.exists()
    assert results_done(tmp_path / "cache") >= 1


def test_a_bad_ports_list_is_one_line(tmp_path: Path) -> None:
    """run-chains reads --ports with the one ports type every command uses: a bad list is one line."""
    p = plandvc(
        "run-chains",
        "--chains",
        tmp_path / "c.jsonl",
        "--pool",
        POOL,
        "--sites",
        SITES,
        "--out",
        tmp_path / "out",
        "--ports",
        "8320,80x",
    )
    assert p.returncode != 0 and not (tmp_path / "out").exists()
    assert p.stderr.strip().splitlines() == [
        "Error: --ports: '80x' is not a port number (1-65535); expected e.g. 8320,8321"
    ]
