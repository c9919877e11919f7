"""`plandvc make-pool` on the generated world (real server, real Chromium): on a sample of sites that together
show every layout family, navigation, pagination, banner, form style and control implementation, every macro
keeps trajectories, and every one of those pieces is driven by a kept trajectory."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from plandvc.chains.items import pool_items
from plandvc.chains.recovery import candidates, siblings_of
from plandvc.cli import cli
from plandvc.io import write_json
from plandvc.macros import MACROS
from plandvc.memory.text import missing_values
from plandvc.pool.coverage import covering_sample, pool_coverage, site_pieces
from plandvc.pool.store import Pool
from plandvc.ports import free_ports
from plandvc.run.recovery import plan_failure
from plandvc.sites.spec import load_sites
from plandvc.world.make import make_world


@pytest.mark.slow
def test_make_pool_keeps_every_macro_and_piece_on_a_covering_sample(tmp_path: Path):
    world = tmp_path / "world"
    make_world(world, seed=0)
    specs = load_sites(world)
    sample = covering_sample(specs)
    sites = tmp_path / "sample"
    for name in sample:
        shutil.copytree(world / name, sites / name)
    write_json(sites / "site_split.json", {"train": sample, "test": []})
    ports = ",".join(str(p) for p in free_ports(2))
    r = CliRunner().invoke(
        cli,
        ["make-pool", "--sites", str(sites), "--out", str(tmp_path / "pool"), "--per-macro", "3",
         "--workers", "2", "--ports", ports],
        catch_exceptions=False,
    )  # fmt: skip
    assert r.exit_code == 0, r.output
    cov = pool_coverage(tmp_path / "pool", sites)
    print(cov.table(by_piece=False), cov.table(by_piece=True), dict(cov.reasons))
    assert all(cov.kept[m] >= 1 for m in MACROS), cov.table(by_piece=False)
    total = sum(cov.kept.values()) + sum(cov.rejected.values())
    assert sum(cov.kept.values()) >= 0.95 * total, cov.reasons
    shown = set().union(*(site_pieces(load_sites(sites)[n]) for n in sample))
    missing = sorted(p for p in shown if cov.kept_by_piece[p] == 0)
    assert not missing, f"no kept trajectory drives or shows {missing}"
    assert corrective_leaves_out(tmp_path / "pool", sites) == []


def corrective_leaves_out(pool_dir: Path, sites: Path) -> list[tuple[str, str, str | None, list[str]]]:
    """Every part, failure kind and sibling of a pool whose corrective instruction leaves out a value of the
    part's own instruction (the world's labels differ from the hand-written sites': a "Maximum" field of a
    "Max rows" filter; a suggestion chosen after typing its first letters)."""
    pool = Pool.open(pool_dir)
    items = pool_items(pool_dir, sites)[0]
    sibs = siblings_of(items)
    out, seen = [], 0
    for r in items:
        for kind, others in candidates(r, sibs):
            for sib in others or [None]:
                failure: Any = {"part": 0, "kind": kind, **({"sibling": sib} if sib else {})}
                got = plan_failure(failure, pool.part(r["id"]), pool.part(sib) if sib else None, "k")
                if missing := missing_values(got.instruction, [r["instruction"]]):
                    out.append((r["id"], kind, sib, missing))
                seen += 1
    assert seen > 100
    return out
