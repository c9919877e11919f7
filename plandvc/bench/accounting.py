"""CPU and memory of everything a measured command causes, Chromium's processes included.

Chromium's renderer, GPU and utility processes are not reaped by the command (its zygote reparents them),
so the command's rusage misses most of the CPU (about 70 % of run-chains'). Two methods, in order:

- `cgroup` (used when the cgroup v1 `cpuacct` and `memory` hierarchies are writable, as root on this kind
  of machine): the command runs in its own cgroup, a child of the caller's, joined in the forked child
  before `exec` so every process it ever starts — reparented ones too — is counted. CPU is the cgroup's
  `cpuacct.usage` (nanoseconds of CPU, user + system), peak memory its `memory.max_usage_in_bytes` (RSS,
  shared memory and the page cache the run charged, e.g. the PNGs it wrote). Other processes on the
  machine do not count, so the figure holds on a busy machine too (only wall time is noisy there).
- `proc_stat` (the fallback): the machine's busy jiffies from `/proc/stat` (everything but idle and
  iowait) over the run, and the peak summed RSS of the command's process tree sampled from `/proc` (which
  misses reparented processes). Honest only on an otherwise quiet machine: the result says so.

With cgroups, `by_kind` splits the CPU by process kind (Chromium's browser, renderer, GPU, utility
processes; Playwright's node driver; plandvc's Python; the site servers) from the last /proc sample of
each process of the cgroup (every 0.1 s): a process's last moments before it exits are missed, and what no
sample saw is `unattributed` (the cgroup total stays exact). A renderer forked by Chromium's zygote counts
as `zygote` until it renames itself.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

CGROUP_ROOT = Path("/sys/fs/cgroup")


@dataclass(frozen=True)
class Measure:
    """What one measured command cost."""

    method: str  # "cgroup" or "proc_stat"
    wall_s: float
    cpu_s: float  # CPU-seconds of everything the command caused (or of the whole machine, proc_stat)
    peak_mb: int
    returncode: int
    left_behind: int  # processes of the command still alive when it ended (cgroup only: a leak)
    stdout: str
    stderr: str
    by_kind: dict[str, float] = field(default_factory=dict)  # CPU-s by process kind (cgroup only)


def _own_cgroup(controller: str) -> Path | None:
    """The directory of this process's cgroup in a v1 hierarchy `controller`, when it is mounted."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        _, names, path = line.split(":", 2)
        if controller in names.split(","):
            d = CGROUP_ROOT / controller / path.lstrip("/")
            return d if d.is_dir() else None
    return None


class Cgroups:
    """A fresh cpuacct + memory cgroup pair under the caller's own; `None` from `make()` when not writable."""

    def __init__(self, dirs: dict[str, Path]) -> None:
        self.dirs = dirs

    @classmethod
    def make(cls, name: str) -> Cgroups | None:
        dirs: dict[str, Path] = {}
        for controller in ("cpuacct", "memory"):
            parent = _own_cgroup(controller)
            if parent is None:
                break
            d = parent / name
            try:
                d.mkdir()
            except OSError:
                break
            dirs[controller] = d
        if len(dirs) == 2:
            return cls(dirs)
        for d in dirs.values():
            with contextlib.suppress(OSError):
                d.rmdir()
        return None

    def join(self) -> None:
        """Move the calling process into both cgroups (run in the child between fork and exec)."""
        for d in self.dirs.values():
            (d / "cgroup.procs").write_text(str(os.getpid()))

    def cpu_s(self) -> float:
        return int((self.dirs["cpuacct"] / "cpuacct.usage").read_text()) / 1e9

    def peak_bytes(self) -> int:
        return int((self.dirs["memory"] / "memory.max_usage_in_bytes").read_text())

    def pids(self) -> list[int]:
        text = (self.dirs["cpuacct"] / "cgroup.procs").read_text()
        return [int(p) for p in text.split()]

    def remove(self) -> None:
        """Remove both cgroups; a process left behind (a leaked Chromium) is moved back to the parent."""
        for d in self.dirs.values():
            for pid in (d / "cgroup.procs").read_text().split():
                with contextlib.suppress(OSError):
                    (d.parent / "cgroup.procs").write_text(pid)
            with contextlib.suppress(OSError):
                d.rmdir()


