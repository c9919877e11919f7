"""`manifest.json` of a dataset version, parsed once into typed records: `Manifest` (counts, the split, the
image size, the kept chains, the sha256 of every file, the dropped chains), `ChainEntry`, `DroppedEntry`,
`SplitInfo`.

Anything that is not a manifest is a `VersionError` naming the file and the entry: a chain record that is
not an object, a key that is not a plain folder name, a file path that is not `<key>/<file>` (so `../` and
absolute paths never leave the version), a split that is not train, val or excluded.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from plandvc.io import InputError
from plandvc.rows.split import SPLITS
from plandvc.rows.validate import check_key

MANIFEST = "manifest.json"
FILE_CHARS = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9_.-]*")  # a file of a chain folder: no slash, no leading dot
SPLIT_NAMES = (*SPLITS, "excluded")

JSON = object  # a value parsed from JSON, not yet checked


class VersionError(InputError):
    """A dataset version that cannot be read as one: the message is one line naming the file and the entry."""


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


def read_split(manifest: Mapping[str, JSON]) -> SplitInfo:
    """The one place that knows where a version keeps its split rule and leak check (keep it that way)."""
    found = manifest.get("split")
    split: dict[str, JSON] = found if isinstance(found, dict) else {}
    leak: JSON = None
    for where in (manifest, split, manifest.get("counts")):
        if isinstance(where, dict):
            leak = next((where[n] for n in ("leak_check", "leaks", "leak") if where.get(n) is not None), None)
        if leak is not None:
            break
    share, rule = split.get("val_share"), split.get("rule")
    return SplitInfo(
        rule=str(rule) if rule is not None else None,
        val_share=float(share) if isinstance(share, int | float) else None,
        fields={
            k: v for k, v in sorted(split.items()) if k not in ("rule", "val_share", "leak_check", "leak")
        },
        leak=leak,
    )


def strings(value: JSON) -> tuple[str, ...]:
    """A JSON list as a tuple of strings (anything else: empty)."""
    return tuple(map(str, value)) if isinstance(value, list) else ()


def _chain_entry(c: JSON, where: str) -> ChainEntry:
    if not isinstance(c, dict):
        raise VersionError(f"{where}: not a chain record (an object with 'key' and 'site')")
    key = check_key(c.get("key"), where)
    if not isinstance(c.get("site"), str):
        raise VersionError(f"{where}: chain {key} has no string 'site'")
    split = c.get("split")
    if split is not None and split not in SPLIT_NAMES:
        raise VersionError(f"{where}: chain {key} has split {split!r} (train, val or excluded)")
    return ChainEntry(
        key,
        c["site"],
        strings(c.get("parts")),
        strings(c.get("macros")),
        split,
        str(c.get("split_detail") or ""),
    )


def _files(files: JSON, keys: set[str], where: str) -> dict[str, str]:
    if not isinstance(files, dict):
        raise VersionError(f"{where}: files: not an object of path -> sha256")
    for rel, sha in files.items():
        key, _, name = rel.partition("/")
        if key not in keys or not FILE_CHARS.fullmatch(name) or not isinstance(sha, str):
            raise VersionError(f"{where}: files: {rel!r} is not a file of a chain folder (<key>/<file>)")
    return dict(files)


def parse_manifest(m: JSON, where: str) -> Manifest:
    """The typed manifest; anything that is not one is a VersionError naming `where` and the entry."""
    if not isinstance(m, dict):
        raise VersionError(f"{where}: not a dataset manifest (not a JSON object)")
    for name, kind in (("chains", list), ("counts", dict), ("dropped", list)):
        if not isinstance(m.get(name), kind):
            raise VersionError(f"{where}: not a dataset manifest (no {kind.__name__} {name!r})")
    chains = tuple(_chain_entry(c, f"{where}: chains[{n}]") for n, c in enumerate(m["chains"]))
    keys = {c.key for c in chains}
    if len(keys) != len(chains):
        raise VersionError(f"{where}: chains: a key appears twice")
    dropped = []
    for n, d in enumerate(m["dropped"]):
        if not isinstance(d, dict):
            raise VersionError(f"{where}: dropped[{n}]: not a dropped-chain record")
        dropped.append(
            DroppedEntry(
                check_key(d.get("key"), f"{where}: dropped[{n}]"), str(d.get("kind")), str(d.get("detail"))
            )
        )
    size = m.get("image_size")
    return Manifest(
        counts={str(k): v for k, v in m["counts"].items() if isinstance(v, int)},
        split=read_split(m),
        image_size=tuple(int(v) for v in size) if isinstance(size, list) else (),
        chains=chains,
        files=_files(m.get("files", {}), keys, where),
        dropped=tuple(dropped),
    )
