"""docs/POOL.md end to end: add the example site, record its pool, check it, point params.yaml at both and
`dvc repro` the training stages on them (and see eval_specs refuse a pool without a test site) (real make-pool in Chromium, real check-pool, real DVC, real run-chains)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml
from project_copy import sh  # runs a command in the copy, with the venv on PATH and a cache of its own

from plandvc.ports import free_ports

ROOT = Path(__file__).resolve().parents[1]
VERSION = yaml.safe_load((ROOT / "params.yaml").read_text())["version"]  # the default dataset version
EXAMPLE = ROOT / "docs" / "examples" / "sites"
COPY = [
    "dvc.yaml",
    "params.yaml",
    "Dockerfile",
    "requirements/requirements.lock",
    "pyproject.toml",
    "plandvc",
]


@pytest.mark.slow
@pytest.mark.timeout(2400)  # make-pool of 73 tasks, then dvc repro: ~5 + 3 min on a loaded 2-core machine
def test_the_guide_on_a_new_site(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    skip = shutil.ignore_patterns("__pycache__")
    for name in COPY:
        (ROOT / name).is_dir() and shutil.copytree(ROOT / name, repo / name, ignore=skip)
        (ROOT / name).is_file() and (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (ROOT / name).is_file() and shutil.copy2(ROOT / name, repo / name)
    sites, pool = repo / "data" / "garden" / "sites", repo / "data" / "garden" / "pool"
    shutil.copytree(EXAMPLE, sites)

    port = str(free_ports(1)[0])  # never make-pool's default 8350: a `make gen` may be using it
    made = sh(
        repo,
        "plandvc",
        "make-pool",
        "--sites",
        str(sites),
        "--out",
        str(pool),
        "--workers",
        "2",
        "--ports",
        port,
    )
    assert "kept 73" in made.stdout + made.stderr
    checked = sh(repo, "plandvc", "check-pool", "--pool", "data/garden/pool", "--sites", "data/garden/sites")
    assert (
        checked.stdout == ""
        and "73 kept parts (73 sound" in checked.stderr
        and "0 problems" in checked.stderr
    )

    # the check can fail here too: a step whose element is not on its page
    victim = sorted((pool / "runs" / "r1" / "accepted").glob("garden-filter_by_dropdown-*"))[0]
    elements = json.loads((victim / "elements.json").read_text())
    saved = (victim / "elements.json").read_bytes()
    elements[0]["attrs"]["data-control-id"] = "plants-colour"
    (victim / "elements.json").write_text(json.dumps(elements))
    bad = sh(
        repo,
        "plandvc",
        "check-pool",
        "--pool",
        "data/garden/pool",
        "--sites",
        "data/garden/sites",
        check=False,
    )
    assert (
        bad.returncode == 1
        and f"{victim.name}/trajectory.json: steps[0].element: no element like" in bad.stdout
    )
    (victim / "elements.json").write_bytes(saved)

    params = (repo / "params.yaml").read_text()
    for old, new in (
        ("\nsites: data/world", "\nsites: data/garden/sites"),
        ("  dir: data/world-pool", "  dir: data/garden/pool"),
        ("  ids: data/world-pool/pool_ids.txt", "  ids: data/garden/pool/pool_ids.txt"),
        ("  n: 300", "  n: 3"),
    ):
        assert old in params, old
        params = params.replace(old, new, 1)
    (repo / "params.yaml").write_text(params)
    sh(repo, "git", "init", "-q")
    sh(repo, "dvc", "init", "-q")
    sh(repo, "dvc", "config", "core.analytics", "false")
    out = sh(repo, "dvc", "repro", "export", "view")  # the training stages: garden has no test site
    assert "Running stage 'run_chains'" in out.stdout
    held_out = sh(repo, "dvc", "repro", "eval_specs", check=False)  # held-out chains need a test site
    assert held_out.returncode != 0
    assert "site_split.json: no usable trajectory of a test site" in held_out.stdout + held_out.stderr
    items = [json.loads(line) for line in (repo / "data" / "items.jsonl").read_text().splitlines()]
    assert len(items) == 69 and {r["site"] for r in items} == {"garden"}
    metrics = json.loads((repo / "metrics" / "filter.json").read_text())
    assert metrics["chains_raw"] == 3 and metrics["kept"] == 3, metrics
    manifest = json.loads((repo / "data" / "planner_rows" / VERSION / "manifest.json").read_text())
    assert {c["site"] for c in manifest["chains"]} == {"garden"} and manifest["counts"]["rows"] > 0
