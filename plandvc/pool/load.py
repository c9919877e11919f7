"""The pool loader: one kept part (task, trajectory, elements) by id, or every kept part of a pool.

A missing or malformed file is an `InputError` naming it; the pool-wide loader skips such a part and
counts it (with the reason), so one bad trajectory never stops a run.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from plandvc.browser.actions import NAMES as ACTIONS
from plandvc.browser.actions import targets_element
from plandvc.io import InputError, read_json, read_jsonl
from plandvc.macros import MACROS
from plandvc.records import KeptLine, Part, Task


def part_dir(pool: str | Path, run: str, task_id: str) -> Path:
    return Path(pool) / "runs" / run / "accepted" / task_id


def _need(obj: Any, path: Path, key: str, kind: type | tuple[type, ...]) -> Any:
    if not isinstance(obj, dict) or key not in obj:
        raise InputError(f"{path}: {key}: missing")
    if not isinstance(obj[key], kind):
        raise InputError(
            f"{path}: {key}: expected {getattr(kind, '__name__', kind)}, got {type(obj[key]).__name__}"
        )
    return obj[key]


def check_task(task: Any, path: Path) -> Task:
    """A task.json's required keys (docs/ARCHITECTURE.md, "Pool")."""
    for k, kind in (
        ("task_id", str),
        ("site", str),
        ("macro", str),
        ("instruction", str),
        ("start", dict),
        ("control", dict),
        ("check", dict),
    ):
        _need(task, path, k, kind)
    if task["macro"] not in MACROS:
        raise InputError(f"{path}: macro: unknown macro {task['macro']!r}")
    _need(task["start"], path, "url", str)
    if task["start"].get("kind") not in ("fresh", "mid_chain"):
        raise InputError(f"{path}: start.kind: {task['start'].get('kind')!r} is not fresh or mid_chain")
    _need(task["check"], path, "kind", str)
    return task


def check_trajectory(traj: Any, elements: Any, path: Path, epath: Path) -> None:
    """A trajectory's steps name known actions and elements that elements.json holds."""
    if not isinstance(elements, list) or not all(isinstance(e, dict) and "tag" in e for e in elements):
        raise InputError(f"{epath}: expected a list of element descriptors")
    steps = _need(traj, path, "steps", list)
    _need(traj, path, "done", str)
    for k in ("site", "macro"):
        _need(traj, path, k, str)
    for n, st in enumerate(steps):
        if not isinstance(st, dict) or st.get("action") not in ACTIONS:
            raise InputError(
                f"{path}: steps[{n}].action: unknown action {st.get('action') if isinstance(st, dict) else st!r}"
            )
        el = st.get("element")
        if targets_element(st["action"]) and not (isinstance(el, int) and 0 <= el < len(elements)):
            raise InputError(f"{path}: steps[{n}].element: {el!r} is not an index of {epath.name}")


def load_task(pool: str | Path, run: str, task_id: str) -> Task:
    """The task.json of a kept part."""
    p = part_dir(pool, run, task_id) / "task.json"
    return check_task(read_json(p), p)


def load_part(pool: str | Path, run: str, task_id: str) -> Part:
    """`{id, run, dir, task, traj, elements}` of a kept part; `dir` is relative to the pool."""
    d = part_dir(pool, run, task_id)
    task = load_task(pool, run, task_id)
    tp, ep = d / "trajectory.json", d / "elements.json"
    traj, elements = read_json(tp), read_json(ep)
    check_trajectory(traj, elements, tp, ep)
    if task["task_id"] != task_id:
        raise InputError(
            f"{d / 'task.json'}: task_id: {task['task_id']!r} differs from its folder {task_id!r}"
        )
    return {
        "id": task_id,
        "run": run,
        "dir": str(d.relative_to(Path(pool))),
        "task": task,
        "traj": traj,
        "elements": elements,
    }


def read_kept(pool: str | Path) -> list[KeptLine]:
    """The kept index `kept.jsonl` (`{id, run, site, macro}` per line); a bad index is an InputError."""
    p = Path(pool) / "kept.jsonl"
    rows = read_jsonl(p)
    for n, r in enumerate(rows, 1):
        if not (isinstance(r, dict) and isinstance(r.get("id"), str) and isinstance(r.get("run"), str)):
            raise InputError(f"{p}:{n}: a kept line needs string 'id' and 'run'")
    return rows


@dataclass
class Skipped:
    """The parts a pool-wide load left out, each with the one-line reason."""

    reasons: dict[str, str] = field(default_factory=dict)

    @property
    def count(self) -> int:
        return len(self.reasons)


def iter_kept(pool: str | Path, skipped: Skipped | None = None) -> Iterator[Part]:
    """Every kept part of the pool, in index order; a part whose files are missing or malformed is skipped
    and recorded in `skipped` (id -> reason naming the file)."""
    for row in read_kept(pool):
        try:
            yield load_part(pool, row["run"], row["id"])
        except InputError as e:
            if skipped is not None:
                skipped.reasons[row["id"]] = str(e)


def read_ids(path: str | Path) -> list[str]:
    """Trajectory ids, whitespace-separated (one a line in `pool_ids.txt`), in file order: the one reader of an
    id list."""
    p = Path(path)
    try:
        return p.read_text(encoding="utf-8").split()
    except FileNotFoundError:
        raise InputError(f"{p}: file not found") from None
    except (OSError, UnicodeDecodeError) as e:
        raise InputError(f"{p}: cannot read ({e})") from None


def read_pool_ids(pool: str | Path) -> list[str]:
    """The pool's `pool_ids.txt`."""
    return read_ids(Path(pool) / "pool_ids.txt")
