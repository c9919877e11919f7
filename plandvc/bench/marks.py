"""What set-of-marks cost a dataset (`make bench`): the same chains run by run-chains in the browser-use-0.5
dialect with `prompt.marks` false and true, side by side in one bench run, each measured whole by
`accounting.measure` (Chromium's processes counted). Per run: CPU-seconds per kept chain, and what a row
weighs — its JSON line (the messages: request, history, page text) and its screenshot (the PNG a row points
to). The difference of the two columns is what the marks add: the drawing and removal each turn, and the
larger PNG of a marked page."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

DIALECT = "browser-use-0.5"  # the dialect whose agent draws marks


@dataclass(frozen=True)
class RowBytes:
    """The rows of one run-chains output folder and what they weigh."""

    rows: int
    text: int  # bytes of the rows' JSON lines (each line's newline included)
    png: int  # bytes of the screenshots the rows point to

    @property
    def text_per_row(self) -> int:
        return round(self.text / self.rows) if self.rows else 0

    @property
    def png_per_row(self) -> int:
        return round(self.png / self.rows) if self.rows else 0

    @property
    def per_row(self) -> int:
        return self.text_per_row + self.png_per_row


def row_bytes(raw: Path) -> RowBytes:
    """The rows of `raw` (run-chains' OUT: one folder per chain with rows.jsonl and its step PNGs)."""
    rows = text = 0
    for f in sorted(raw.glob("*/rows.jsonl")):
        lines = f.read_bytes().splitlines(keepends=True)
        rows += len(lines)
        text += sum(len(line) for line in lines)
    png = sum(p.stat().st_size for p in raw.glob("*/step_*.png"))
    return RowBytes(rows, text, png)


@dataclass(frozen=True)
class MarksColumn:
    """One run of the side-by-side pair: marks off or on."""

    marks: bool
    kept: int
    chains: int
    cpu_s: float
    bytes: RowBytes

    @property
    def cpu_s_per_kept(self) -> float:
        return round(self.cpu_s / max(self.kept, 1), 2)


def table(off: MarksColumn, on: MarksColumn) -> str:
    """The two runs and what marks add, as the bench prints it."""
    head = f"{'':30}{'marks off':>12}{'marks on':>12}{'added':>12}"
    rows = [
        ("kept / chains", f"{off.kept}/{off.chains}", f"{on.kept}/{on.chains}", ""),
        ("CPU s / kept chain", off.cpu_s_per_kept, on.cpu_s_per_kept, round(on.cpu_s_per_kept - off.cpu_s_per_kept, 2)),
        ("rows", off.bytes.rows, on.bytes.rows, ""),
        ("bytes / row", off.bytes.per_row, on.bytes.per_row, _share(off.bytes.per_row, on.bytes.per_row)),
        ("  text (JSON line)", off.bytes.text_per_row, on.bytes.text_per_row, _share(off.bytes.text_per_row, on.bytes.text_per_row)),
        ("  screenshot (PNG)", off.bytes.png_per_row, on.bytes.png_per_row, _share(off.bytes.png_per_row, on.bytes.png_per_row)),
    ]  # fmt: skip
    return "\n".join([head, *(f"{n:30}{a!s:>12}{b!s:>12}{c!s:>12}" for n, a, b, c in rows)])


def _share(a: int, b: int) -> str:
    """b over a as a signed percentage ('' when a is 0)."""
    return f"{(b - a) / a * 100:+.1f} %" if a else ""
