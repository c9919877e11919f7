"""`plandvc filter-rows` from the command line: help with an example, a summary, one line on bad input."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import orjson
from click.testing import CliRunner
from raw_chains import failed, make_chain, tree, write_results

from plandvc.cli import cli
from plandvc.io import read_json


def _raw(tmp_path: Path) -> Path:
    raw = tmp_path / "raw"
    make_chain(raw, "shop", ["a1", "b1"])
    make_chain(raw, "shop", ["a2", "c1"], answer="Ada Byrne", shade=3)
    write_results(raw, [failed(raw, "shop", ["a3", "b3"], "script not finished")])
    return raw


def _plandvc(*args: str | Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "plandvc", *map(str, args)], capture_output=True, text=True, check=False
    )


def test_help_has_an_example():
    result = CliRunner().invoke(cli, ["filter-rows", "--help"])
    assert result.exit_code == 0
    assert "Example:" in result.output
    assert "plandvc filter-rows --raw data/raw --out data/planner_rows/v1 --metrics metrics" in result.output
    assert "--val-share" in result.output and "--image-size" in result.output


def test_cli_writes_the_dataset_and_metrics(tmp_path):
    raw = _raw(tmp_path)
    broken = {"key": "plan-shop-zzzzzzzzzz", "site": "shop", "parts": ["a9"], "ok": True, "error": None}
    with (raw / "results.jsonl").open("ab") as f:  # an ok result whose dir is broken: dropped, not a crash
        f.write(orjson.dumps(broken) + b"\n")
    (raw / broken["key"]).mkdir()
    out, metrics = tmp_path / "rows" / "v1", tmp_path / "metrics"
    proc = _plandvc(
        "filter-rows",
        "--raw",
        raw,
        "--out",
        out,
        "--metrics",
        metrics,
        "--val-share",
        "0.5",
        "--image-size",
        "128x80",
    )
    assert proc.returncode == 0, proc.stderr
    assert "dropped plan-shop-zzzzzzzzzz: bad_episode: episode.json: missing" in proc.stderr
    assert "kept 2 of 3 ok chains (4 in raw), 6 rows" in proc.stderr.splitlines()[-1]
    manifest = read_json(out / "manifest.json")
    assert manifest["split"]["val_share"] == 0.5 and len(manifest["chains"]) == 2
    assert read_json(metrics / "filter.json")["kept"] == 2


def test_image_size_option(tmp_path):
    raw = _raw(tmp_path)
    out, metrics = tmp_path / "rows", tmp_path / "m"
    runner = CliRunner()
    args = ["filter-rows", "--raw", str(raw), "--out", str(out), "--metrics", str(metrics), "--quiet"]
    result = runner.invoke(cli, args)  # the default, 1280x800
    assert result.exit_code == 0 and "kept 0 of 2 ok chains" in result.output
    assert read_json(metrics / "filter.json")["dropped"]["bad_image"] == 2
    result = runner.invoke(cli, [*args, "--image-size", "128x80"])
    assert result.exit_code == 0 and "kept 2 of 2 ok chains" in result.output
    result = runner.invoke(cli, [*args, "--image-size", "640x400"])
    assert result.exit_code == 0 and "kept 0 of 2 ok chains" in result.output
    assert result.output.count("\n") == 1 and "dropped 2" in result.output  # --quiet: only the summary
    result = runner.invoke(cli, [*args, "--image-size", "any"])
    assert result.exit_code == 0 and "kept 2 of 2" in result.output
    result = runner.invoke(cli, [*args, "--image-size", "big"])
    assert result.exit_code != 0 and "--image-size 'big' is not WIDTHxHEIGHT" in result.output


def test_bad_input_is_one_line_and_keeps_the_dataset(tmp_path):
    raw = _raw(tmp_path)
    out, metrics = tmp_path / "rows" / "v1", tmp_path / "metrics"
    assert _plandvc("filter-rows", "--raw", raw, "--out", out, "--metrics", metrics).returncode == 0
    before = tree(out)
    (raw / "results.jsonl").unlink()
    proc = _plandvc("filter-rows", "--raw", raw, "--out", out, "--metrics", metrics)
    assert proc.returncode != 0
    assert proc.stderr.strip().count("\n") == 0, proc.stderr
    assert "results.jsonl: file not found" in proc.stderr and "Traceback" not in proc.stderr
    assert tree(out) == before
    proc = _plandvc("filter-rows", "--raw", tmp_path / "nowhere", "--out", out, "--metrics", metrics)
    assert proc.returncode != 0 and proc.stderr.strip().count("\n") == 0
    assert "nowhere: not a directory" in proc.stderr
    assert tree(out) == before
