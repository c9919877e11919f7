"""The `hf` export: Parquet files that `datasets.load_dataset("parquet", ...)` types with no glue.

Layout: `data/<split>-XXXXX-of-YYYYY.parquet` (split = train, val). Columns:

- `prompt`, `completion`: TRL's conversational prompt-completion vision format. Every message's content is
  a list of `{"type": "text", "text": ...}` and `{"type": "image", "text": null}` parts (one Arrow type for
  all rows), with one image part per image, in the order the images appear; the completion is the
  assistant's reply (the planner's JSON action).
- `messages`: the prompt followed by the completion (TRL's conversational language-modeling format).
- `images`: the row's screenshots as an `Image` feature: struct<bytes, path> with the PNG bytes embedded
  (`path` is `<chain key>/<file>`, for reference only).
- meta: `id`, `task_id` (the chain key), `step`, `site`, `macro`, `op`, `delegated`.

The `datasets` features are written in the Parquet schema metadata under the key `huggingface`
(`{"info": {"features": ...}}`), so the columns load as `Image` and typed lists, not bare structs.
Row groups hold at most `row_group_rows` rows and `row_group_mb` MB of images, well under the Hub viewer's
limit on a row group. Files are written with pyarrow in a fixed order with fixed settings: same bytes for
the same version.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Generic, NotRequired, TypedDict, TypeVar

import pyarrow as pa
import pyarrow.parquet as pq

from plandvc.export.common import ExportParams, FormatReport, full_messages, shards
from plandvc.export.recovery import meta
from plandvc.io import JSONObject
from plandvc.rows.examples import Example, Message
from plandvc.rows.version import DatasetVersion

_PART = pa.struct([("type", pa.string()), ("text", pa.string())])
_MESSAGE = pa.struct([("role", pa.string()), ("content", pa.list_(_PART))])
_IMAGE = pa.struct([("bytes", pa.binary()), ("path", pa.string())])
SCHEMA = pa.schema(
    [
        ("id", pa.string()),
        ("prompt", pa.list_(_MESSAGE)),
        ("completion", pa.list_(_MESSAGE)),
        ("messages", pa.list_(_MESSAGE)),
        ("images", pa.list_(_IMAGE)),
        ("task_id", pa.string()),
        ("step", pa.int32()),
        ("site", pa.string()),
        ("macro", pa.string()),
        ("op", pa.string()),
        ("delegated", pa.string()),
    ]
)


def _value(dtype: str) -> JSONObject:
    return {"dtype": dtype, "_type": "Value"}


_MESSAGE_FEATURE: JSONObject = {
    "feature": {
        "role": _value("string"),
        "content": {"feature": {"type": _value("string"), "text": _value("string")}, "_type": "List"},
    },
    "_type": "List",
}
FEATURES: JSONObject = {
    "id": _value("string"),
    "prompt": _MESSAGE_FEATURE,
    "completion": _MESSAGE_FEATURE,
    "messages": _MESSAGE_FEATURE,
    "images": {"feature": {"_type": "Image"}, "_type": "List"},
    "task_id": _value("string"),
    "step": _value("int32"),
    "site": _value("string"),
    "macro": _value("string"),
    "op": _value("string"),
    "delegated": _value("string"),
}


class ChatPart(TypedDict):
    """A part of a message's content in the table: text, or an image by its place in `images`."""

    type: str
    text: str | None


class ChatMessage(TypedDict):
    role: str
    content: list[ChatPart]


class EmbeddedImage(TypedDict):
    """An image cell of the Parquet table: the PNG's bytes and its path inside the version."""

    bytes: bytes
    path: str


Image = TypeVar("Image", EmbeddedImage, str)


class TrlRow(TypedDict, Generic[Image]):
    """An example in TRL's vision layout plus the row's meta (and, in a recovery version, its role and
    weight); `images` the format's own image column."""

    id: str
    prompt: list[ChatMessage]
    completion: list[ChatMessage]
    messages: list[ChatMessage]
    images: list[Image]
    task_id: str
    step: int
    site: str
    macro: str | None
    op: str
    delegated: str | None
    role: NotRequired[str]
    weight: NotRequired[float]


def chat_messages(messages: tuple[Message, ...]) -> list[ChatMessage]:
    return [
        {
            "role": m.role,
            "content": [
                {"type": "text", "text": p.value} if p.kind == "text" else {"type": "image", "text": None}
                for p in m.parts
            ],
        }
        for m in messages
    ]


def trl_columns(example: Example, images: list[Image]) -> TrlRow[Image]:
    """An example in TRL's vision layout (prompt, completion, messages, images) plus the row's meta; `images`
    is the format's own image column (embedded bytes for Parquet, member names for WebDataset)."""
    row: TrlRow[Image] = {
        "id": example.id,
        "prompt": chat_messages(example.prompt),  # one image part per image, by construction
        "completion": chat_messages(full_messages(example)[-1:]),
        "messages": chat_messages(full_messages(example)),
        "images": images,
        "task_id": example.key,
        "step": example.step,
        "site": example.site,
        "macro": example.macro,
        "op": example.op,
        "delegated": example.delegated,
    }
    row.update(meta(example.role))
    return row


def record(version: DatasetVersion, example: Example) -> TrlRow[EmbeddedImage]:
    """One example as a row of the table (images embedded)."""
    return trl_columns(
        example,
        [{"bytes": version.image(example, n), "path": example.image_path(n)} for n in example.images],
    )


def _row_groups(
    records: list[TrlRow[EmbeddedImage]], params: ExportParams
) -> list[list[TrlRow[EmbeddedImage]]]:
    groups: list[list[TrlRow[EmbeddedImage]]] = [[]]
    size = 0
    limit = params.row_group_mb * 1_000_000
    for r in records:
        n = sum(len(i["bytes"]) for i in r["images"])
        if groups[-1] and (len(groups[-1]) >= params.row_group_rows or size + n > limit):
            groups.append([])
            size = 0
        groups[-1].append(r)
        size += n
    return groups


def schema(roles: bool = False) -> pa.Schema:
    """The table schema with the `datasets` features in its metadata; `roles`: with the recovery columns."""
    sch, features = SCHEMA, FEATURES
    if roles:
        sch = sch.append(pa.field("role", pa.string())).append(pa.field("weight", pa.float32()))
        features = {**features, "role": _value("string"), "weight": _value("float32")}
    return sch.with_metadata({"huggingface": json.dumps({"info": {"features": features}}, sort_keys=False)})


def write(version: DatasetVersion, out: Path, params: ExportParams) -> FormatReport:
    """Write the Parquet files of every split under `out/data/`."""
    report = FormatReport("hf")
    (out / "data").mkdir(parents=True, exist_ok=True)
    sch = schema(any(e.role for e in version.contents.examples))
    for split, examples in version.by_split.items():
        report.examples[split] = len(examples)
        parts = shards(examples, params.shard_rows)
        groups_total = 0
        for i, shard in enumerate(parts):
            path = out / "data" / f"{split}-{i:05d}-of-{len(parts):05d}.parquet"
            records = [record(version, e) for e in shard]
            with pq.ParquetWriter(path, sch, compression="snappy") as writer:
                for group in _row_groups(records, params) if records else []:
                    writer.write_table(pa.Table.from_pylist(group, schema=sch), row_group_size=len(group))
                    groups_total += 1
            report.add(out, path)
        report.notes[f"{split}_row_groups"] = groups_total
    return report
