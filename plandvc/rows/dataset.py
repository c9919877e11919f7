"""filter-rows: from run-chains' raw output to the versioned planner-rows dataset and its metrics.

Every ok chain is checked (`plandvc.rows.validate`), failures and duplicates are dropped with a reason, and
the kept chains are written as a dataset version (`plandvc.rows.version.write_version`: the chains copied byte
for byte, a `manifest.json` with counts, the sha256 of every file, the index of chains, the train/val split)
into a temporary directory beside `out`, then published with `plandvc.io.publish_built`: a reader sees the
old dataset or the new one, never half of one. Everything is sorted and free of clocks and absolute paths, so
the same raw input gives the same bytes.
"""

from __future__ import annotations

import hashlib
import os
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import NotRequired, TypedDict

from plandvc.io import InputError, dumps, publish_built, read_jsonl, write_json
from plandvc.macros import FAMILIES, FAMILY_OF
from plandvc.records import ChainResult
from plandvc.rows.recovery import RecoveryRecord
from plandvc.rows.validate import DEFAULT_IMAGE_SIZE, KINDS, Chain, Reason, check_chain
from plandvc.rows.version import Dropped, Manifest, write_version

RESULTS = "results.jsonl"
METRIC_FILES = (
    "filter.json",
    "by_site.json",
    "by_macro.json",
    "by_parts.json",
    "by_family.json",
    "plot_by_site.json",
)


class GroupTally(TypedDict):
    """A group's chains (by site or by part count): in the raw output, ok there, kept, their rows."""

    chains_raw: int
    ok_raw: int
    kept: int
    rows: int
    kept_rate: NotRequired[float]


class MacroTally(TypedDict):
    """by_macro.json: a macro's family, its parts in kept chains and the kept chains that play it."""

    family: str | None
    parts: int
    chains: int


class FamilyTally(TypedDict):
    """by_family.json: a family's delegations in kept chains and the kept chains that delegate to it."""

    delegations: int
    chains: int


class FilterMetrics(TypedDict):
    """filter.json: the chains of the raw output, kept and dropped by reason, the rows and the split."""

    chains_raw: int
    ok_raw: int
    failed_raw: int
    kept: int
    kept_rate: float
    kept_of_ok: float
    rows: int
    train: int
    val: int
    excluded: int
    leak: object  # the leak check as the manifest keeps it
    dropped: dict[str, int]
    failures_raw: dict[str, int]
    recovery: NotRequired[RecoveryRecord]


class SitePlot(TypedDict):
    """A point of plot_by_site.json."""

    site: str
    chains_raw: int
    kept: int
    kept_rate: float


@dataclass
class Outcome:
    """What one filter-rows run did (the CLI prints it; tests read it)."""

    results: list[ChainResult]
    kept: list[Chain]
    dropped: list[Dropped]
    manifest: Manifest


def error_kind(error: str | None) -> str:
    """A failed chain's error, reduced to its kind: the text before the first colon ("check failed", "TimeoutError")."""
    text = str(error or "").strip()
    return text.split(":", 1)[0].strip()[:60] or "unknown"


def read_results(raw: Path) -> list[ChainResult]:
    """run-chains' results, sorted by key; a missing or malformed file or record is an InputError."""
    if not raw.is_dir():
        raise InputError(f"{raw}: not a directory (expected run-chains' raw output)")
    try:
        results = read_jsonl(raw / RESULTS)
    except PermissionError as e:
        raise InputError(f"{raw / RESULTS}: cannot read ({e.strerror})") from None
    seen: set[str] = set()
    for n, r in enumerate(results, 1):
        where = f"{raw / RESULTS}:{n}"
        if not isinstance(r, dict) or not isinstance(r.get("key"), str) or not isinstance(r.get("ok"), bool):
            raise InputError(f"{where}: a result needs a string 'key' and a boolean 'ok'")
        key = r["key"]
        if not key or "/" in key or "\\" in key or key.startswith((".", "_")):
            raise InputError(f"{where}: key {key!r} is not a chain directory name")
        if key in seen:
            raise InputError(f"{where}: key {key!r} appears twice")
        if not isinstance(r.get("parts"), list) or not isinstance(r.get("site"), str):
            raise InputError(f"{where}: result {key!r} needs a 'site' string and a 'parts' list")
        seen.add(key)
    return sorted(results, key=lambda r: r["key"])


