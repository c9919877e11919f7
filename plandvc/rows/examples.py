"""A dataset version's rows as the exporters read them: typed `Example`s (a prompt of `Message`s made of
text and image `Part`s, and the completion), checked once when `plandvc.rows.version.DatasetVersion` reads
them.

A row's `messages` are OpenAI chat messages whose image parts name a PNG of the chain by file name; its
`target` is the planner's reply (a JSON string). An image part must name a file of its chain (so no row can
point outside the version), and a placeholder without an image is refused; anything else is a
`VersionError`: one line naming the file, the row and the message.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from plandvc.rows.manifest import JSON, ChainEntry, VersionError


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


def chain_examples(
    rows: list[JSON], path: str, entry: ChainEntry, images: Mapping[str, str]
) -> list[Example]:
    """The examples of one chain's rows.jsonl (`path`), each row checked (`<path>:<line>` in an error)."""
    return [_example(row, f"{path}:{n}", entry, images) for n, row in enumerate(rows, 1)]


@dataclass(frozen=True)
class Contents:
    """What the exporters read: the chains with their episodes, the examples in train/val, the prompt
    fingerprints of every chain's rows (for the leak check)."""

    chains: list[VersionChain]
    examples: list[Example]
    prompt_prints: dict[str, tuple[str, ...]]
