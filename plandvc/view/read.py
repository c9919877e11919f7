"""What the viewer reads: a dataset version (`manifest.json` and its chain folders) and, when given, the raw
run it came from (`results.jsonl`, `<key>/` of chains filter-rows dropped, `_failed/<key>/` of chains whose
run failed).

Every chain of the raw run gets one `ChainSource` with a status: `kept` (in the dataset version), `dropped`
(run ok, dropped by filter-rows with a reason) or `failed` (the run failed: its error, and the part whose gate
failed when the error says so). A raw run that does not belong to the dataset version (a kept chain missing
from it, an ok chain neither kept nor dropped) is bad input, not a quietly wrong viewer.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from plandvc.io import InputError, read_json, read_jsonl
from plandvc.rows.dataset import MANIFEST, error_kind, read_results

KEPT, DROPPED, FAILED = "kept", "dropped", "failed"
STATUSES = (KEPT, DROPPED, FAILED)


@dataclass(frozen=True)
class SplitInfo:
    """How a dataset version splits its chains, and its leak check when it has one."""

    rule: str | None
    val_share: float | None
    fields: dict[str, Any]  # the split record's other keys, shown as they are
    leak: Any  # the leak check (parts shared by splits, duplicate rows...) or None


@dataclass(frozen=True)
class Version:
    """A dataset version folder and its manifest."""

    dir: Path
    name: str
    manifest: dict[str, Any]
    split: SplitInfo


@dataclass
class ChainSource:
    """One chain of the run as the viewer shows it, and the folder its files are in (None: no files)."""

    key: str
    site: str
    parts: list[str]
    via: list[str | None]
    status: str
    dir: Path | None
    split: str | None = None
    reason: str | None = None  # dropped: "kind: detail"; failed: the run's error
    reason_kind: str | None = None
    failed_part: int | None = None  # index into parts of the part whose gate failed, when known
    episode: dict[str, Any] | None = None
    rows: list[dict[str, Any]] | None = None
    problem: str | None = None  # why episode/rows could not be read (dropped or failed chains only)


def read_split(manifest: dict[str, Any]) -> SplitInfo:
    """The one place that knows where a version keeps its split rule and leak check (keep it that way)."""
    split: dict[str, Any] = manifest["split"] if isinstance(manifest.get("split"), dict) else {}
    leak = None
    for where in (manifest, split, manifest.get("counts") or {}):
        for name in ("leak_check", "leaks", "leak"):
            if isinstance(where, dict) and where.get(name) is not None:
                leak = where[name]
                break
        if leak is not None:
            break
    share = split.get("val_share")
    return SplitInfo(
        rule=str(split["rule"]) if split.get("rule") is not None else None,
        val_share=float(share) if isinstance(share, int | float) else None,
        fields={
            k: v for k, v in sorted(split.items()) if k not in ("rule", "val_share", "leak_check", "leak")
        },
        leak=leak,
    )


def chain_split(entry: dict[str, Any]) -> str | None:
    """A manifest chain entry's split name (None when the version does not split by chain)."""
    value = entry.get("split")
    return str(value) if value is not None else None


def read_version(dataset: Path) -> Version:
    """The manifest of a dataset version folder; a missing folder or a folder that is not one is an InputError."""
    if not dataset.exists():
        raise InputError(f"{dataset}: no such dataset folder")
    if not dataset.is_dir():
        raise InputError(f"{dataset}: not a folder (expected a dataset version made by filter-rows)")
    if not (dataset / MANIFEST).is_file():
        raise InputError(f"{dataset}: not a dataset version (no {MANIFEST}; filter-rows writes one)")
    manifest = read_json(dataset / MANIFEST)
    if not isinstance(manifest, dict):
        raise InputError(f"{dataset / MANIFEST}: not a dataset manifest (not a JSON object)")
    for key, kind in (("chains", list), ("counts", dict), ("dropped", list)):
        if not isinstance(manifest.get(key), kind):
            raise InputError(f"{dataset / MANIFEST}: not a dataset manifest (no {kind.__name__} {key!r})")
    for n, c in enumerate(manifest["chains"]):
        if not isinstance(c, dict) or not all(isinstance(c.get(k), str) for k in ("key", "site")):
            raise InputError(f"{dataset / MANIFEST}: chains[{n}] needs a string 'key' and 'site'")
        if not (dataset / c["key"]).is_dir():
            raise InputError(f"{dataset / c['key']}: missing (listed in {MANIFEST})")
    return Version(dataset, dataset.name, manifest, read_split(manifest))


def site_of_key(key: str) -> str:
    """The site named in a chain key (`plan-<site>-<hash>`, `chains.walk`), for chains without a result."""
    site = key.removeprefix("plan-").rpartition("-")[0]
    return site if key.startswith("plan-") and site else "?"


def failed_part(result: Mapping[str, Any]) -> int | None:
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
            src.rows = read_jsonl(src.dir / "rows.jsonl")
        if src.rows and not all(isinstance(r, dict) for r in src.rows):
            raise InputError(f"{src.dir / 'rows.jsonl'}: a row is not a JSON object")
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


def read_chains(version: Version, raw: Path | None) -> list[ChainSource]:
    """Every chain the viewer lists, sorted by key, its files read (see the module doc)."""
    m = version.manifest
    kept = {c["key"]: c for c in m["chains"]}
    dropped = {str(d.get("key")): d for d in m["dropped"] if isinstance(d, dict)}
    results = read_results(raw) if raw is not None else []
    by_key = {r["key"]: r for r in results}
    if raw is not None:
        where = raw / "results.jsonl"
        for key in sorted(set(kept) | set(dropped)):
            if key not in by_key:
                raise InputError(f"{where}: no chain {key!r}, which {version.dir / MANIFEST} lists")
        for res in results:
            if res["ok"] and res["key"] not in kept and res["key"] not in dropped:
                raise InputError(
                    f"{where}: chain {res['key']!r} is ok but neither kept nor dropped in {version.dir / MANIFEST}"
                    " (is this the raw run of that version?)"
                )
    out: list[ChainSource] = []
    for key in sorted(set(kept) | set(dropped) | set(by_key)):
        r: Mapping[str, Any] = by_key.get(key) or {}
        parts = [str(p) for p in r.get("parts") or kept.get(key, {}).get("parts") or []]
        via = list(r.get("via") or [None] * len(parts))
        site = str(r.get("site") or site_of_key(key))  # a chain that was not kept: its result's, or its key's
        if key in kept:
            c = kept[key]
            parts = [str(p) for p in c.get("parts") or parts]
            src = ChainSource(key, c["site"], parts, via, KEPT, dir=version.dir / key, split=chain_split(c))
        elif key in dropped:
            d = dropped[key]
            src = ChainSource(
                key,
                site,
                parts,
                via,
                DROPPED,
                reason=f"{d.get('kind')}: {d.get('detail')}",
                reason_kind=str(d.get("kind")),
                dir=raw / key if raw is not None and (raw / key).is_dir() else None,
            )
        else:
            fdir = raw / "_failed" / key if raw is not None else None
            src = ChainSource(
                key,
                site,
                parts,
                via,
                FAILED,
                reason=str(r.get("error") or "unknown error"),
                reason_kind=error_kind(r.get("error")),
                failed_part=failed_part(r),
                dir=fdir if fdir is not None and fdir.is_dir() else None,
            )
        _load(src, required=src.status == KEPT)
        out.append(src)
    return out
