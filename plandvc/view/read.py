"""What the viewer reads: a dataset version (`manifest.json` and its chain folders) and, when given, the raw
run it came from (`results.jsonl`, `<key>/` of chains filter-rows dropped, `_failed/<key>/` of chains whose
run failed).

Every chain of the raw run gets one `ChainSource` with a status: `kept` (in the dataset version), `dropped`
(run ok, dropped by filter-rows with a reason) or `failed` (the run failed: its error, and the part whose gate
failed when the error says so). A raw run that does not belong to the dataset version (a kept chain missing
from it, an ok chain neither kept nor dropped) is bad input, not a quietly wrong viewer.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import cast

from plandvc.io import InputError, JSONObject, read_json, read_jsonl
from plandvc.records import ChainResult
from plandvc.rows.dataset import error_kind, read_results
from plandvc.rows.examples import RowRecord, row_problem
from plandvc.rows.manifest import ChainEntry, DroppedEntry
from plandvc.rows.version import DatasetVersion

KEPT, DROPPED, FAILED = "kept", "dropped", "failed"
STATUSES = (KEPT, DROPPED, FAILED)


@dataclass(frozen=True)
class ChainHead:
    """Which chain and what became of it: what its page and its index line both show."""

    key: str
    site: str
    status: str
    split: str | None = None
    reason: str | None = None  # dropped: "kind: detail"; failed: the run's error


@dataclass
class ChainSource:
    """One chain of the run as the viewer shows it, and the folder its files are in (None: no files)."""

    head: ChainHead
    parts: list[str]
    via: list[str | None]
    dir: Path | None
    reason_kind: str | None = None
    failed_part: int | None = None  # index into parts of the part whose gate failed, when known
    episode: JSONObject | None = None
    rows: list[RowRecord] | None = None  # checked by `row_problem` when read
    problem: str | None = None  # why episode/rows could not be read (dropped or failed chains only)


def site_of_key(key: str) -> str:
    """The site named in a chain key (`plan-<site>-<hash>`, `chains.walk`), for chains without a result."""
    site = key.removeprefix("plan-").rpartition("-")[0]
    return site if key.startswith("plan-") and site else "?"


def failed_part(result: ChainResult) -> int | None:
    """The index of the first part whose gate failed, from the result's per-part details (None if unknown).

    run-chains joins one detail per part with " | "; a passing gate's detail ends with "ok" (or
    "ok (exclusive)"). The details are cut at 300 characters, so only a full set of them is read.
    """
    detail = str(result.get("detail") or "")
    pieces = detail.split(" | ")
    if not detail or len(pieces) != len(result.get("parts") or []):
        return None
    for i, piece in enumerate(pieces):
        if not piece.removesuffix(" (exclusive)").endswith(" ok"):
            return i
    return None


def _load(src: ChainSource, required: bool) -> None:
    """Read a chain folder's episode.json and rows.jsonl into `src` (for a kept chain a failure is an error)."""
    if src.dir is None:
        return
    try:
        if (src.dir / "episode.json").is_file():
            src.episode = read_json(src.dir / "episode.json")
        if (src.dir / "rows.jsonl").is_file():
            rows = read_jsonl(src.dir / "rows.jsonl")
            for n, row in enumerate(rows, 1):
                if (problem := row_problem(row)) is not None:
                    raise InputError(f"{src.dir / 'rows.jsonl'}:{n}: not a planner row ({problem})")
            src.rows = cast(list[RowRecord], rows)
        if src.episode is not None and not isinstance(src.episode, dict):
            raise InputError(f"{src.dir / 'episode.json'}: not a JSON object")
    except InputError as e:
        if required:
            raise
        src.episode, src.rows = None, None
        src.problem = str(e).replace(str(src.dir) + "/", "")
    if required and (src.episode is None or src.rows is None):
        raise InputError(f"{src.dir}: a kept chain needs episode.json and rows.jsonl")
    via = src.episode.get("via") if src.episode is not None else None
    if isinstance(via, list) and len(via) == len(src.parts):  # the manifest does not list it
        src.via = [str(v) if v is not None else None for v in via]


def _check_raw(version: DatasetVersion, results: list[ChainResult], raw: Path) -> None:
    """The raw run must be the version's: every kept and dropped chain in it, every ok chain kept or dropped."""
    where, listed = raw / "results.jsonl", version.manifest_path
    kept = {c.key for c in version.manifest.chains}
    dropped = {d.key for d in version.manifest.dropped}
    keys = {r["key"] for r in results}
    for key in sorted(kept | dropped):
        if key not in keys:
            raise InputError(f"{where}: no chain {key!r}, which {listed} lists")
    for res in results:
        if res["ok"] and res["key"] not in kept and res["key"] not in dropped:
            raise InputError(
                f"{where}: chain {res['key']!r} is ok but neither kept nor dropped in {listed}"
                " (is this the raw run of that version?)"
            )


def _kept(version: DatasetVersion, c: ChainEntry, parts: list[str], via: list[str | None]) -> ChainSource:
    head = ChainHead(c.key, c.site, KEPT, split=c.split)
    return ChainSource(head, list(c.parts) or parts, via, dir=version.root / c.key)


def _dropped(
    d: DroppedEntry, site: str, parts: list[str], via: list[str | None], raw: Path | None
) -> ChainSource:
    folder = raw / d.key if raw is not None and (raw / d.key).is_dir() else None
    head = ChainHead(d.key, site, DROPPED, reason=f"{d.kind}: {d.detail}")
    return ChainSource(head, parts, via, dir=folder, reason_kind=d.kind)


def _failed(
    key: str, r: ChainResult | None, site: str, parts: list[str], via: list[str | None], raw: Path | None
) -> ChainSource:
    folder = raw / "_failed" / key if raw is not None else None
    return ChainSource(
        ChainHead(key, site, FAILED, reason=str((r and r["error"]) or "unknown error")),
        parts,
        via,
        dir=folder if folder is not None and folder.is_dir() else None,
        reason_kind=error_kind(r and r["error"]),
        failed_part=failed_part(r) if r is not None else None,
    )


def read_chains(version: DatasetVersion, raw: Path | None) -> list[ChainSource]:
    """Every chain the viewer lists, sorted by key, its files read (see the module doc)."""
    kept = {c.key: c for c in version.manifest.chains}
    dropped = {d.key: d for d in version.manifest.dropped}
    results = read_results(raw) if raw is not None else []
    if raw is not None:
        _check_raw(version, results, raw)
    by_key = {r["key"]: r for r in results}
    out: list[ChainSource] = []
    for key in sorted(set(kept) | set(dropped) | set(by_key)):
        r = by_key.get(key)
        parts = list(r["parts"] if r and r["parts"] else kept[key].parts if key in kept else ())
        via: list[str | None] = list(r["via"] if r and r["via"] else [None] * len(parts))
        site = (
            r["site"] if r and r["site"] else site_of_key(key)
        )  # a chain not kept: its result's, or its key's  # a chain that was not kept: its result's, or its key's
        if key in kept:
            src = _kept(version, kept[key], parts, via)
        elif key in dropped:
            src = _dropped(dropped[key], site, parts, via, raw)
        else:
            src = _failed(key, r, site, parts, via, raw)
        _load(src, required=src.head.status == KEPT)
        out.append(src)
    return out
