"""The dataset version as the exporters see it: typed examples, one per row, read and checked once.

A dataset version is `data/planner_rows/<version>/` as filter-rows publishes it: `manifest.json` (counts,
the sha256 of every file, each chain's split) and per chain `rows.jsonl`, `episode.json` and `step_*.png`.
A row's `messages` are OpenAI chat messages whose image parts name a PNG of the chain by file name; its
`target` is the planner's reply (a JSON string). Every exporter turns the same `Example`s into its format.

Reading checks what an exporter must not trust blindly: every file the manifest lists exists and still has
its sha256 (so an image that is missing or changed is named, not written half), every image part names a
file of its chain, and a part that is an image placeholder without an image is refused. An error is an
`ExportError`: one line naming the file, the chain and the row.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path
from typing import Any, Literal

from plandvc.io import InputError, read_json, read_jsonl
from plandvc.rows.split import SPLITS, SplitChain, prompt_fingerprint

MANIFEST = "manifest.json"
KEY_CHARS = re.compile(r"[A-Za-z0-9_-]+")  # chain keys become sample ids: no dots, no slashes


class ExportError(InputError):
    """A dataset version that cannot be exported as it is: the message is one line naming what is wrong."""


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
    role: str | None = None  # in a version with recovery chains: "normal" or "after_failure" (else None)

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
    episode: dict[str, Any]
    rows: int


@dataclass
class Version:
    """A dataset version read for export: its manifest, chains and examples (images read on demand)."""

    root: Path
    name: str
    manifest: dict[str, Any]
    chains: list[VersionChain]
    examples: list[Example]
    prompt_prints: dict[str, tuple[str, ...]]  # chain key -> its rows' prompt fingerprints

    def image(self, example: Example, name: str) -> bytes:
        """An image's bytes, checked against the manifest's sha256 (the version may have changed since)."""
        rel = example.image_path(name)
        path = self.root / rel
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            raise ExportError(f"{path}: missing (row {example.step} of {example.key} shows it)") from None
        if hashlib.sha256(data).hexdigest() != self.manifest["files"].get(rel):
            raise ExportError(f"{path}: its sha256 is not the manifest's (changed after filter-rows)")
        return data

    def split_chains(self) -> list[SplitChain]:
        """The chains as the leak check sees them: parts from the episode, prompts from the rows."""
        return [SplitChain(c.key, c.parts, self.prompt_prints.get(c.key, ())) for c in self.chains]

    @cached_property
    def by_split(self) -> dict[str, list[Example]]:
        """The examples of each split that has any: an empty split gets no file (loaders refuse empty ones)."""
        found = {s: [e for e in self.examples if e.split == s] for s in SPLITS}
        return {s: ex for s, ex in found.items() if ex}

    def count(self, split: str) -> int:
        return len(self.by_split.get(split, []))


def _parts(where: str, content: Any, images: dict[str, str]) -> tuple[Part, ...]:
    """A message's content as Parts; image parts must name a file of the chain."""
    if isinstance(content, str):
        return (Part("text", content),)
    if not isinstance(content, list):
        raise ExportError(f"{where}: content is neither a string nor a list of parts")
    out = []
    for part in content:
        kind = part.get("type") if isinstance(part, dict) else None
        if kind == "text" and isinstance(part.get("text"), str):
            out.append(Part("text", part["text"]))
        elif kind == "image_url":
            url = part.get("image_url", {}).get("url") if isinstance(part.get("image_url"), dict) else None
            if not isinstance(url, str) or url not in images:
                raise ExportError(f"{where}: image {url!r} is not a file of the chain (manifest.json)")
            out.append(Part("image", url))
        elif kind in ("image", "input_image"):
            raise ExportError(f"{where}: an image placeholder with no image (more placeholders than images)")
        else:
            raise ExportError(f"{where}: unknown content part {str(part)[:60]!r}")
    return tuple(out)


def _chain_examples(root: Path, entry: dict[str, Any], files: dict[str, str]) -> tuple[list[Example], list]:
    key = entry["key"]
    images = {rel.split("/", 1)[1]: sha for rel, sha in files.items() if rel.startswith(f"{key}/")}
    rows = read_jsonl(root / key / "rows.jsonl")
    examples, prints = [], []
    for n, row in enumerate(rows, 1):
        where = f"{root / key / 'rows.jsonl'}:{n}"
        try:
            messages = tuple(
                Message(str(m["role"]), _parts(f"{where}: message {i}", m.get("content"), images))
                for i, m in enumerate(row["messages"])
            )
            step, target = int(row["step"]), row["target"]
        except (KeyError, TypeError, ValueError) as e:
            raise ExportError(f"{where}: not a planner row ({type(e).__name__}: {e})") from None
        if not isinstance(target, str):
            raise ExportError(f"{where}: target is not a string")
        names = tuple(p.value for m in messages for p in m.parts if p.kind == "image")
        examples.append(
            Example(
                key=key,
                split=entry["split"],
                step=step,
                site=str(entry["site"]),
                macro=row.get("macro"),
                op=str(row.get("op")),
                delegated=row.get("delegated"),
                prompt=messages,
                completion=target,
                images=names,
                role=row.get("role"),
            )
        )
        prints.append(prompt_fingerprint(row["messages"], images))
    return examples, prints


def load_version(root: str | Path) -> Version:
    """Read a dataset version for export; any file missing or changed is an ExportError naming it."""
    root = Path(root)
    if not (root / MANIFEST).is_file():
        raise ExportError(f"{root / MANIFEST}: missing (not a dataset version made by filter-rows)")
    manifest = read_json(root / MANIFEST)
    try:
        entries, files = manifest["chains"], manifest["files"]
    except (KeyError, TypeError):
        raise ExportError(f"{root / MANIFEST}: needs 'chains' and 'files'") from None
    for rel, sha in sorted(files.items()):
        path = root / rel
        if not path.is_file():
            raise ExportError(f"{path}: missing (manifest.json lists it)")
        if rel.endswith((".json", ".jsonl")) and hashlib.sha256(path.read_bytes()).hexdigest() != sha:
            raise ExportError(f"{path}: its sha256 is not the manifest's (changed after filter-rows)")
    chains, examples, prompt_prints = [], [], {}
    for entry in entries:
        key = str(entry.get("key"))
        if not KEY_CHARS.fullmatch(key):
            raise ExportError(
                f"{root / MANIFEST}: chain key {key!r} has characters other than A-Z a-z 0-9 _ -"
            )
        split = entry.get("split")
        if split not in (*SPLITS, "excluded"):
            raise ExportError(f"{root / MANIFEST}: chain {key} has split {split!r} (train, val or excluded)")
        episode = read_json(root / key / "episode.json")
        ex, prints = _chain_examples(root, entry, files)
        chains.append(
            VersionChain(
                key=key,
                site=str(entry["site"]),
                parts=tuple(map(str, entry.get("parts") or episode.get("parts") or ())),
                macros=tuple(map(str, entry.get("macros") or episode.get("macros") or ())),
                split=split,
                split_detail=str(entry.get("split_detail") or ""),
                episode=episode,
                rows=len(ex),
            )
        )
        prompt_prints[key] = tuple(prints)
        if split in SPLITS:
            examples.extend(ex)
    examples.sort(key=lambda e: (e.key, e.step))
    if any(e.role for e in examples):  # a version with recovery chains: every example has a role
        examples = [replace(e, role=e.role or "normal") for e in examples]
    return Version(root, root.name, manifest, chains, examples, prompt_prints)
