"""The DVC pipeline end to end on a copy of the project with a few chains: repro, what reruns, metrics, and
a push/pull round trip through a local remote that restores the dataset byte for byte."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from project_copy import sh

ROOT = Path(__file__).resolve().parents[1]
VERSION = yaml.safe_load((ROOT / "params.yaml").read_text())["version"]  # the default dataset version
BIN = Path(sys.executable).parent
COPY = [
    "dvc.yaml",
    "params.yaml",
    "Dockerfile",
    "requirements/requirements.lock",
    "pyproject.toml",
    "plandvc",
]

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]  # the whole pipeline, eval stages included


def tree(d: Path) -> dict[str, bytes]:
    return {p.relative_to(d).as_posix(): p.read_bytes() for p in sorted(d.rglob("*")) if p.is_file()}


def set_param(repo: Path, section: str, old: str, new: str) -> None:
    """Replace `old` by `new` in params.yaml's top-level `section` (other sections have keys of the same name,
    e.g. world.seed and chains.seed)."""
    p = repo / "params.yaml"
    text = p.read_text()
    at = text.index(old, text.index(f"\n{section}:"))
    p.write_text(text[:at] + new + text[at + len(old) :])


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    repo = tmp_path_factory.mktemp("pipeline") / "repo"
    repo.mkdir()
    for name in COPY:
        src = ROOT / name
        if src.is_dir():
            shutil.copytree(src, repo / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            (repo / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, repo / name)
    # a small world (two domains, one of them held out) and pool, and a few chains: every stage runs for real
    set_param(repo, "world", "  domains: all", "  domains: recipes,store")
    set_param(repo, "world", "  per_macro: 7", "  per_macro: 1")
    set_param(repo, "chains", "  n: 300", "  n: 4")
    set_param(repo, "eval", "  n: 24", "  n: 4")
    sh(repo, "git", "init", "-q")
    sh(repo, "dvc", "init", "-q")
    sh(repo, "dvc", "config", "core.analytics", "false")
    sh(repo, "dvc", "repro")
    return repo


def test_repro_makes_the_versioned_dataset_and_its_metrics(repo: Path) -> None:
    rows = repo / "data" / "planner_rows" / VERSION
    assert (rows / "manifest.json").exists()
    assert any(p.name == "rows.jsonl" for p in rows.rglob("rows.jsonl"))
    shown = sh(repo, "dvc", "metrics", "show").stdout
    assert "filter.json" in shown and "kept" in shown
    assert "up to date" in sh(repo, "dvc", "status").stdout


def test_a_second_repro_is_a_no_op(repo: Path) -> None:
    out = sh(repo, "dvc", "repro").stdout
    assert "Running stage" not in out, out


def test_a_new_chain_seed_reruns_from_chain_specs_not_pool_items(repo: Path) -> None:
    set_param(repo, "chains", "  seed: 0", "  seed: 1")
    try:
        out = sh(repo, "dvc", "repro", "--dry").stdout
        assert "Running stage 'chain_specs'" in out and "Running stage 'pool_items'" not in out
    finally:
        set_param(repo, "chains", "  seed: 1", "  seed: 0")


def test_a_page_change_rerecords_the_pool_not_the_world(repo: Path) -> None:
    """The page templates shape the recordings and the rows, not the generated sites."""
    css = repo / "plandvc" / "sites" / "templates" / "world" / "site.css"
    before = css.read_bytes()
    css.write_bytes(before + b"\n/* a note */\n")
    try:
        out = sh(repo, "dvc", "repro", "--dry").stdout
        assert "Running stage 'make_pool'" in out and "Running stage 'run_chains'" in out
        assert "Running stage 'make_sites'" not in out
    finally:
        css.write_bytes(before)
    assert "up to date" in sh(repo, "dvc", "status").stdout


def test_the_pipeline_records_its_own_world_and_pool(repo: Path) -> None:
    """make_sites and make_pool made the world the rows come from: only the chosen domains, the held-out one in
    the test split, and a pool of their sites."""
    split = json.loads((repo / "data" / "world" / "site_split.json").read_text())
    assert {s.split("-")[0] for s in split["train"]} == {"recipes"}
    assert {s.split("-")[0] for s in split["test"]} == {"store"}
    kept = [
        json.loads(line) for line in (repo / "data" / "world-pool" / "kept.jsonl").read_text().splitlines()
    ]
    assert kept and {k["site"] for k in kept} == {*split["train"], *split["test"]}


def test_workers_never_change_a_stage(repo: Path) -> None:
    env_out = subprocess.run(
        ["dvc", "status"],
        cwd=repo,
        capture_output=True,
        text=True,
        env={**os.environ, "PATH": f"{BIN}:{os.environ['PATH']}", "PLANDVC_WORKERS": "1"},
    )
    assert "up to date" in env_out.stdout


def test_push_then_pull_restores_the_dataset_byte_for_byte(repo: Path, tmp_path: Path) -> None:
    rows = repo / "data" / "planner_rows" / VERSION
    want = tree(rows)
    sh(repo, "dvc", "remote", "add", "-f", "-d", "local", str(tmp_path / "remote"))
    sh(repo, "dvc", "push")
    shutil.rmtree(rows)
    shutil.rmtree(repo / ".dvc" / "cache")
    sh(repo, "dvc", "pull", f"data/planner_rows/{VERSION}")
    assert tree(rows) == want


def test_export_stage_loads_in_every_format_from_a_real_run(repo: Path) -> None:
    """The export of the real (small) run: the Parquet loads with `datasets` as 1280x800 Image features with
    as many images as placeholders, and the WebDataset shards decode; metrics/export.json has the leak check."""
    import datasets
    import webdataset as wds

    out = repo / "data" / "exports" / VERSION
    assert {p.name for p in out.iterdir()} >= {"hf", "llamafactory", "openai", "wds", "README.md"}
    leak = json.loads((repo / "metrics" / "export.json").read_text())["leak"]
    assert leak == {"shared_parts": 0, "shared_prompts": 0, "duplicate_rows": 0}
    files = {p.name.split("-")[0]: str(p) for p in (out / "hf" / "data").glob("*.parquet")}
    assert "train" in files  # a split with no example (val, with 4 chains) gets no file
    ds = datasets.load_dataset("parquet", data_files=files)
    n = 0
    for split in ds.values():
        for row in split:
            assert sum(p["type"] == "image" for m in row["prompt"] for p in m["content"]) == len(
                row["images"]
            )
            assert all(img.size == (1280, 800) for img in row["images"])
            n += 1
    assert n > 0
    tars = sorted(str(p) for p in (out / "wds").glob("*.tar"))
    samples = list(wds.WebDataset(tars, shardshuffle=False, empty_check=False).decode("pil"))
    assert len(samples) == n and all(s["img0.png"].size == (1280, 800) for s in samples)


def test_pull_of_one_export_format_alone(repo: Path, tmp_path: Path) -> None:
    exports = repo / "data" / "exports" / VERSION
    want = tree(exports / "hf")
    sh(repo, "dvc", "commit", "-f")  # the cache holds every output again (a test before may have emptied it)
    sh(repo, "dvc", "remote", "add", "-f", "-d", "local2", str(tmp_path / "remote"))
    sh(repo, "dvc", "push")
    shutil.rmtree(exports)
    shutil.rmtree(repo / ".dvc" / "cache")
    sh(repo, "dvc", "pull", f"data/exports/{VERSION}/hf")
    assert tree(exports / "hf") == want
    assert not (exports / "wds").exists() and not (exports / "openai").exists()
    sh(repo, "dvc", "pull")  # the repo as it was, for the tests after this one