def process_kind(cmdline: list[str]) -> str:
    """What a process of a run is, from its command line (Chromium rewrites its children's into one
    space-separated string)."""
    if len(cmdline) == 1:
        cmdline = cmdline[0].split()
    exe = Path(cmdline[0]).name if cmdline else "?"
    if "chrom" in exe:
        kind = next((a.split("=", 1)[1] for a in cmdline if a.startswith("--type=")), "browser")
        return f"chromium {kind}"
    if exe == "node" or exe.startswith("node"):
        return "playwright driver"
    if exe.startswith("python"):
        return "site servers" if "plandvc.sites.server" in cmdline else "python (plandvc)"
    return exe


class KindSampler:
    """CPU-seconds per process kind of a cgroup's processes, from their last /proc sample."""

    def __init__(self, groups: Cgroups) -> None:
        self.groups = groups
        self.last: dict[int, tuple[str, float]] = {}  # pid -> (kind, utime+stime seconds)
        self.tick = os.sysconf("SC_CLK_TCK")

    def sample(self) -> None:
        try:
            pids = self.groups.pids()
        except OSError:
            return
        for pid in pids:
            try:
                stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
                cpu = (int(stat[11]) + int(stat[12])) / self.tick
                # read every time (a wrapper script that execs Chromium keeps its pid), but an exiting
                # process has an empty command line: it keeps the kind it had
                args = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
                argv = [a for a in args.split("\0") if a]
                kind = process_kind(argv) if argv or pid not in self.last else self.last[pid][0]
            except (OSError, IndexError, ValueError):
                continue
            self.last[pid] = (kind, cpu)

    def by_kind(self, total: float) -> dict[str, float]:
        out: dict[str, float] = {}
        for kind, cpu in self.last.values():
            out[kind] = out.get(kind, 0.0) + cpu
        out["unattributed"] = total - sum(out.values())
        return {k: round(v, 2) for k, v in sorted(out.items(), key=lambda kv: -kv[1])}


def machine_busy_s() -> float:
    """CPU-seconds the whole machine has been busy since boot (all CPUs; idle and iowait excluded)."""
    fields = [int(x) for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
    busy = sum(fields[:8]) - idle  # user nice system idle iowait irq softirq steal (guest is in user)
    return busy / os.sysconf("SC_CLK_TCK")


def tree_rss(pid: int) -> int:
    """Summed resident memory (bytes) of `pid` and all its descendants, from /proc."""
    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            fields = (d / "stat").read_text().rsplit(")", 1)[1].split()
            children.setdefault(int(fields[1]), []).append(int(d.name))
            rss[int(d.name)] = int(fields[21]) * os.sysconf("SC_PAGE_SIZE")
        except (OSError, IndexError, ValueError):
            continue
    total, stack = 0, [pid]
    while stack:
        p = stack.pop()
        total += rss.get(p, 0)
        stack += children.get(p, [])
    return total


def measure(
    cmd: list[str], cwd: Path, env: dict[str, str] | None = None, force_proc_stat: bool = False
) -> Measure:
    """Run `cmd` to its end and measure it by cgroup when possible, else by /proc/stat deltas."""
    groups = None if force_proc_stat else Cgroups.make(f"plandvc-bench-{os.getpid()}-{time.monotonic_ns()}")
    busy0 = machine_busy_s()
    t0 = time.monotonic()
    p = subprocess.Popen(
        cmd,
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=groups.join if groups is not None else None,
    )
    peak = 0
    stop = threading.Event()

    kinds = KindSampler(groups) if groups is not None else None

    def sample() -> None:  # by process kind (cgroup), or the fallback's memory figure (the process tree)
        nonlocal peak
        while not stop.is_set():
            if kinds is not None:
                kinds.sample()
            else:
                peak = max(peak, tree_rss(p.pid))
            stop.wait(0.1 if kinds is not None else 0.25)

    th = threading.Thread(target=sample, daemon=True)
    th.start()
    try:
        stdout, stderr = p.communicate()
    finally:
        stop.set()
        th.join()
    wall = time.monotonic() - t0
    by_kind: dict[str, float] = {}
    if groups is not None and kinds is not None:
        cpu, peak, left = groups.cpu_s(), groups.peak_bytes(), len(groups.pids())
        by_kind = kinds.by_kind(cpu)
        groups.remove()
        method = "cgroup"
    else:
        cpu, method, left = machine_busy_s() - busy0, "proc_stat", 0
    return Measure(
        method,
        round(wall, 2),
        round(cpu, 2),
        round(peak / 2**20),
        p.returncode,
        left,
        stdout,
        stderr,
        by_kind,
    )
