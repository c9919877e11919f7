"""A dataset version, `data/planner_rows/<version>/`: its one writer (filter-rows) and its one reader (export,
view, eval).

The folder is `manifest.json` (counts, the sha256 of every file, the index of chains, the train/val split, the
dropped chains) and per kept chain `<key>/rows.jsonl`, `<key>/episode.json` and `<key>/step_*.png`, copied byte
for byte from run-chains' output. `write_version` writes it; `DatasetVersion.open` reads the manifest once into
typed records (`Manifest`, `ChainEntry`, `DroppedEntry`, `SplitInfo`) and refuses, in one line naming the
file and the entry, anything that is not one: a chain record that is not an object, a key that is not a plain
folder name, a file path that is not `<key>/<file>` (`../` and absolute paths never leave the version), a
listed chain folder that is missing. A version fetched from someone else's repository is read the same way.

`DatasetVersion.examples` reads the rows as typed `Example`s for the exporters, checking what an exporter must
not trust: every listed file exists with its sha256, a kept chain has rows, every image part names a file of
its chain, and `image()` returns only an image that still has its sha256 and decodes as a whole PNG.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, Literal

from plandvc.io import InputError, read_json, read_jsonl, write_json
from plandvc.records import ChainResult
from plandvc.rows.png import PngError, read_png_info
from plandvc.rows.split import RULE, SPLITS, SplitChain, group_split, leak_check, prompt_fingerprint
from plandvc.rows.validate import Chain, check_key

MANIFEST = "manifest.json"
FILE_CHARS = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9_.-]*")  # a file of a chain folder: no slash, no leading dot
SPLIT_NAMES = (*SPLITS, "excluded")

JSON = object  # a value parsed from JSON, not yet checked


class VersionError(InputError):
    """A dataset version that cannot be read as one: the message is one line naming the file and the entry."""


# ── the manifest, typed ─────────────────────────────────────────────────────


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


def _strings(value: JSON) -> tuple[str, ...]:
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
        _strings(c.get("parts")),
        _strings(c.get("macros")),
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


# ── the examples an exporter reads ──────────────────────────────────────────


@dataclass(frozen=True)
class Part:
    """One piece of a message's content: a text, or an image given by the chain's file name."""

    kind: Literal["text", "image"]
    value: str  # the text, or the image's file name


@dataclass(frozen=True)
class Message:
    """A chat message of a row's prompt: its role and its content in order."""

    role: str
    parts: tuple[Part, ...]

    @property
    def text_only(self) -> bool:
        return all(p.kind == "text" for p in self.parts)


@dataclass(frozen=True)
class Example:
    """One training example: a row's prompt (the planner's input) and completion (its reply), with meta."""

    key: str  # the chain
    split: str  # "train" or "val"
    step: int
    site: str
    macro: str | None
    op: str  # "delegate" or "done"
    delegated: str | None  # the family delegated to, None for done
    prompt: tuple[Message, ...]
    completion: str
    images: tuple[str, ...]  # the image file names, in the order their placeholders appear

    @property
    def id(self) -> str:
        """The example's id: `<chain key>-s<step>`, with no dots (a WebDataset key)."""
        return f"{self.key}-s{self.step:02d}"

    def image_path(self, name: str) -> str:
        """An image's path inside the version: `<key>/<file>`."""
        return f"{self.key}/{name}"


@dataclass(frozen=True)
class VersionChain:
    """A chain of the version, as the manifest and its episode describe it."""

    key: str
    site: str
    parts: tuple[str, ...]
    macros: tuple[str, ...]
    split: str  # train, val or excluded
    split_detail: str
    episode: dict[str, Any]  # episode.json as run-chains wrote it (shown in the card as it is)
    rows: int


def row_problem(row: JSON) -> str | None:
    """Why a rows.jsonl line is not a planner row (None when it is one): an object with an integer step,
    a string target and messages that are objects with a role and a string or list content."""
    if not isinstance(row, dict):
        return "not an object"
    if not isinstance(row.get("step"), int) or not isinstance(row.get("target"), str):
        return "needs an integer 'step' and a string 'target'"
    messages = row.get("messages")
    if not isinstance(messages, list) or not all(
        isinstance(m, dict) and isinstance(m.get("role"), str) and isinstance(m.get("content"), str | list)
        for m in messages
    ):
        return "'messages' must be a list of {role, content}"
    return None