def _fingerprint(chain: Chain) -> str:
    """The chain's content apart from its key: its rows without task_id and its images' bytes."""
    h = hashlib.sha256()
    for row in chain.rows:
        h.update(dumps({k: v for k, v in row.items() if k != "task_id"}, sort_keys=True) + b"\n")
    for name, sha in chain.images.items():
        h.update(f"{name}\0{sha}\n".encode())
    return h.hexdigest()


def _identity(parts: Sequence[object], chain: Chain) -> tuple[str, ...]:
    """What makes two chains the same chain: their recorded parts, and for a goal with live steps (issue 45's
    kinds) the goal too: two lookups of other entries share their one part (the trip to the list) but ask
    different things. v3's goals (count, top) have no steps, so their identity is the parts alone as before."""
    goal = chain.episode.get("goal")
    steps = goal.get("steps") if isinstance(goal, dict) else None
    return (*map(str, parts), dumps(goal, sort_keys=True).decode()) if steps else tuple(map(str, parts))


def _workers() -> int:
    """Threads for the checks (zlib releases the GIL while it inflates); never changes the output."""
    try:
        return max(1, int(os.environ.get("PLANDVC_WORKERS", "") or min(8, os.cpu_count() or 1)))
    except ValueError:
        raise InputError(f"PLANDVC_WORKERS={os.environ['PLANDVC_WORKERS']!r} is not a number") from None


def _check_result(raw: Path, r: ChainResult, image_size: tuple[int, int] | None) -> Chain | Reason:
    chain_dir = raw / r["key"]
    if not chain_dir.is_dir():
        return Reason("bad_episode", "no chain directory in raw")
    got = check_chain(chain_dir, r["key"], image_size)
    if isinstance(got, Chain) and (got.episode.get("site"), got.episode.get("parts")) != (
        r["site"],
        r["parts"],
    ):
        return Reason("bad_episode", "episode.json's site/parts are not the result's")
    return got


def select(
    raw: Path, results: list[ChainResult], image_size: tuple[int, int] | None
) -> tuple[list[Chain], list[Dropped]]:
    """Check every ok chain and drop duplicates (the first in key order stays): (kept, dropped)."""
    ok = [r for r in results if r["ok"]]
    with ThreadPoolExecutor(_workers()) as pool:
        checked = list(pool.map(lambda r: _check_result(raw, r, image_size), ok))
    kept: list[Chain] = []
    dropped: list[Dropped] = []
    by_parts: dict[tuple[str, ...], str] = {}
    by_content: dict[str, str] = {}
    for r, got in zip(ok, checked, strict=True):
        key = r["key"]
        if isinstance(got, Reason):
            dropped.append(Dropped(key, got.kind, got.detail))
            continue
        parts, content = _identity(r["parts"], got), _fingerprint(got)
        first = by_parts.get(parts) or by_content.get(content)
        if first is not None:
            how = "the same parts" if parts in by_parts else "the same rows and images"
            dropped.append(Dropped(key, "duplicate", f"{how} as {first}"))
            continue
        by_parts[parts], by_content[content] = key, key
        kept.append(got)
    return kept, dropped


def _rate(n: int, d: int) -> float:
    return round(n / d, 4) if d else 0.0


def _tally(
    results: list[ChainResult],
    kept_keys: set[str],
    rows_of: dict[str, int],
    group: Callable[[ChainResult], object],
) -> dict[str, GroupTally]:
    out: dict[str, GroupTally] = {}
    for r in results:
        g = out.setdefault(str(group(r)), {"chains_raw": 0, "ok_raw": 0, "kept": 0, "rows": 0})
        g["chains_raw"] += 1
        g["ok_raw"] += r["ok"]
        if r["key"] in kept_keys:
            g["kept"] += 1
            g["rows"] += rows_of[r["key"]]
    for g in out.values():
        g["kept_rate"] = _rate(g["kept"], g["chains_raw"])
    return dict(sorted(out.items()))


