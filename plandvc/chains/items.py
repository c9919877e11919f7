"""pool-items: one record per usable kept trajectory of a training site (the seed's `pool_items` + `_record`).

A pool (docs/ARCHITECTURE.md §3) has `kept.jsonl`, `pool_ids.txt` and `runs/<run>/accepted/<id>/{task.json,
trajectory.json, elements.json}`. The kept trajectories chosen are those in the pool ids, plus (qa) every kept
trajectory of the two question macros: the executor pool leaves those out, but here they only end a chain.
Test sites never appear. Trajectories the chain rules cannot use (mid-chain starts, a history macro, an unknown
macro) are dropped and counted by reason; files that cannot be read are named and counted, never a crash.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from plandvc.chains.rules import FAMILY_OF, FLAGGED_ROLES, MACROS, QA_MACROS
from plandvc.io import InputError, read_json, read_jsonl

Record = dict[str, Any]


class Dropped(Exception):
    """A readable trajectory the chain rules do not use; the message is the reason (a short key)."""


def url_path(url: str) -> str:
    """The path of a URL or path?query, without a trailing slash."""
    return urlsplit(url or "").path.rstrip("/") or "/"


def read_site_split(sites: str | Path) -> tuple[set[str], set[str]]:
    """(train, test) site names from `<sites>/site_split.json`."""
    path = Path(sites) / "site_split.json"
    split = read_json(path)
    if not isinstance(split, dict):
        raise InputError(f"{path}: expected an object with 'train' and 'test'")
    out = []
    for key in ("train", "test"):
        names = split.get(key)
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise InputError(f"{path}: key {key!r} must be a list of site names")
        out.append(set(names))
    return out[0], out[1]


def read_ids(path: str | Path) -> set[str]:
    """Trajectory ids, whitespace-separated (one a line in `pool_ids.txt`)."""
    p = Path(path)
    try:
        return set(p.read_text(encoding="utf-8").split())
    except FileNotFoundError:
        raise InputError(f"{p}: file not found") from None
    except (OSError, UnicodeDecodeError) as e:
        raise InputError(f"{p}: cannot read ({e})") from None


def _get(obj: Any, dotted: str, file: str, kind: type | tuple[type, ...] | None = None) -> Any:
    """obj[a][b]... for 'a.b', or an InputError naming the file and key."""
    cur = obj
    for key in dotted.split("."):
        if not isinstance(cur, dict) or key not in cur:
            raise InputError(f"{file}: missing key {dotted!r}")
        cur = cur[key]
    if kind is not None and not isinstance(cur, kind):
        raise InputError(f"{file}: key {dotted!r} has the wrong type ({type(cur).__name__})")
    return cur


def make_record(
    tid: str, run: str, rel: str, task: dict[str, Any], traj: dict[str, Any], train: set[str], test: set[str]
) -> Record:
    """The record of one trajectory (the seed's `_record`); raises Dropped (a rule) or InputError (bad content)."""
    tf, jf = f"{rel}/task.json", f"{rel}/trajectory.json"
    site = _get(traj, "site", jf, str)
    macro = _get(traj, "macro", jf, str)
    start_kind = _get(task, "start.kind", tf, str)
    start = url_path(_get(task, "start.url", tf, str))
    keep = bool(task["start"].get("keep"))
    ctrl = _get(task, "control", tf, dict)
    scope = _get(task, "scope", tf, list)
    check_kind = _get(task, "check.kind", tf, str)
    instruction = _get(task, "instruction", tf, str)
    if not all(isinstance(s, str) for s in scope):
        raise InputError(f"{tf}: key 'scope' must be a list of strings")
    if task.get("task_id", tid) != tid:
        raise InputError(f"{tf}: task_id {task.get('task_id')!r} is not the kept id {tid!r}")
    if macro not in MACROS:
        raise Dropped("unknown_macro")
    if site in test:
        raise Dropped("test_site")
    if site not in train:
        raise Dropped("not_in_site_split")
    if start_kind == "mid_chain":
        raise Dropped("mid_chain")
    if traj.get("history_macro"):
        raise Dropped("history_macro")
    return {
        "id": tid,
        "run": run,
        "dir": rel,
        "site": site,
        "macro": macro,
        "family": FAMILY_OF[macro],
        "start": start,
        "control": ctrl.get("control_id"),
        "scope": sorted(set(scope)),
        "answers": traj.get("answer") not in (None, "") or check_kind == "answer",
        "fresh": traj.get("start_kind") == "fresh" and not keep,
        "stays": url_path(traj.get("end") or "") == start,
        "home_start": (
            start_kind == "fresh"
            and start == f"/sites/{site}"
            and not keep
            and ctrl.get("role") not in FLAGGED_ROLES
            and not (ctrl.get("prep") or {})
        ),
        "instruction": instruction,
    }


def pool_items(
    pool: str | Path,
    sites: str | Path,
    ids: str | Path | None = None,
    qa: bool = True,
    held_out: bool = False,
) -> tuple[list[Record], dict[str, Any]]:
    """(records sorted by id, report) of a pool: what was chosen, kept, dropped by reason, and unreadable.

    `held_out` swaps the split's roles: the records of the test sites, for the evaluation's held-out chains
    (`plandvc.eval.specs`); a training site's trajectory is then dropped as `train_site`."""
    pool = Path(pool)
    train, test = read_site_split(sites)
    if held_out:
        train, test = test, train
    chosen_ids = read_ids(ids if ids is not None else pool / "pool_ids.txt")
    kept = read_jsonl(pool / "kept.jsonl")
    records: list[Record] = []
    dropped: Counter[str] = Counter()
    unreadable: list[dict[str, str]] = []
    chosen = 0
    for n, row in enumerate(kept, 1):
        if (
            not isinstance(row, dict)
            or not isinstance(row.get("id"), str)
            or not isinstance(row.get("run"), str)
        ):
            unreadable.append({"file": f"kept.jsonl:{n}", "error": "needs string keys 'id' and 'run'"})
            continue
        tid, run = row["id"], row["run"]
        if not (tid in chosen_ids or (qa and row.get("macro") in QA_MACROS)):
            continue
        chosen += 1
        rel = f"runs/{run}/accepted/{tid}"
        try:
            task = read_json(pool / rel / "task.json")
            traj = read_json(pool / rel / "trajectory.json")
            elements = read_json(pool / rel / "elements.json")
            if not isinstance(elements, list):
                raise InputError(f"{rel}/elements.json: expected a list of element descriptors")
            records.append(make_record(tid, run, rel, task, traj, train, test))
        except Dropped as d:
            dropped["train_site" if held_out and str(d) == "test_site" else str(d)] += 1
        except InputError as e:
            unreadable.append({"file": rel, "error": _relative(str(e), pool)})
    records.sort(key=lambda r: r["id"])
    report = {
        "kept": len(kept),
        "chosen": chosen,
        "records": len(records),
        "by_site": dict(sorted(Counter(r["site"] for r in records).items())),
        "by_macro": dict(sorted(Counter(r["macro"] for r in records).items())),
        "dropped": dict(sorted(dropped.items())),
        "unreadable": unreadable,
    }
    return records, report


def _relative(message: str, pool: Path) -> str:
    """An error message with the pool's own path taken out, so reports hold no absolute paths."""
    return message.replace(f"{pool}/", "")