def _parts(where: str, content: JSON, images: Mapping[str, str]) -> tuple[Part, ...]:
    """A message's content as Parts; image parts must name a file of the chain."""
    if isinstance(content, str):
        return (Part("text", content),)
    if not isinstance(content, list):
        raise VersionError(f"{where}: content is neither a string nor a list of parts")
    out = []
    for part in content:
        kind = part.get("type") if isinstance(part, dict) else None
        if isinstance(part, dict) and kind == "text" and isinstance(part.get("text"), str):
            out.append(Part("text", part["text"]))
        elif isinstance(part, dict) and kind == "image_url":
            ref = part.get("image_url")
            url = ref.get("url") if isinstance(ref, dict) else None
            if not isinstance(url, str) or url not in images:
                raise VersionError(f"{where}: image {url!r} is not a file of the chain (manifest.json)")
            out.append(Part("image", url))
        elif kind in ("image", "input_image"):
            raise VersionError(f"{where}: an image placeholder with no image (more placeholders than images)")
        else:
            raise VersionError(f"{where}: unknown content part {str(part)[:60]!r}")
    return tuple(out)


def _example(row: JSON, where: str, entry: ChainEntry, images: Mapping[str, str]) -> Example:
    problem = row_problem(row)
    if problem is not None or not isinstance(row, dict):
        raise VersionError(f"{where}: not a planner row ({problem})")
    messages = tuple(
        Message(m["role"], _parts(f"{where}: message {i}", m["content"], images))
        for i, m in enumerate(row["messages"])
    )
    return Example(
        key=entry.key,
        split=str(entry.split),
        step=row["step"],
        site=entry.site,
        macro=row.get("macro"),
        op=str(row.get("op")),
        delegated=row.get("delegated"),
        prompt=messages,
        completion=row["target"],
        images=tuple(p.value for m in messages for p in m.parts if p.kind == "image"),
    )


@dataclass(frozen=True)
class Contents:
    """What the exporters read: the chains with their episodes, the examples in train/val, the prompt
    fingerprints of every chain's rows (for the leak check)."""

    chains: list[VersionChain]
    examples: list[Example]
    prompt_prints: dict[str, tuple[str, ...]]


# ── the version ─────────────────────────────────────────────────────────────


@dataclass
class DatasetVersion:
    """A dataset version folder, its manifest read once (`open`); its examples read on demand."""

    root: Path
    manifest: Manifest

    @property
    def name(self) -> str:
        return self.root.name

    @property
    def manifest_path(self) -> Path:
        return self.root / MANIFEST

    @classmethod
    def open(cls, root: str | Path) -> DatasetVersion:
        """Read the manifest of the version at `root`; a folder that is not one is a VersionError."""
        root = Path(root)
        if not root.exists():
            raise VersionError(f"{root}: no such dataset folder")
        if not root.is_dir():
            raise VersionError(f"{root}: not a folder (expected a dataset version made by filter-rows)")
        if not (root / MANIFEST).is_file():
            raise VersionError(f"{root}: not a dataset version (no {MANIFEST}; filter-rows writes one)")
        manifest = parse_manifest(read_json(root / MANIFEST), str(root / MANIFEST))
        for c in manifest.chains:
            if not (root / c.key).is_dir():
                raise VersionError(f"{root / c.key}: missing (listed in {MANIFEST})")
        return cls(root, manifest)

    @staticmethod
    def owns(folder: Path) -> bool:
        """Whether `folder` is a previous filter-rows output: its manifest.json indexes every entry in it."""
        try:
            manifest = parse_manifest(read_json(folder / MANIFEST), MANIFEST)
        except InputError:
            return False
        keys = {c.key for c in manifest.chains}
        return all(p.name == MANIFEST or p.name in keys for p in folder.iterdir())

    # ── for the exporters ──

    @cached_property
    def contents(self) -> Contents:
        """Every chain's episode and rows, checked against the manifest (see the module doc)."""
        files = self.manifest.files
        for rel, sha in sorted(files.items()):
            path = self.root / rel
            if not path.is_file():
                raise VersionError(f"{path}: missing (manifest.json lists it)")
            if rel.endswith((".json", ".jsonl")) and hashlib.sha256(path.read_bytes()).hexdigest() != sha:
                raise VersionError(f"{path}: its sha256 is not the manifest's (changed after filter-rows)")
        chains, examples, prints = [], [], {}
        for entry in self.manifest.chains:
            images = {
                rel.split("/", 1)[1]: sha for rel, sha in files.items() if rel.startswith(f"{entry.key}/")
            }
            path = self.root / entry.key / "rows.jsonl"
            rows = read_jsonl(path)
            if not rows:
                raise VersionError(f"{path}: no rows (a kept chain has one per turn)")
            ex = [_example(row, f"{path}:{n}", entry, images) for n, row in enumerate(rows, 1)]
            episode = read_json(self.root / entry.key / "episode.json")
            if not isinstance(episode, dict):
                raise VersionError(f"{self.root / entry.key / 'episode.json'}: not a JSON object")
            chains.append(
                VersionChain(
                    key=entry.key,
                    site=entry.site,
                    parts=entry.parts or _strings(episode.get("parts")),
                    macros=entry.macros or _strings(episode.get("macros")),
                    split=str(entry.split),
                    split_detail=entry.split_detail,
                    episode=episode,
                    rows=len(ex),
                )
            )
            prints[entry.key] = tuple(prompt_fingerprint(r["messages"], images) for r in rows)
            if entry.split in SPLITS:
                examples.extend(ex)
        examples.sort(key=lambda e: (e.key, e.step))
        return Contents(chains, examples, prints)

    @property
    def chains(self) -> list[VersionChain]:
        return self.contents.chains

    @property
    def examples(self) -> list[Example]:
        return self.contents.examples

    def image(self, example: Example, name: str) -> bytes:
        """An image's bytes, checked against the manifest's sha256 and decoded once as a whole PNG."""
        rel = example.image_path(name)
        path = self.root / rel
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            raise VersionError(f"{path}: missing (row {example.step} of {example.key} shows it)") from None
        if hashlib.sha256(data).hexdigest() != self.manifest.files.get(rel):
            raise VersionError(f"{path}: its sha256 is not the manifest's (changed after filter-rows)")
        if rel not in self._decoded:
            try:
                read_png_info(data)
            except PngError as e:
                raise VersionError(f"{path}: not a whole PNG ({e})") from None
            self._decoded.add(rel)
        return data

    @cached_property
    def _decoded(self) -> set[str]:
        return set()

    def split_chains(self) -> list[SplitChain]:
        """The chains as the leak check sees them: parts from the episode, prompts from the rows."""
        prints = self.contents.prompt_prints
        return [SplitChain(c.key, c.parts, prints.get(c.key, ())) for c in self.chains]

    @cached_property
    def by_split(self) -> dict[str, list[Example]]:
        """The examples of each split that has any: an empty split gets no file (loaders refuse empty ones)."""
        found = {s: [e for e in self.examples if e.split == s] for s in SPLITS}
        return {s: ex for s, ex in found.items() if ex}

    def count(self, split: str) -> int:
        return len(self.by_split.get(split, []))


