"""One writer per output: every command that writes a folder or file (make-sites, make-pool, pool-items,
chain-specs, run-chains on either engine, filter-rows) holds OUT's lock (`plandvc.io.exclusive`, the one
export, view and the evaluations hold) from before any work to its end.

Each case runs the real command. A second writer while the lock is held by a live process is one line and
exit 1, and the output is byte for byte what it was; a lock left by a `kill -9` does not block the next run;
two make-pools (and two run-chains) started on one OUT at once leave the first's output as it would be alone.
No sleep synchronises anything: the first writer is stopped (SIGSTOP) once it says it has started, and the
test holds or leaves the lock itself otherwise. The lock file sits beside OUT, never in it.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from bundled import POOL_DIR, SITES_DIR, SPECS
from raw_chains import make_chain, write_results
from run_helpers import ROOT, one_line, plandvc, tree, walk_chains

SMALL_SITE = sorted(SPECS)[0]


def lock_of(out: Path) -> Path:
    """Where OUT's lock file goes: `.<name>.lock` beside it."""
    return out.with_name(f".{out.name}.lock")


def snapshot(path: Path) -> dict[str, bytes]:
    """An output's bytes by relative path (a file output as one entry), to compare two outputs."""
    return {".": path.read_bytes()} if path.is_file() else tree(path)


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Small inputs of the file-reading stages: items and chains of the sample pool, a raw run of two chains."""
    d = tmp_path_factory.mktemp("inputs")
    walk_chains(d, 6, 0, two=slice(2), other=slice(2, 4))
    items = d / "items.jsonl"
    assert plandvc("pool-items", "--pool", POOL_DIR, "--sites", SITES_DIR, "--out", items).returncode == 0
    raw = d / "raw"
    make_chain(raw, "shop", ["a1", "c1"], answer="7")
    make_chain(raw, "clinic", ["d1", "e2"], shade=10)
    write_results(raw)
    return {"items": items, "chains": d / "two.jsonl", "other": d / "other.jsonl", "raw": raw}


def writer_args(command: str, tmp: Path, inputs: dict[str, Path]) -> tuple[list[str | Path], Path]:
    """The command line of one small run of `command` (the Ray engine for "run-chains/ray"), and its OUT."""
    out = tmp / ("out.jsonl" if command in ("pool-items", "chain-specs") else "out")
    run = ["--pool", POOL_DIR, "--sites", SITES_DIR, "--out", out, "--cache", tmp / "cache", "--workers", "1"]
    args: dict[str, list[str | Path]] = {
        "make-sites": ["make-sites", "--domains", "recipes", "--out", out],
        "make-pool": ["make-pool", "--sites", SITES_DIR, "--out", out, "--only-site", SMALL_SITE,
                      "--limit", "2", "--workers", "1"],
        "pool-items": ["pool-items", "--pool", POOL_DIR, "--sites", SITES_DIR, "--out", out],
        "chain-specs": ["chain-specs", "--items", inputs["items"], "--out", out, "--n", "5"],
        "run-chains": ["run-chains", "--chains", inputs["chains"], *run, "--limit", "1"],
        "run-chains/ray": ["run-chains", "--engine", "ray", "--chains", inputs["chains"], *run, "--limit", "1"],
        "filter-rows": ["filter-rows", "--raw", inputs["raw"], "--out", out, "--metrics", tmp / "metrics",
                        "--image-size", "any"],
    }  # fmt: skip
    return args[command], out


WRITERS = ["make-sites", "make-pool", "pool-items", "chain-specs", "run-chains", "filter-rows"]


@pytest.fixture(scope="module")
def alone(
    tmp_path_factory: pytest.TempPathFactory, inputs: dict[str, Path]
) -> Callable[[str], dict[str, bytes]]:
    """Each command's output when it runs alone (made once per command, on first use)."""
    made: dict[str, dict[str, bytes]] = {}

    def get(command: str) -> dict[str, bytes]:
        if command not in made:
            args, out = writer_args(command, tmp_path_factory.mktemp(command), inputs)
            p = plandvc(*args)
            assert p.returncode == 0, p.stderr[-2000:]
            made[command] = snapshot(out)
        return made[command]

    return get


