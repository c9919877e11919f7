"""`manifest.json` of a dataset version, parsed once into typed records: `Manifest` (counts, the split, the
image size, the kept chains, the sha256 of every file, the dropped chains), `ChainEntry`, `DroppedEntry`,
`SplitInfo`, and for a version with recovery chains their counts (`RecoveryRecord`).

Anything that is not a manifest is a `VersionError` naming the file and the entry: a chain record that is
not an object, a key that is not a plain folder name, a file path that is not `<key>/<file>` (so `../` and
absolute paths never leave the version), a split that is not train, val or excluded.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypedDict, cast, get_args

from jsonschema import Draft202012Validator

from plandvc.io import InputError
from plandvc.records import FailureKind, GoalKind, TurnRole
from plandvc.rows.recovery import RecoveryRecord
from plandvc.rows.shape import check_shape
from plandvc.rows.split import SPLITS
from plandvc.rows.validate import KEY_CHARS

GOAL_KINDS: tuple[str, ...] = get_args(GoalKind)  # a goal chain's kinds, as its manifest entry names them

MANIFEST = "manifest.json"
FILE_CHARS = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9_.-]*")  # a file of a chain folder: no slash, no leading dot
SPLIT_NAMES = (*SPLITS, "excluded")

JSON = object  # a value parsed from JSON, not yet checked


class VersionError(InputError):
    """A dataset version that cannot be read as one: the message is one line naming the file and the entry."""


class ChainRecord(TypedDict, total=False):
    """A chain of the manifest's index, as written (`SCHEMA` checks it)."""

    key: str
    site: str
    parts: list[str] | None
    macros: list[str] | None
    turns: int
    split: str | None
    split_detail: str | None
    failure: FailureKind  # only a recovery chain's record has it
    request_by: str  # only a composed chain's record has these three: how its request was made,
    request: str  # the request itself,
    goal: str  # and a goal chain's kind (records.GoalKind: count, top, detail, lookup, compare, act, carry)


class DroppedRecord(TypedDict, total=False):
    key: str
    kind: str
    detail: str


class ManifestRecord(TypedDict, total=False):
    """manifest.json as written (`SCHEMA` checks it)."""

    counts: dict[str, int]
    split: dict[str, object]
    image_size: list[int] | None
    chains: list[ChainRecord]
    files: dict[str, str]
    dropped: list[DroppedRecord]
    recovery: RecoveryRecord


@dataclass(frozen=True)
class SplitInfo:
    """How a version splits its chains: the rule, the val share, its other settings, and the leak check."""

    rule: str | None
    val_share: float | None
    fields: dict[str, JSON]  # the split record's other keys (the seed), shown as they are
    leak: JSON  # the leak check (parts shared by splits, duplicate rows...) or None


@dataclass(frozen=True)
class ChainEntry:
    """A kept chain as the manifest indexes it."""

    key: str
    site: str
    parts: tuple[str, ...]
    macros: tuple[str, ...]
    split: str | None  # train, val or excluded (None: a version that does not split)
    split_detail: str
    failure: FailureKind | None = None  # a recovery chain's failure kind
    request_by: str | None = None  # a composed chain's: how its request was made (composed, or by a model)
    goal: str | None = None  # a goal chain's kind


@dataclass(frozen=True)
class DroppedEntry:
    """A chain filter-rows dropped, and why."""

    key: str
    kind: str
    detail: str


@dataclass(frozen=True)
class Manifest:
    """`manifest.json` parsed once."""

    counts: dict[str, int]
    split: SplitInfo
    image_size: tuple[int, ...]
    chains: tuple[ChainEntry, ...]
    files: dict[str, str]  # `<key>/<file>` -> sha256
    dropped: tuple[DroppedEntry, ...]
    recovery: RecoveryRecord | None = None  # only a version whose run had recovery chains


