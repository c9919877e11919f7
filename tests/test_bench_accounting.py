"""The benchmark's accounting counts the CPU of processes the measured command does not reap."""

from __future__ import annotations

import resource
import sys
from pathlib import Path

import pytest

from plandvc.bench import accounting

ROOT = Path(__file__).resolve().parents[1]

# the command double-forks a grandchild (reparented away, never reaped by it) that burns ~1 CPU-second,
# then waits for it on a pipe: its rusage misses that second, the cgroup does not
ORPHAN_BURN = """
import os, time
r, w = os.pipe()
if os.fork() == 0:
    if os.fork() == 0:
        t = time.process_time()
        while time.process_time() - t < 1.0:
            pass
        os.write(w, b"x")
        os._exit(0)
    os._exit(0)
os.wait()
os.read(r, 1)
"""


def test_cgroup_counts_reparented_processes() -> None:
    probe = accounting.Cgroups.make("plandvc-bench-probe")
    if probe is None:
        pytest.fail(
            "cgroup v1 cpuacct/memory is not writable here (root on a cgroup v1 host); leave this test out with "
            "make test PYTEST_ARGS='--deselect tests/test_bench_accounting.py::test_cgroup_counts_reparented_processes'",
            pytrace=False,
        )
    probe.remove()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    m = accounting.measure([sys.executable, "-c", ORPHAN_BURN], cwd=ROOT)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    reaped = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    assert m.method == "cgroup" and m.returncode == 0 and m.left_behind == 0
    assert reaped < 0.5  # what the old rusage accounting saw: the orphan's second is missing
    assert m.cpu_s >= 0.95  # the cgroup has it
    assert m.peak_mb > 0


def test_proc_stat_fallback_sees_the_machine() -> None:
    m = accounting.measure([sys.executable, "-c", ORPHAN_BURN], cwd=ROOT, force_proc_stat=True)
    assert m.method == "proc_stat" and m.returncode == 0
    assert m.cpu_s >= 0.9  # machine-wide busy time includes the orphan (and anything else running)