# ── the writer ──────────────────────────────────────────────────────────────


@dataclass(frozen=True)
class Dropped:
    """A chain filter-rows dropped: its key, the kind of reason and the detail."""

    key: str
    kind: str
    detail: str


def _copy(src: Path, dst: Path) -> str:
    """Copy one file byte for byte and return its sha256."""
    data = src.read_bytes()
    dst.write_bytes(data)
    return hashlib.sha256(data).hexdigest()


def write_version(
    tmp: Path,
    raw: Path,
    kept: list[Chain],
    dropped: list[Dropped],
    results: list[ChainResult],
    split: tuple[float, int],
    image_size: tuple[int, int] | None,
) -> Manifest:
    """Copy the kept chains of `raw` into `tmp` and write their manifest (split by `split` = (val share,
    seed)); returns the manifest, typed."""
    val_share, seed = split
    files: dict[str, str] = {}
    index = []
    split_chains = [
        SplitChain(
            c.key,
            tuple(map(str, c.episode.get("parts") or ())),
            tuple(prompt_fingerprint(r["messages"], c.images) for r in c.rows),
        )
        for c in kept
    ]
    assigned = group_split(split_chains, val_share, seed)
    leaks = leak_check(split_chains, {k: a.split for k, a in assigned.items()})
    if leaks.crosses:  # the rule cannot leak; this guards the rule itself
        raise InputError(f"the train/val split leaks: {leaks.first()}")
    for chain in kept:
        (tmp / chain.key).mkdir()
        for name in ["episode.json", "rows.jsonl", *chain.images]:
            files[f"{chain.key}/{name}"] = _copy(raw / chain.key / name, tmp / chain.key / name)
        ep = chain.episode
        index.append(
            {
                "key": chain.key,
                "site": ep["site"],
                "parts": ep["parts"],
                "macros": ep.get("macros"),
                "turns": len(ep["turns"]),
                "split": assigned[chain.key].split,
                "split_detail": assigned[chain.key].detail,
            }
        )
    splits = Counter(c["split"] for c in index)
    manifest = {
        "counts": {
            "chains_raw": len(results),
            "chains": len(kept),
            "rows": sum(len(c.rows) for c in kept),
            "images": sum(len(c.images) for c in kept),
            "files": len(files),
            "train": splits["train"],
            "val": splits["val"],
            "excluded": splits["excluded"],
            "dropped": len(dropped),
        },
        "split": {
            "rule": RULE,
            "val_share": val_share,
            "seed": seed,
            "leak": {
                "shared_parts": len(leaks.shared_parts),
                "shared_prompts": len(leaks.shared_prompts),
                "duplicate_rows": len(leaks.duplicate_rows),
            },
        },
        "image_size": list(image_size) if image_size else None,
        "chains": index,
        "files": dict(sorted(files.items())),
        "dropped": [{"key": d.key, "kind": d.kind, "detail": d.detail} for d in dropped],
    }
    write_json(tmp / MANIFEST, manifest)
    return parse_manifest(manifest, str(tmp / MANIFEST))