def metrics(
    results: list[ChainResult], kept: list[Chain], dropped: list[Dropped], manifest: Manifest
) -> dict[str, object]:
    """The metric files' contents, by file name (docs/ARCHITECTURE.md, "Rows": kept rate, by site / macro / parts / family)."""
    kept_keys = {c.key for c in kept}
    rows_of = {c.key: len(c.rows) for c in kept}
    n_ok = sum(r["ok"] for r in results)
    dropped_by = Counter(d.kind for d in dropped)
    filt: FilterMetrics = {
        "chains_raw": len(results),
        "ok_raw": n_ok,
        "failed_raw": len(results) - n_ok,
        "kept": len(kept),
        "kept_rate": _rate(len(kept), len(results)),
        "kept_of_ok": _rate(len(kept), n_ok),
        "rows": manifest.counts["rows"],
        "train": manifest.counts["train"],
        "val": manifest.counts["val"],
        "excluded": manifest.counts["excluded"],
        "leak": manifest.split.leak,
        "dropped": {k: dropped_by[k] for k in KINDS},
        "failures_raw": dict(
            sorted(Counter(error_kind(r.get("error")) for r in results if not r["ok"]).items())
        ),
    }
    if manifest.recovery is not None:
        filt["recovery"] = manifest.recovery
    by_macro: dict[str, MacroTally] = {}
    by_family: dict[str, FamilyTally] = {f: {"delegations": 0, "chains": 0} for f in FAMILIES}
    for c in kept:
        macros = c.episode.get("macros") or []
        for m in macros:
            g = by_macro.setdefault(str(m), {"family": FAMILY_OF.get(m), "parts": 0, "chains": 0})
            g["parts"] += 1
        for m in set(map(str, macros)):
            by_macro[m]["chains"] += 1
        delegated = [row["delegated"] for row in c.rows if row["op"] == "delegate"]
        for f in delegated:
            by_family.setdefault(str(f), {"delegations": 0, "chains": 0})["delegations"] += 1
        for f in set(map(str, delegated)):
            by_family[f]["chains"] += 1
    by_site = _tally(results, kept_keys, rows_of, lambda r: r["site"])
    return {
        "filter.json": filt,
        "by_site.json": by_site,
        "by_macro.json": dict(sorted(by_macro.items())),
        "by_parts.json": _tally(results, kept_keys, rows_of, lambda r: len(r["parts"])),
        "by_family.json": dict(sorted(by_family.items())),
        "plot_by_site.json": [
            {"site": s, "chains_raw": g["chains_raw"], "kept": g["kept"], "kept_rate": g["kept_rate"]}
            for s, g in by_site.items()
        ],
    }


def _check_paths(raw: Path, out: Path, metrics_dir: Path) -> None:
    r, o, m = raw.resolve(), out.resolve(), metrics_dir.resolve()
    if o == r or r in o.parents or o in r.parents:
        raise InputError(
            f"{out}: the dataset directory must not contain or be inside the raw directory {raw}"
        )
    if m == o or o in m.parents:
        raise InputError(f"{metrics_dir}: the metrics directory must not be inside the dataset {out}")


def filter_rows(
    raw: str | Path,
    out: str | Path,
    metrics_dir: str | Path,
    val_share: float = 0.1,
    image_size: tuple[int, int] | None = DEFAULT_IMAGE_SIZE,
    split_seed: int = 0,
) -> Outcome:
    """Check, dedupe and publish the dataset at `out` and its metrics in `metrics_dir` (see the module doc)."""
    raw, out, metrics_dir = Path(raw), Path(out), Path(metrics_dir)
    if not 0.0 <= val_share <= 1.0:
        raise InputError(f"val_share {val_share} is not between 0 and 1")
    _check_paths(raw, out, metrics_dir)
    results = read_results(raw)
    kept, dropped = select(raw, results, image_size)
    manifest = publish_built(
        out, lambda tmp: write_version(tmp, raw, kept, dropped, results, (val_share, split_seed), image_size)
    )
    for name, obj in metrics(results, kept, dropped, manifest).items():
        write_json(metrics_dir / name, obj)
    return Outcome(results, kept, dropped, manifest)
