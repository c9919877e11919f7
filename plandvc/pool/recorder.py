"""make-pool: record every task's scripted executor in real Chromium, gate it, and file it.

Per task: a fresh Session, the task's control prep and start page, the scripted executor, then the task's
gate on the session's state (backend entries and changes, clipboard, events, pages seen, the answer). A
task whose gate passes goes to `runs/<run>/accepted/<task_id>/{task,trajectory,elements}.json`, any other to
`runs/<run>/rejected/<task_id>/{task.json, reason.txt}`. Then the kept index (`kept.jsonl`) and the pool ids
(`pool_ids.txt`: every kept trajectory but the two question macros). The run is built aside and swapped in
whole, and every file is a function of (sites, seed, code): the same bytes whatever the worker count. Each
outcome is filed whole (aside, then renamed) in `runs/.<run>.tmp/`, which a kill leaves behind with the key of
its inputs: a rerun with the same key records only the tasks not filed yet.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import shutil
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, cast

from plandvc import io
from plandvc.checks import gate
from plandvc.macros import QA_MACROS
from plandvc.macros.make import PER_MACRO
from plandvc.pool.executor import execute
from plandvc.pool.prep import prepare
from plandvc.pool.tasks import generate
from plandvc.ports import free_ports
from plandvc.records import ElementDescriptor, KeptLine, PoolTask, Task, Trajectory
from plandvc.sites.spec import Spec, load_sites, site_name

if TYPE_CHECKING:
    from plandvc.browser import Session


@dataclass
class Outcome:
    """One task's recording: accepted or rejected (with the reason), and how long it took."""

    task: PoolTask
    accepted: bool
    reason: str = ""
    trajectory: Trajectory | None = None
    elements: list[ElementDescriptor] | None = None
    seconds: float = 0.0


def task_file(task: PoolTask) -> Task:
    """task.json: the task without what belongs to its trajectory (`history_macro`)."""
    return cast(Task, {k: v for k, v in task.items() if k != "history_macro"})


async def record(session: Session, spec: Spec, task: PoolTask) -> Outcome:
    """Run one task on a fresh `session` and gate it; a failure is an Outcome, never an exception."""
    t0 = time.monotonic()
    try:
        await prepare(session, task)
        rec = await execute(session, spec, task)
        backend = await session.backend_state(task["site"])
        state = {
            "url": session.url,
            "seen": list(session.seen),
            "entries": backend["entries"],
            "changes": backend["changes"],
            "clipboard": backend["clipboard"],
            "events": list(session.events),
            "answer": rec.answer,
        }
        ok, detail = gate(task["check"], task.get("verifier") or {}, state)
    except asyncio.CancelledError:
        raise
    except Exception as e:
        return Outcome(task, False, f"{type(e).__name__}: {e}".splitlines()[0], seconds=time.monotonic() - t0)
    traj: Trajectory = {
        "task_id": task["task_id"],
        "site": task["site"],
        "macro": task["macro"],
        "start_kind": task["start"]["kind"],
        "history_macro": task["history_macro"],
        "steps": rec.steps,
        "done": rec.done,
        "answer": rec.answer,
        "end": rec.end,
    }
    return Outcome(task, ok, "" if ok else detail, traj, rec.elements, time.monotonic() - t0)


def elements_bytes(elements: list[ElementDescriptor]) -> bytes:
    """elements.json: one descriptor a line (compact, and a diff shows which element changed)."""
    lines = [io.dumps(e, sort_keys=True) for e in elements]
    return b"[\n" + b",\n".join(lines) + b"\n]\n" if lines else b"[]\n"


def write_outcome(run_dir: Path, out: Outcome) -> None:
    """File one outcome under accepted/ or rejected/: written aside and renamed, so it is whole or absent (a
    resumed recording reuses whole ones)."""
    tid = out.task["task_id"]
    verdict = "accepted" if out.accepted else "rejected"
    part = run_dir / verdict / f".{tid}.part"
    shutil.rmtree(part, ignore_errors=True)
    io.write_json(part / "task.json", task_file(out.task))
    if out.accepted:
        io.write_json(part / "trajectory.json", out.trajectory)
        io.write_bytes(part / "elements.json", elements_bytes(out.elements or []))
    else:
        io.write_bytes(part / "reason.txt", (out.reason or "rejected").encode() + b"\n")
    os.replace(part, run_dir / verdict / tid)


# in the run being recorded (`runs/.<run>.tmp/`): the key of what its outcomes were recorded from
INPUTS_KEY = ".inputs"


