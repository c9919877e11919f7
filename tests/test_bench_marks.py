"""The bench's set-of-marks pair (plandvc.bench.marks): what a row of a run-chains output weighs, and the table
that sets marks off beside marks on."""

from __future__ import annotations

from pathlib import Path

from plandvc.bench.marks import MarksColumn, RowBytes, row_bytes, table


def write_run(raw: Path, rows: dict[str, list[bytes]], png: int) -> None:
    """A run-chains OUT: per chain its rows.jsonl and one step PNG of `png` bytes per row, and files that are
    no row's (the episode, a results file) that must not count."""
    for chain, lines in rows.items():
        d = raw / chain
        d.mkdir(parents=True)
        (d / "rows.jsonl").write_bytes(b"".join(line + b"\n" for line in lines))
        for i in range(len(lines)):
            (d / f"step_{i:02d}.png").write_bytes(b"\x89PNG" + b"x" * (png - 4))
        (d / "episode.json").write_bytes(b"{}" * 500)
    (raw / "results.jsonl").write_bytes(b"{}\n" * 100)


def test_row_bytes_counts_the_rows_lines_and_their_screenshots(tmp_path: Path) -> None:
    write_run(tmp_path / "off", {"c1": [b"a" * 99, b"b" * 199], "c2": [b"c" * 299]}, png=1000)
    got = row_bytes(tmp_path / "off")
    assert got == RowBytes(rows=3, text=600, png=3000)
    assert (got.text_per_row, got.png_per_row, got.per_row) == (200, 1000, 1200)
    assert row_bytes(tmp_path / "none") == RowBytes(0, 0, 0) and RowBytes(0, 0, 0).per_row == 0


def test_the_table_shows_what_marks_add(tmp_path: Path) -> None:
    write_run(tmp_path / "off", {"c1": [b"a" * 199]}, png=1000)
    write_run(tmp_path / "on", {"c1": [b"a" * 199]}, png=1100)
    off = MarksColumn(False, kept=4, chains=4, cpu_s=8.0, bytes=row_bytes(tmp_path / "off"))
    on = MarksColumn(True, kept=4, chains=4, cpu_s=8.4, bytes=row_bytes(tmp_path / "on"))
    lines = {line[:30].strip(): line[30:].split() for line in table(off, on).splitlines()[1:]}
    assert lines["CPU s / kept chain"] == ["2.0", "2.1", "0.1"]
    assert lines["screenshot (PNG)"] == ["1000", "1100", "+10.0", "%"]
    assert lines["text (JSON line)"] == ["200", "200", "+0.0", "%"]
    assert lines["bytes / row"] == ["1200", "1300", "+8.3", "%"]
    # a pair whose marks cost nothing shows no difference: the figures come from the runs, not the labels
    same = table(off, MarksColumn(True, 4, 4, 8.0, off.bytes))
    assert "+0.0 %" in same and "+10.0 %" not in same