KEY = {
    "type": "string",
    "pattern": f"^{KEY_CHARS.pattern}$",
    "x-error": "key {value} is not a chain folder name (A-Z a-z 0-9 _ - only)",
    "x-parent": True,
}
NAMES = {"type": ["array", "null"], "items": {"type": ["string", "integer"]}}
CHAIN = {
    "type": "object",
    "required": ["key", "site"],
    "x-error": "not a chain record (an object with 'key' and 'site')",
    "properties": {
        "key": KEY,
        "site": {"type": "string"},
        "parts": NAMES,
        "macros": NAMES,
        "split": {
            "enum": [*SPLIT_NAMES, None],
            "x-error": "split {value} is not one of train, val, excluded",
        },
        "split_detail": {"type": ["string", "null"]},
        "failure": {
            "enum": list(get_args(FailureKind)),
            "x-error": f"{{value}} is not one of {', '.join(get_args(FailureKind))}",
        },
        "request_by": {"type": "string"},
        "request": {"type": "string"},
        "goal": {
            "enum": list(GOAL_KINDS),
            "x-error": f"goal {{value}} is not one of {', '.join(GOAL_KINDS)}",
        },
    },
}
COUNT = {"type": "integer", "minimum": 0}
RECOVERY = {
    "type": "object",
    "required": ["by_kind", "chains_kept", "rows_by_role"],
    "x-error": "not the recovery counts (by_kind, chains_kept, rows_by_role)",
    "properties": {
        "by_kind": {
            "type": "object",
            "propertyNames": {
                "enum": list(get_args(FailureKind)),
                "x-error": "{value} is not a failure kind",
            },
            "additionalProperties": {
                "type": "object",
                "required": ["chains_raw", "ok_raw", "kept", "kept_rate"],
                "properties": {
                    "chains_raw": COUNT,
                    "ok_raw": COUNT,
                    "kept": COUNT,
                    "kept_rate": {"type": "number"},
                },
            },
        },
        "chains_kept": COUNT,
        "rows_by_role": {
            "type": "object",
            "propertyNames": {"enum": list(get_args(TurnRole)), "x-error": "{value} is not a role"},
            "additionalProperties": COUNT,
        },
    },
}
SCHEMA: dict[str, object] = {
    "type": "object",
    "x-error": "not a dataset manifest (an object with 'chains', 'counts' and 'dropped')",
    "required": ["chains", "counts", "dropped"],
    "properties": {
        "chains": {
            "type": "array",
            "items": CHAIN,
            "x-error": "not a dataset manifest (no list 'chains')",
            "x-parent": True,
        },
        "counts": {
            "type": "object",
            "x-error": "not a dataset manifest (no dict 'counts')",
            "x-parent": True,
        },
        "dropped": {
            "type": "array",
            "x-error": "not a dataset manifest (no list 'dropped')",
            "x-parent": True,
            "items": {
                "type": "object",
                "required": ["key"],
                "x-error": "not a dropped-chain record",
                "properties": {"key": KEY},
            },
        },
        "files": {
            "type": "object",
            "propertyNames": {
                "pattern": f"^[A-Za-z0-9_-]+/{FILE_CHARS.pattern}$",
                "x-error": "{value} is not a file of a chain folder (<key>/<file>)",
            },
            "additionalProperties": {"type": "string"},
        },
        "split": {"type": "object", "properties": {"val_share": {"type": ["number", "null"]}}},
        "image_size": {"type": ["array", "null"], "items": {"type": "integer"}},
        "recovery": RECOVERY,
    },
}
_VALIDATOR = Draft202012Validator(SCHEMA)


def read_split(manifest: Mapping[str, Any]) -> SplitInfo:
    """The one place that knows where a version keeps its split rule and leak check (keep it that way)."""
    split: dict[str, Any] = manifest.get("split") or {}
    places = (manifest, split, manifest.get("counts") or {})
    leak = next((p[n] for p in places for n in ("leak_check", "leaks", "leak") if p.get(n) is not None), None)
    share, rule = split.get("val_share"), split.get("rule")
    return SplitInfo(
        rule=str(rule) if rule is not None else None,
        val_share=float(share) if share is not None else None,
        fields={
            k: v for k, v in sorted(split.items()) if k not in ("rule", "val_share", "leak_check", "leak")
        },
        leak=leak,
    )


def strings(value: Sequence[object] | None) -> tuple[str, ...]:
    """A JSON list as a tuple of strings (None: empty)."""
    return tuple(map(str, value or ()))


def parse_manifest(m: JSON, where: str) -> Manifest:
    """The typed manifest; anything that is not one is a VersionError naming `where` and the entry."""
    check_shape(SCHEMA, _VALIDATOR, m, where, VersionError)
    manifest = cast(ManifestRecord, m)  # its shape is checked
    chains = tuple(
        ChainEntry(
            c["key"],
            c["site"],
            strings(c.get("parts")),
            strings(c.get("macros")),
            c.get("split"),
            c.get("split_detail") or "",
            c.get("failure"),
            c.get("request_by"),
            c.get("goal"),
        )
        for c in manifest["chains"]
    )
    keys = {c.key for c in chains}
    if len(keys) != len(chains):
        raise VersionError(f"{where}: chains: a key appears twice")
    files: dict[str, str] = manifest.get("files") or {}
    outside = next((rel for rel in files if rel.partition("/")[0] not in keys), None)
    if outside is not None:
        raise VersionError(f"{where}: files: {outside!r} is not a file of a chain folder (<key>/<file>)")
    return Manifest(
        counts=dict(manifest["counts"]),
        split=read_split(cast(Mapping[str, Any], manifest)),
        image_size=tuple(manifest.get("image_size") or ()),
        chains=chains,
        files=dict(files),
        dropped=tuple(
            DroppedEntry(d["key"], str(d.get("kind")), str(d.get("detail"))) for d in manifest["dropped"]
        ),
        recovery=manifest.get("recovery"),
    )