def inputs_key(sites: Path, tasks: list[PoolTask]) -> str:
    """What a recording's outcomes are a function of: the recording code, the sites folder and the tasks (which
    carry the seed and the per-macro count)."""
    from plandvc.pool.code import pool_code_hash

    blob = io.dumps({"code": pool_code_hash(), "sites": io.tree_hash(sites), "tasks": tasks}, sort_keys=True)
    return hashlib.sha256(blob).hexdigest()


def recorded(run_dir: Path, key: str, tasks: list[PoolTask]) -> dict[str, Outcome]:
    """The outcomes a killed recording of the same inputs left in `run_dir`, by task id (whole ones only);
    `run_dir` is emptied first when it was recorded from other inputs."""
    try:
        same = (run_dir / INPUTS_KEY).read_text() == key
    except OSError:
        same = False
    if not same:
        shutil.rmtree(run_dir, ignore_errors=True)
        run_dir.mkdir(parents=True)
        io.write_bytes(run_dir / INPUTS_KEY, key.encode())
        return {}
    by_id = {t["task_id"]: t for t in tasks}
    found: dict[str, Outcome] = {}
    for verdict in ("accepted", "rejected"):
        folder = run_dir / verdict
        for d in sorted(folder.iterdir()) if folder.is_dir() else []:
            task = by_id.get(d.name)
            if task is None:  # a leftover `.<id>.part` or a task no longer generated
                shutil.rmtree(d)
            elif verdict == "accepted":
                found[d.name] = Outcome(task, True)
            else:
                found[d.name] = Outcome(task, False, (d / "reason.txt").read_text().rstrip("\n"))
    return found


def accepted_dirs(acc: Path) -> list[Path]:
    """The trajectory folders of an `accepted/` folder, sorted: a dot name (a `.<id>.part` being written, or
    any temporary) is never a trajectory, so it is never indexed nor published as one."""
    return sorted(d for d in acc.iterdir() if d.is_dir() and not d.name.startswith("."))


def write_index(pool: Path) -> tuple[int, int]:
    """kept.jsonl and pool_ids.txt from every run's accepted tasks (a later run, by name, supersedes)."""
    kept: dict[str, KeptLine] = {}
    for run_dir in sorted(p for p in (pool / "runs").iterdir() if p.is_dir() and not p.name.startswith(".")):
        acc = run_dir / "accepted"
        if not acc.is_dir():
            continue
        for d in accepted_dirs(acc):
            task = io.read_json(d / "task.json")
            kept[d.name] = {"id": d.name, "run": run_dir.name, "site": task["site"], "macro": task["macro"]}
    rows = [kept[k] for k in sorted(kept)]
    io.write_jsonl(pool / "kept.jsonl", rows)
    ids = [r["id"] for r in rows if r["macro"] not in QA_MACROS]
    io.write_bytes(pool / "pool_ids.txt", "".join(f"{i}\n" for i in ids).encode())
    return len(rows), len(ids)


@dataclass
class Summary:
    accepted: Counter[tuple[str, str]] = field(default_factory=Counter)
    rejected: Counter[tuple[str, str]] = field(default_factory=Counter)
    seconds: list[float] = field(default_factory=list)
    reasons: dict[str, str] = field(default_factory=dict)
    reused: int = 0

    def add(self, out: Outcome, reused: bool = False) -> None:
        key = (out.task["site"], out.task["macro"])
        (self.accepted if out.accepted else self.rejected)[key] += 1
        if reused:
            self.reused += 1
        else:
            self.seconds.append(out.seconds)
        if not out.accepted:
            self.reasons[out.task["task_id"]] = out.reason

    def table(self) -> str:
        """Accepted counts by site × macro (rejected in brackets), then totals and time per trajectory."""
        sites = sorted({s for s, _ in self.accepted | self.rejected})
        macros = sorted({m for _, m in self.accepted | self.rejected})
        lines = ["macro".ljust(22) + "".join(s[:10].rjust(11) for s in sites)]
        for m in macros:
            cells = []
            for s in sites:
                a, r = self.accepted[(s, m)], self.rejected[(s, m)]
                cells.append((f"{a}" + (f"[{r}]" if r else "")).rjust(11))
            lines.append(m.ljust(22) + "".join(cells))
        n = len(self.seconds)
        mean = sum(self.seconds) / n if n else 0.0
        lines.append(
            f"accepted {sum(self.accepted.values())}, rejected {sum(self.rejected.values())}"
            + (f" ({self.reused} reused from a killed run)" if self.reused else "")
            + f"; {mean:.2f}s per recorded trajectory (max {max(self.seconds, default=0):.2f}s)"
        )
        return "\n".join(lines)