@pytest.mark.parametrize("command", [*WRITERS, "run-chains/ray"])
def test_a_second_writer_while_the_lock_is_held_is_one_line(
    command: str, tmp_path: Path, inputs: dict[str, Path]
) -> None:
    """While a live process holds OUT's lock, each writing command (run-chains on either engine) stops in one
    line, exit 1, before any work: OUT as it was (here a file of the holder's, untouched), no cache."""
    args, out = writer_args(command, tmp_path, inputs)
    name = command.split("/")[0]
    with open(lock_of(out), "a+b") as held:
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)  # what a running writer of OUT holds
        p = plandvc(*args)
    assert p.returncode == 1, p.stderr[-2000:]
    assert one_line(p) == f"Error: another {name} is writing {out}; wait for it to finish"
    assert sorted(q.name for q in tmp_path.iterdir()) == [lock_of(out).name]  # no OUT, no cache, no metrics


APP_WRITERS = ("record-apps", "eval-apps")


@pytest.mark.parametrize("command", APP_WRITERS)
def test_an_application_command_while_the_lock_is_held_is_one_line(command: str, tmp_path: Path) -> None:
    """Two record-apps on one OUT both ended 0, the second replacing the first's pool: the application commands
    take OUT's lock as every writer does (eval-apps its --out's, before the held-out chains), before any work."""
    out = tmp_path / "out"
    args: list[str | Path] = {
        "record-apps": ["record-apps", "--app", "trac", "--per-macro", "1", "--macros", "search_by_text"],
        "eval-apps": ["eval-apps", "--app", "trac", "--pool", ROOT / "data" / "apps" / "trac" / "pool",
                      "--specs", tmp_path / "specs", "--n", "1"],
    }[command]  # fmt: skip
    with open(lock_of(out), "a+b") as held:
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)  # what a running writer of OUT holds
        p = plandvc(*args, "--out", out, env={"PLANDVC_APPS": str(tmp_path / "apps")})
    assert p.returncode == 1, p.stderr[-2000:]
    assert one_line(p) == f"Error: another {command} is writing {out}; wait for it to finish"
    assert sorted(q.name for q in tmp_path.iterdir()) == [lock_of(out).name]  # no OUT, no specs, no install


@pytest.mark.parametrize("command", [c for c in WRITERS if c != "make-pool"])
def test_a_second_writer_leaves_the_first_output_byte_for_byte(
    command: str, tmp_path: Path, inputs: dict[str, Path], alone: Callable[[str], dict[str, bytes]]
) -> None:
    """A second writer of an existing OUT whose lock is held: OUT stays the bytes the first wrote alone."""
    args, out = writer_args(command, tmp_path, inputs)
    p = plandvc(*args)
    assert p.returncode == 0, p.stderr[-2000:]
    assert snapshot(out) == alone(command)
    assert not lock_of(out).exists()  # released and removed at the end
    shutil.rmtree(tmp_path / "cache", ignore_errors=True)  # a second run must not reuse the first's chains
    with open(lock_of(out), "a+b") as held:
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        again = plandvc(*args)
    assert again.returncode == 1 and "is writing" in one_line(again)
    assert snapshot(out) == alone(command)


