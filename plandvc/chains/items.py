"""pool-items: one record per usable kept trajectory of a training site (the record fields and drop rules: docs/ARCHITECTURE.md, "Records and chains").

A pool (docs/ARCHITECTURE.md, "Pool") has `kept.jsonl`, `pool_ids.txt` and `runs/<run>/accepted/<id>/{task.json,
trajectory.json, elements.json}`. The kept trajectories chosen are those in the pool ids, plus (qa) every kept
trajectory of the two question macros: the executor pool leaves those out, but here they only end a chain.
Test sites never appear. Trajectories the chain rules cannot use (mid-chain starts, a history macro, an unknown
macro) are dropped and counted by reason; files that cannot be read or break the pool contract
(`plandvc.pool.store.Pool`, the same validation as `check-pool`) are named with every problem and counted, never a
crash.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypedDict

from plandvc.chains.ask import ask_of
from plandvc.chains.values import check_item
from plandvc.io import InputError
from plandvc.macros import FLAGGED_ROLES, REGISTRY
from plandvc.pool.store import Pool, read_ids
from plandvc.records import ItemRecord, Task, Trajectory
from plandvc.sites.model import Spec
from plandvc.sites.spec import load_spec, read_split
from plandvc.urls import url_path

Record = ItemRecord


class Dropped(Exception):
    """A readable trajectory the chain rules do not use; the message is the reason (a short key)."""


def read_site_split(sites: str | Path) -> tuple[set[str], set[str]]:
    """(train, test) site names from `<sites>/site_split.json`."""
    split = read_split(Path(sites) / "site_split.json")
    return set(split["train"]), set(split["test"])


# control implementations whose steps depend on the state they meet (a calendar's month, a header's direction)
STATEFUL_IMPLS = frozenset({"calendar", "headers"})


def site_specs(sites: str | Path) -> dict[str, Spec]:
    """Every site spec of the folder that loads, by site (the composer's facts: labels, nouns, entry names); a
    site.json that does not load adds none: site-level problems are check-pool's to name, and run-chains reports them per chain."""
    out: dict[str, Spec] = {}
    for path in sorted(Path(sites).glob("*/site.json")):
        try:
            spec = load_spec(path)
        except InputError:
            continue
        out[spec.site] = spec
    return out


def check_pages(items: Sequence[ItemRecord], specs: Mapping[str, Spec], where: str, sites: Path) -> None:
    """One InputError line for the first item (of the items file `where`, by line) whose list page (its facts'
    `ask.page`) is not a page of its site in `sites`: a page removed since pool-items ran would be walked on,
    and its chains run on a page that no longer exists."""
    for n, item in enumerate(items, 1):
        ask = item.get("ask")
        page = ask.get("page") if ask is not None else None
        spec = specs.get(item["site"])
        if page and (spec is None or spec.page(page) is None):
            raise InputError(
                f"{where}:{n}: item {item['id']!r}: page {page!r} is not a page of site {item['site']!r} "
                f"in {sites} (was it removed? run pool-items again)"
            )


def stateful_controls(sites: str | Path | Mapping[str, Spec]) -> set[tuple[str, str]]:
    """(site, control id) of every control drawn in a `STATEFUL_IMPLS` implementation (none when the folder holds
    only the site split, as a pool's records need no more); `sites` a folder or its `site_specs`."""
    specs = sites if isinstance(sites, Mapping) else site_specs(sites)
    return {(s.site, c.control_id) for s in specs.values() for _, c in s.controls if c.impl in STATEFUL_IMPLS}


def make_record(
    tid: str,
    run: str,
    rel: str,
    task: Task,
    traj: Trajectory,
    train: set[str],
    test: set[str],
    stateful: set[tuple[str, str]] | None = None,
    specs: Mapping[str, Spec] | None = None,
) -> Record:
    """The record of one trajectory (its files checked against the pool's schemas); raises Dropped (a rule)
    or InputError (bad content)."""
    site, macro = traj["site"], traj["macro"]
    start_kind = task["start"]["kind"]
    start = url_path(task["start"]["url"])
    keep = bool(task["start"].get("keep"))
    ctrl = task["control"]
    if task["task_id"] != tid:
        raise InputError(f"{rel}/task.json: task_id {task['task_id']!r} is not the kept id {tid!r}")
    if macro not in REGISTRY:
        raise Dropped("unknown_macro")
    if site in test:
        raise Dropped("test_site")
    if site not in train:
        raise Dropped("not_in_site_split")
    if start_kind == "mid_chain":
        raise Dropped("mid_chain")
    if traj.get("history_macro"):
        raise Dropped("history_macro")
    record: Record = {
        "id": tid,
        "run": run,
        "dir": rel,
        "site": site,
        "macro": macro,
        "family": REGISTRY[macro].family,
        "start": start,
        "control": ctrl.get("control_id"),
        "scope": sorted(set(task["scope"])),
        "answers": traj.get("answer") not in (None, "") or task["check"]["kind"] == "answer",
        "fresh": traj.get("start_kind") == "fresh" and not keep,
        "stays": url_path(traj.get("end") or "") == start,
        "home_start": (
            start_kind == "fresh"
            and start == f"/sites/{site}"
            and not keep
            and ctrl.get("role") not in FLAGGED_ROLES
            and not (ctrl.get("prep") or {})
        ),
        "instruction": task["instruction"],
    }
    if (site, ctrl.get("control_id")) in (stateful or set()):
        record["stateful"] = True
    spec = (specs or {}).get(site)
    if spec is not None:
        try:
            record["ask"] = ask_of(task, spec)
        except KeyError as e:  # a task its site's spec does not describe: no facts, so no composed request
            raise InputError(f"{rel}/task.json: {e.args[0]}") from None
    check_item(record)
    return record


def _question(name: str | None) -> bool:
    """Whether `name` is a registered question macro (`Macro.question`: pool-items adds all of its parts)."""
    m = REGISTRY.get(name) if name else None
    return m is not None and m.question


class Unreadable(TypedDict):
    """A kept part whose files cannot be read or break the pool contract, and why."""

    file: str
    error: str


class ItemsReport(TypedDict):
    """What pool-items found: kept, chosen, made into records (by site and macro), dropped by reason, unreadable."""

    kept: int
    chosen: int
    records: int
    by_site: dict[str, int]
    by_macro: dict[str, int]
    dropped: dict[str, int]
    unreadable: list[Unreadable]
    unknown_macros: list[str]


@dataclass
class _Tally:
    """What reading the chosen parts found besides records: drops by reason, unreadable files, unknown macros."""

    chosen: int = 0
    dropped: Counter[str] = field(default_factory=Counter)
    unreadable: list[Unreadable] = field(default_factory=list)
    unknown_macros: list[str] = field(default_factory=list)


def _read_part(
    store: Pool,
    pool: Path,
    tid: str,
    run: str,
    split: tuple[set[str], set[str]],
    held_out: bool,
    tally: _Tally,
    stateful: set[tuple[str, str]],
    specs: Mapping[str, Spec],
) -> Record | None:
    """The record of one chosen kept part, or None (counted in `tally` as dropped or unreadable)."""
    part = store.check(tid)
    rel = part.dir
    unknown = [
        f"{rel}/{name}: macro {v['macro']!r}"
        for name, v in (("task.json", part.task), ("trajectory.json", part.traj))
        if isinstance(v, dict) and isinstance(v.get("macro"), str) and v["macro"] not in REGISTRY
    ]
    if unknown:
        tally.dropped["unknown_macro"] += (
            1  # a rule, not bad content: a pool may hold macros chains never use
        )
        tally.unknown_macros += unknown
        return None
    good = part.part
    if good is None:
        tally.unreadable.append({"file": rel, "error": "; ".join(p.line() for p in part.problems)})
        return None
    try:
        return make_record(tid, run, rel, good["task"], good["traj"], *split, stateful, specs)
    except Dropped as d:
        tally.dropped["train_site" if held_out and str(d) == "test_site" else str(d)] += 1
    except InputError as e:
        tally.unreadable.append({"file": rel, "error": _relative(str(e), pool)})
    return None


def pool_items(
    pool: str | Path,
    sites: str | Path,
    ids: str | Path | None = None,
    qa: bool = True,
    held_out: bool = False,
) -> tuple[list[Record], ItemsReport]:
    """(records sorted by id, report) of a pool: what was chosen, kept, dropped by reason, and unreadable.

    `held_out` swaps the split's roles: the records of the test sites, for the evaluation's held-out chains
    (`plandvc.eval.specs`); a training site's trajectory is then dropped as `train_site`."""
    pool = Path(pool)
    train, test = read_site_split(sites)
    split = (test, train) if held_out else (train, test)
    specs = site_specs(sites)
    stateful = stateful_controls(specs)
    store = Pool.scan(pool)
    chosen_ids = set(read_ids(ids) if ids is not None else store.ids())
    if not store.index.is_file():
        raise InputError(f"{store.index}: file not found")
    kept, bad_lines = store.kept, store.problems
    by_line: dict[str, list[str]] = {}
    for p in bad_lines:  # the contract's problems of kept.jsonl, one entry per line
        by_line.setdefault(p.file, []).append(f"{p.key}: {p.reason}" if p.key else p.reason)
    tally = _Tally(unreadable=[{"file": f, "error": "; ".join(errs)} for f, errs in by_line.items()])
    records: list[Record] = []
    for row in kept:
        if not (row["id"] in chosen_ids or (qa and _question(row.get("macro")))):
            continue
        tally.chosen += 1
        record = _read_part(store, pool, row["id"], row["run"], split, held_out, tally, stateful, specs)
        if record is not None:
            records.append(record)
    records.sort(key=lambda r: r["id"])
    report: ItemsReport = {
        "kept": len(kept) + len(by_line),
        "chosen": tally.chosen,
        "records": len(records),
        "by_site": dict(sorted(Counter(r["site"] for r in records).items())),
        "by_macro": dict(sorted(Counter(r["macro"] for r in records).items())),
        "dropped": dict(sorted(tally.dropped.items())),
        "unreadable": tally.unreadable,
        "unknown_macros": tally.unknown_macros,
    }
    return records, report


def _relative(message: str, pool: Path) -> str:
    """An error message with the pool's own path taken out, so reports hold no absolute paths."""
    return message.replace(f"{pool}/", "")