def select_tasks(tasks: list[PoolTask], only_site: str | None, limit: int) -> list[PoolTask]:
    if only_site:
        tasks = [t for t in tasks if t["site"] == only_site]
    return tasks[:limit] if limit else tasks


async def record_all(
    tasks: list[PoolTask],
    specs: dict[str, Spec],
    bases: list[str],
    run_dir: Path,
    workers: int,
    log: Callable[[str], None],
    ensure_alive: Callable[[], None] | None = None,
    done: dict[str, Outcome] | None = None,
) -> Summary:
    """Record the tasks with `workers` browsers (one Chromium each), filing each outcome as it lands; the
    tasks in `done` (outcomes of a killed run of the same inputs) are counted, not recorded again."""
    from plandvc.browser import Browser

    done = done or {}
    queue: asyncio.Queue[PoolTask] = asyncio.Queue()
    summary = Summary()
    for t in tasks:
        if t["task_id"] in done:
            summary.add(done[t["task_id"]], reused=True)
        else:
            queue.put_nowait(t)
    total = len(tasks)
    if summary.reused:
        log(f"{summary.reused} of {total} tasks reused from a killed run of the same inputs")

    async def worker(w: int) -> None:
        async with Browser() as browser:
            base = bases[w % len(bases)]
            while not queue.empty():
                task = queue.get_nowait()
                if ensure_alive is not None:
                    ensure_alive()
                session = await browser.new_session(base)
                try:
                    out = await record(session, specs[task["site"]], task)
                finally:
                    try:
                        await session.close()
                    except Exception:
                        pass
                write_outcome(run_dir, out)
                summary.add(out)
                n = len(summary.seconds) + summary.reused
                verdict = "ok  " if out.accepted else "FAIL"
                log(f"[{n}/{total}] {verdict} {task['task_id']} {out.seconds:.2f}s {out.reason}"[:200])

    await asyncio.gather(*(worker(w) for w in range(max(1, min(workers, queue.qsize() or 1)))))
    return summary


POOL_ENTRIES = ("runs", "kept.jsonl", "pool_ids.txt")
COMMAND = "make-pool"


def is_pool(out: Path) -> bool:
    """Whether folder `out` is a previous make-pool output: only runs/, kept.jsonl and pool_ids.txt in it."""
    return all(p.name in POOL_ENTRIES for p in out.iterdir()) and not (out / "runs").is_file()


def make_pool(
    sites: str | Path,
    out: str | Path,
    run: str = "r1",
    seed: int = 0,
    workers: int = 2,
    ports: list[int] | None = None,
    limit: int = 0,
    only_site: str | None = None,
    log: Callable[[str], None] | None = None,
    per_macro: int | None = None,
) -> Summary:
    """Generate the tasks of every site, record them, and publish `out/runs/<run>/` and the pool index. OUT's
    lock (`io.exclusive`) is held from before any work to the end: a second make-pool on OUT is one line, and
    a resume never adopts the working folder of a live recording (a killed one's lock went with it)."""
    from plandvc.sites.servers import Servers

    log = log or (lambda s: print(s, file=sys.stderr, flush=True))
    sites, out = Path(sites), Path(out)
    specs = load_sites(sites)
    if only_site and only_site not in specs:
        raise io.InputError(f"--only-site: no site {only_site!r} in {sites}")
    if not run or "/" in run or run.startswith("."):
        raise io.InputError(f"--run: {run!r} is not a run name")
    with io.claimed(out, is_pool, COMMAND):  # the working folder below is this process's alone while it lives
        names = {s: site_name(sites, s) for s in specs}
        tasks = select_tasks(generate(specs, seed, names, per_macro or PER_MACRO), only_site, limit)
        log(f"{len(tasks)} tasks over {len({t['site'] for t in tasks})} sites")
        tmp = out / "runs" / f".{run}.tmp"  # kept when killed: a rerun of the same inputs resumes from it
        done = recorded(tmp, inputs_key(sites, tasks), tasks)
        with Servers(ports or free_ports(1), sites) as servers:
            ensure = getattr(servers, "ensure_alive", None)
            summary = asyncio.run(record_all(tasks, specs, servers.bases, tmp, workers, log, ensure, done))
        (tmp / INPUTS_KEY).unlink()
        io.publish_dir(tmp, out / "runs" / run)
        kept, pool_ids = write_index(out)
        log(summary.table())
        log(f"kept {kept} ({pool_ids} in pool_ids.txt) under {out}")
        return summary
