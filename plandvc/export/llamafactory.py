"""The `llamafactory` export: LLaMA-Factory's sharegpt format in its OpenAI layout, ready for `dataset_dir`.

Layout: `train.jsonl`, `val.jsonl`, `images/<chain key>/step_<t>.png` and `dataset_info.json`. Point
LLaMA-Factory's `dataset_dir` at the folder and name `plandvc_planner_train` / `plandvc_planner_val` as
`dataset` / `eval_dataset`. Each line is `{"messages": [...], "images": [...]}`:

- `messages`: `{"role", "content"}` with `content` a plain string; a system message may come first, then
  user and assistant alternate (user in the odd positions, assistant in the even ones), and the last
  message is the assistant's reply (the planner's JSON action). Each image is the literal token `<image>`
  in the text where the image was, so the number of `<image>` tokens is the number of images.
- `images`: the screenshots' paths relative to the folder (LLaMA-Factory resolves a relative path against
  its media directory, which is the dataset directory unless set otherwise), in `<image>` order.

`dataset_info.json` names, per split, the file, `"formatting": "sharegpt"`, the columns (`messages`,
`images`) and the tags of the OpenAI layout (`role_tag: role`, `content_tag: content`, `user_tag: user`,
`assistant_tag: assistant`, `system_tag: system`).

A text that itself holds `<image>` would add a placeholder without an image, and a row whose roles do not
alternate would be refused by the loader: both are an ExportError naming the row, before anything is
published.
"""

from __future__ import annotations

from pathlib import Path
from typing import TypedDict

from plandvc.export.common import ExportError, ExportParams, FormatReport, check_placeholders, full_messages
from plandvc.io import dumps, write_bytes, write_json
from plandvc.rows.examples import Example
from plandvc.rows.version import DatasetVersion

IMAGE_TOKEN = "<image>"
TAGS = {
    "role_tag": "role",
    "content_tag": "content",
    "user_tag": "user",
    "assistant_tag": "assistant",
    "system_tag": "system",
}
NAME = "plandvc_planner_{split}"


def _check_roles(example: Example, roles: list[str]) -> None:
    body = roles[1:] if roles and roles[0] == "system" else roles
    want = ["user" if i % 2 == 0 else "assistant" for i in range(len(body))]
    if body != want or not body or body[-1] != "assistant":
        raise ExportError(
            f"{example.key}/rows.jsonl row {example.step}: roles {roles} do not alternate user/assistant "
            "after an optional system message (the sharegpt layout)"
        )


class ShareGPTMessage(TypedDict):
    role: str
    content: str  # the text, an image token where each image stands


class Line(TypedDict):
    """A line of a split's JSONL file (the sharegpt layout): the messages and the images they name."""

    messages: list[ShareGPTMessage]
    images: list[str]


class DatasetEntry(TypedDict):
    """A `dataset_info.json` entry: the split's file, its layout, its columns and tags."""

    file_name: str
    formatting: str
    columns: dict[str, str]
    tags: dict[str, str]


def record(example: Example) -> Line:
    """One example as a line of the JSONL file."""
    messages: list[ShareGPTMessage] = []
    for m in full_messages(example):
        text = "".join(p.value if p.kind == "text" else IMAGE_TOKEN for p in m.parts)
        messages.append({"role": m.role, "content": text})
    _check_roles(example, [m["role"] for m in messages])
    placeholders = sum(m["content"].count(IMAGE_TOKEN) for m in messages)
    check_placeholders(example, placeholders, "llamafactory", f"{IMAGE_TOKEN} tokens")
    return {"messages": messages, "images": [f"images/{example.image_path(n)}" for n in example.images]}


def dataset_info(splits: list[str]) -> dict[str, DatasetEntry]:
    """The `dataset_info.json` entries, one per split."""
    return {
        NAME.format(split=s): {
            "file_name": f"{s}.jsonl",
            "formatting": "sharegpt",
            "columns": {"messages": "messages", "images": "images"},
            "tags": dict(TAGS),
        }
        for s in splits
    }


def write(version: DatasetVersion, out: Path, params: ExportParams) -> FormatReport:
    """Write the JSONL files, the images they name and `dataset_info.json` under `out`."""
    report = FormatReport("llamafactory")
    for split, examples in version.by_split.items():
        lines = [dumps(record(e)) + b"\n" for e in examples]
        write_bytes(out / f"{split}.jsonl", b"".join(lines))
        report.add(out, out / f"{split}.jsonl")
        report.examples[split] = len(examples)
        for e in examples:
            for n in e.images:
                path = out / "images" / e.image_path(n)
                if not path.exists():
                    path.parent.mkdir(parents=True, exist_ok=True)
                    path.write_bytes(version.image(e, n))
                    report.add(out, path)
    write_json(out / "dataset_info.json", dataset_info(list(version.by_split)))
    report.add(out, out / "dataset_info.json")
    return report
