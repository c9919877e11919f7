"""A dataset version's rows as the exporters read them: typed `Example`s (a prompt of `Message`s made of
text and image `ContentPart`s, and the completion), checked once when `plandvc.rows.version.DatasetVersion` reads
them.

A row's `messages` are OpenAI chat messages whose image parts name a PNG of the chain by file name; its
`target` is the planner's reply (a JSON string). An image part must name a file of its chain (so no row can
point outside the version), and a placeholder without an image is refused; anything else is a
`VersionError`: one line naming the file, the row and the message.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, TypedDict, cast

from jsonschema import Draft202012Validator

from plandvc.rows.manifest import JSON, ChainEntry, VersionError
from plandvc.rows.shape import shape_error


@dataclass(frozen=True)
class ContentPart:
    """One piece of a message's content: a text, or an image given by the chain's file name."""

    kind: Literal["text", "image"]
    value: str  # the text, or the image's file name


@dataclass(frozen=True)
class Message:
    """A chat message of a row's prompt: its role and its content in order."""

    role: str
    parts: tuple[ContentPart, ...]

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
    """A chain of the version: its manifest entry (parts and macros from the episode where the manifest has
    none), its episode and how many rows it has."""

    entry: ChainEntry
    episode: dict[str, Any]  # episode.json as run-chains wrote it (shown in the card as it is)
    rows: int


class ContentRecord(TypedDict, total=False):
    """A part of a message's content as written: text, or an image by file name (`ROW` checks it)."""

    type: str
    text: str
    image_url: dict[str, str]


class MessageRecord(TypedDict):
    role: str
    content: str | list[ContentRecord]


class RowRecord(TypedDict, total=False):
    """A rows.jsonl line as the exporters read it (`ROW` checks it)."""

    step: int
    target: str
    messages: list[MessageRecord]
    macro: str | None
    op: str
    delegated: str | None
    role: str  # only a recovery chain's rows


_PART = {
    "type": "object",
    "required": ["type"],
    "properties": {"type": {"type": "string"}},
    "allOf": [
        {
            "if": {"properties": {"type": {"const": "text"}}},
            "then": {"required": ["text"], "properties": {"text": {"type": "string"}}},
        },
        {
            "if": {"properties": {"type": {"const": "image_url"}}},
            "then": {
                "required": ["image_url"],
                "properties": {
                    "image_url": {
                        "type": "object",
                        "required": ["url"],
                        "properties": {"url": {"type": "string"}},
                    }
                },
            },
        },
    ],
}
ROW: dict[str, object] = {
    "type": "object",
    "required": ["step", "target", "messages"],
    "properties": {
        "step": {"type": "integer"},
        "target": {"type": "string"},
        "role": {"enum": ["normal", "after_failure"]},
        "messages": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["role", "content"],
                "properties": {
                    "role": {"type": "string"},
                    "content": {"anyOf": [{"type": "string"}, {"type": "array", "items": _PART}]},
                },
            },
        },
    },
}
_ROWS = Draft202012Validator(ROW)


def row_problem(row: JSON) -> str | None:
    """Why a rows.jsonl line is not a planner row (None when it is one): an object with an integer step, a
    string target and messages of {role, content}, a content a string or a list of text / image_url parts."""
    return shape_error(ROW, _ROWS, row)


def _parts(
    where: str, content: str | list[ContentRecord], images: Mapping[str, str]
) -> tuple[ContentPart, ...]:
    """A message's content as Parts (its shape checked); image parts must name a file of the chain."""
    if isinstance(content, str):
        return (ContentPart("text", content),)
    out = []
    for part in content:
        kind = part["type"]
        if kind == "text":
            out.append(ContentPart("text", part["text"]))
        elif kind == "image_url":
            url = part["image_url"]["url"]
            if url not in images:
                raise VersionError(f"{where}: image {url!r} is not a file of the chain (manifest.json)")
            out.append(ContentPart("image", url))
        elif kind in ("image", "input_image"):
            raise VersionError(f"{where}: an image placeholder with no image (more placeholders than images)")
        else:
            raise VersionError(f"{where}: unknown content part {str(part)[:60]!r}")
    return tuple(out)


def _example(line: JSON, where: str, entry: ChainEntry, images: Mapping[str, str]) -> Example:
    problem = row_problem(line)
    if problem is not None:
        raise VersionError(f"{where}: not a planner row ({problem})")
    row = cast(RowRecord, line)  # its shape is checked
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
        role=row.get("role"),
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
