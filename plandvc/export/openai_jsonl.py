"""The `openai` export: chat fine-tuning JSONL, one file per split (`train.jsonl`, `val.jsonl`).

Each line is `{"messages": [...]}`: the row's prompt as it was sent to the planner (a system message with a
string content, user messages whose content is a list of `{"type": "text"}` and `{"type": "image_url"}`
parts), each image as a `data:image/png;base64,` URL, then the target as the assistant's message (a string
content). The vision fine-tuning format's documented limits are checked on every row: at most
`openai_max_images` images per example (10), at most `openai_max_image_mb` MB per image (10), images only in
user messages, PNG in RGB or RGBA, at most 50,000 examples with images per file. A row that breaks one is an ExportError naming it.
"""

from __future__ import annotations

import base64
import struct
from pathlib import Path
from typing import Literal, NotRequired, TypedDict

from plandvc.export.common import ExportError, ExportParams, FormatReport, full_messages
from plandvc.export.recovery import WEIGHT
from plandvc.io import dumps, write_bytes
from plandvc.rows.examples import Example
from plandvc.rows.version import DatasetVersion

DATA_URL = "data:image/png;base64,"
MAX_IMAGE_EXAMPLES = 50_000  # examples with images in one training file
RGB, RGBA = 2, 6  # PNG colour types the format accepts


def _colour_type(data: bytes) -> int | None:
    """The PNG header's colour type (None when the bytes do not start with a PNG header)."""
    if data[:8] != b"\x89PNG\r\n\x1a\n" or data[12:16] != b"IHDR":
        return None
    return struct.unpack(">B", data[25:26])[0]


def _image(version: DatasetVersion, example: Example, name: str, params: ExportParams) -> str:
    data = version.image(example, name)
    where = f"{example.key}/{name} (row {example.step})"
    if len(data) > params.openai_max_image_mb * 1_000_000:
        raise ExportError(
            f"{where}: {len(data):,} bytes, over the format's {params.openai_max_image_mb:g} MB per image"
        )
    if _colour_type(data) not in (RGB, RGBA):
        raise ExportError(f"{where}: not an RGB or RGBA PNG (the format takes RGB/RGBA images only)")
    return DATA_URL + base64.b64encode(data).decode()


class ImageURL(TypedDict):
    url: str  # the PNG as a data: URL


class ContentPart(TypedDict):
    """A part of a user message's content: `{"type": "text", "text"}` or `{"type": "image_url", "image_url"}`."""

    type: Literal["text", "image_url"]
    text: NotRequired[str]
    image_url: NotRequired[ImageURL]


class ChatMessage(TypedDict):
    """A message of a line; the assistant's last one carries the `weight` in a recovery version."""

    role: str
    content: str | list[ContentPart]
    weight: NotRequired[int]


class Line(TypedDict):
    """A line of train.jsonl / val.jsonl."""

    messages: list[ChatMessage]


def record(version: DatasetVersion, example: Example, params: ExportParams) -> Line:
    """One example as a line of the JSONL file."""
    if len(example.images) > params.openai_max_images:
        raise ExportError(
            f"{example.key}/rows.jsonl row {example.step}: {len(example.images)} images, over the format's "
            f"{params.openai_max_images} per example"
        )
    messages: list[ChatMessage] = []
    for m in full_messages(example):
        if m.text_only and len(m.parts) == 1:
            messages.append({"role": m.role, "content": m.parts[0].value})
            continue
        if m.role != "user" and not m.text_only:
            raise ExportError(f"{example.key}/rows.jsonl row {example.step}: an image in a {m.role} message")
        content: list[ContentPart] = [
            {"type": "text", "text": p.value}
            if p.kind == "text"
            else {"type": "image_url", "image_url": {"url": _image(version, example, p.value, params)}}
            for p in m.parts
        ]
        messages.append({"role": m.role, "content": content})
    if example.role is not None:  # a recovery version: the target's loss weight (plandvc.export.recovery)
        messages[-1]["weight"] = int(WEIGHT)
    return {"messages": messages}


def write(version: DatasetVersion, out: Path, params: ExportParams) -> FormatReport:
    """Write `train.jsonl` and `val.jsonl` under `out`."""
    report = FormatReport("openai")
    out.mkdir(parents=True, exist_ok=True)
    for split, examples in version.by_split.items():
        with_images = sum(1 for e in examples if e.images)
        if with_images > MAX_IMAGE_EXAMPLES:
            raise ExportError(
                f"{version.root}: {with_images:,} {split} examples with images, over the format's "
                f"{MAX_IMAGE_EXAMPLES:,} per file"
            )
        lines = [dumps(record(version, e, params)) + b"\n" for e in examples]
        write_bytes(out / f"{split}.jsonl", b"".join(lines))
        report.add(out, out / f"{split}.jsonl")
        report.examples[split] = len(examples)
    return report
