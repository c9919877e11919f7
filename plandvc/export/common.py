"""What every exporter shares: the export's params, the report of one format, and the message helpers."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from plandvc.io import InputError
from plandvc.rows.examples import ContentPart, Example, Message

FORMATS = ("hf", "llamafactory", "openai", "wds")


class ExportError(InputError):
    """A version that cannot be exported in a format as it is, or an export asked for wrongly: one line."""


@dataclass(frozen=True)
class ExportParams:
    """The params that change an export's bytes (params.yaml `export.*`)."""

    license: str = "mit"
    shard_rows: int = 2000  # at most this many examples per Parquet file / tar shard
    row_group_rows: int = 100  # Parquet row groups: at most this many rows ...
    row_group_mb: float = 64.0  # ... and at most this many MB of images (the Hub's viewer wants them small)
    openai_max_images: int = 10  # the chat fine-tuning format's limits: images per example ...
    openai_max_image_mb: float = 10.0  # ... and bytes per image


@dataclass
class FormatReport:
    """What one format wrote: examples per split and the files (relative path -> bytes)."""

    name: str
    examples: dict[str, int] = field(default_factory=dict)
    files: dict[str, int] = field(default_factory=dict)
    notes: dict[str, object] = field(default_factory=dict)

    def add(self, root: Path, path: Path) -> None:
        self.files[path.relative_to(root).as_posix()] = path.stat().st_size

    @property
    def bytes(self) -> int:
        return sum(self.files.values())


def shards(examples: list[Example], size: int) -> list[list[Example]]:
    """Consecutive groups of at most `size` examples (at least one group, maybe empty)."""
    return [examples[i : i + size] for i in range(0, len(examples), size)] or [[]]


def full_messages(example: Example) -> tuple[Message, ...]:
    """The prompt followed by the completion as the assistant's message."""
    return (*example.prompt, Message("assistant", (ContentPart("text", example.completion),)))


def check_placeholders(example: Example, placeholders: int, fmt: str, what: str) -> None:
    """Every format puts one placeholder per image; a count that differs is an error naming the row."""
    if placeholders != len(example.images):
        raise ExportError(
            f"{example.key}/rows.jsonl row {example.step}: {placeholders} {what} for "
            f"{len(example.images)} image(s) in the {fmt} export"
        )