def hold_and_kill(out: Path, command: str) -> None:
    """A real process takes OUT's lock as a writer does, says so, and is killed with SIGKILL while holding it:
    its lock file is left behind, as a killed writer leaves it."""
    code = (
        "import sys\nfrom plandvc import io\n"
        f"with io.exclusive({str(out)!r}, {command!r}):\n"
        "    print('held', flush=True)\n    sys.stdin.read()\n"
    )
    holder = subprocess.Popen(
        [sys.executable, "-c", code], cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        os.kill(holder.pid, signal.SIGKILL)
        assert holder.wait(30) == -signal.SIGKILL
    finally:
        if holder.poll() is None:
            holder.kill()
    assert lock_of(out).exists()


@pytest.mark.parametrize("command", [c for c in WRITERS if c != "make-pool"])
def test_a_lock_left_by_a_killed_writer_does_not_block_the_next_run(
    command: str, tmp_path: Path, inputs: dict[str, Path], alone: Callable[[str], dict[str, bytes]]
) -> None:
    """The lock is the kernel's and goes with its process: the next run needs no manual step, writes what it
    writes alone, and takes the lock file away."""
    args, out = writer_args(command, tmp_path, inputs)
    hold_and_kill(out, command)
    p = plandvc(*args)
    assert p.returncode == 0, p.stderr[-2000:]
    assert snapshot(out) == alone(command)
    assert not lock_of(out).exists()


def test_an_empty_domain_list_is_refused_unless_allowed(tmp_path: Path) -> None:
    """`--domains ","` wrote a world of 0 sites with exit 0; now one line, exit 1, unless --allow-empty."""
    out = tmp_path / "w"
    p = plandvc("make-sites", "--domains", ",", "--out", out)
    assert p.returncode == 1
    assert one_line(p) == "Error: --domains ',': names no domain (--allow-empty writes a world of no sites)"
    assert not out.exists()
    p = plandvc("make-sites", "--domains", ",", "--out", out, "--allow-empty")
    assert p.returncode == 0, p.stderr
    assert sorted(q.name for q in out.iterdir()) == ["site_split.json", "world.json"]


def test_the_pool_index_never_lists_a_dot_folder(tmp_path: Path) -> None:
    """A `.<id>.part` (or any dot name) under accepted/ is a file being written, never a trajectory: the
    index leaves it out (it once published `.recipes-...-0000.part` in kept.jsonl and pool_ids.txt)."""
    from plandvc import io
    from plandvc.pool.recorder import write_index

    acc = tmp_path / "runs" / "r1" / "accepted"
    for tid in ("t1", ".t2.part"):
        io.write_json(acc / tid / "task.json", {"site": "s", "macro": "open_entry"})
    assert write_index(tmp_path) == (1, 1)
    kept = b'{"id":"t1","run":"r1","site":"s","macro":"open_entry"}\n'
    assert (tmp_path / "kept.jsonl").read_bytes() == kept
    assert (tmp_path / "pool_ids.txt").read_text() == "t1\n"


# --- real writers at once (end to end, so `slow`): make-pool on a one-domain world, run-chains on the sample pool ---


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A world of one domain (`make-sites --domains recipes`)."""
    w = tmp_path_factory.mktemp("world") / "w"
    p = plandvc("make-sites", "--domains", "recipes", "--out", w)
    assert p.returncode == 0, p.stderr
    return w


def pool_args(world: Path, out: Path) -> list[str | Path]:
    site = sorted(p.name for p in world.iterdir() if (p / "site.json").is_file())[0]
    return ["make-pool", "--sites", world, "--out", out, "--per-macro", "1", "--only-site", site,
            "--limit", "6", "--workers", "1"]  # fmt: skip


@pytest.fixture(scope="module")
def pool_alone(world: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    """The small world's pool as make-pool writes it alone."""
    out = tmp_path_factory.mktemp("alone") / "p"
    p = plandvc(*pool_args(world, out))
    assert p.returncode == 0, p.stderr[-2000:]
    return tree(out)


def cli(args: list[str | Path], new_session: bool = False) -> subprocess.Popen[str]:
    """The real command started in the background, its stderr a pipe the test reads line by line."""
    return subprocess.Popen(
        [sys.executable, "-m", "plandvc", *map(str, args)],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=new_session,
    )


def started(p: subprocess.Popen[str]) -> None:
    """Read `p`'s stderr until its first progress line ("[1/N] ..."): it holds OUT's lock and has work left."""
    assert p.stderr is not None
    seen = []
    for line in p.stderr:
        seen.append(line)
        if line.startswith("[1/"):
            return
    raise AssertionError("the first writer ended before its first progress line:\n" + "".join(seen)[-2000:])


def second_while_first_runs(
    first_args: list[str | Path], second_args: list[str | Path], unpublished: Path
) -> tuple[subprocess.CompletedProcess[str], int, str]:
    """Start the first writer, stop it (SIGSTOP) once it has started and before it publishes `unpublished`,
    run the second to its end, then let the first go on: the second's run, the first's exit code and stderr."""
    first = cli(first_args)
    try:
        started(first)
        os.kill(first.pid, signal.SIGSTOP)  # the first holds OUT mid-work while the second runs
        try:
            assert not unpublished.exists()
            second = plandvc(*second_args)
        finally:
            os.kill(first.pid, signal.SIGCONT)
        _, err = first.communicate(timeout=600)
    finally:
        if first.poll() is None:
            first.kill()
    return second, first.returncode, err


@pytest.mark.slow
def test_two_make_pools_at_once_one_records_the_other_says_so(
    world: Path, pool_alone: dict[str, bytes], tmp_path: Path
) -> None:
    """The corrupted pool of issue 41: the second make-pool took the first's working folder (runs/.r1.tmp/)
    for a killed run's, resumed from it and failed on a raw OS line, and the first published a phantom
    `.<id>.part` trajectory. Now the second is one line, exit 1, and the first's pool is the one it writes
    alone, the lock file neither in it nor left beside it."""
    out = tmp_path / "p"
    second, code, err = second_while_first_runs(
        pool_args(world, out), pool_args(world, out), out / "kept.jsonl"
    )
    assert second.returncode == 1, second.stderr[-2000:]
    assert one_line(second) == f"Error: another make-pool is writing {out}; wait for it to finish"
    assert code == 0, err[-2000:]
    assert tree(out) == pool_alone
    assert ".part" not in (out / "kept.jsonl").read_text()
    assert sorted(q.name for q in tmp_path.iterdir()) == ["p"]


@pytest.mark.slow
def test_a_make_pool_killed_with_its_lock_resumes_with_no_manual_step(
    world: Path, pool_alone: dict[str, bytes], tmp_path: Path
) -> None:
    """`kill -9` of a recording leaves its lock file and its working folder: the next run takes both (the
    holder is gone), reuses the filed outcomes and writes the pool it writes alone."""
    out = tmp_path / "p"
    first = cli(pool_args(world, out), new_session=True)
    try:
        started(first)
        os.killpg(first.pid, signal.SIGKILL)
        first.wait(30)
    finally:
        if first.poll() is None:
            os.killpg(first.pid, signal.SIGKILL)
    assert lock_of(out).exists() and (out / "runs" / ".r1.tmp").is_dir()
    again = plandvc(*pool_args(world, out))
    assert again.returncode == 0, again.stderr[-2000:]
    assert "reused from a killed run" in again.stderr
    assert tree(out) == pool_alone
    assert not lock_of(out).exists()


@pytest.mark.slow
def test_two_run_chains_at_once_the_later_does_not_replace_the_earlier(
    inputs: dict[str, Path], tmp_path: Path
) -> None:
    """Two run-chains on one OUT both "succeeded" and the later chain file silently replaced the earlier.
    Now a second writer (another chain file, the Ray engine) stops in one line while the first runs, and
    the first's OUT is the one it writes alone."""
    ref = tmp_path / "ref"
    base = ["run-chains", "--pool", POOL_DIR, "--sites", SITES_DIR, "--workers", "1", "--limit", "2"]
    p = plandvc(*base, "--chains", inputs["chains"], "--out", ref, "--cache", tmp_path / "c0")
    assert p.returncode == 0, p.stderr[-2000:]
    out = tmp_path / "raw"
    second, code, err = second_while_first_runs(
        [*base, "--chains", inputs["chains"], "--out", out, "--cache", tmp_path / "c1"],
        [*base, "--engine", "ray", "--chains", inputs["other"], "--out", out, "--cache", tmp_path / "c2"],
        out,
    )
    assert second.returncode == 1, second.stderr[-2000:]
    assert one_line(second) == f"Error: another run-chains is writing {out}; wait for it to finish"
    assert code == 0, err[-2000:]
    assert tree(out) == tree(ref)
    assert not (tmp_path / "c2").exists() and not lock_of(out).exists()
