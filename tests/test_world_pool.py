"""`plandvc make-pool` on the generated world (real server, real Chromium): on a sample of sites that together
show every layout family, navigation, pagination, banner, form style and control implementation, every macro
keeps trajectories, and every one of those pieces is driven by a kept trajectory."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from world_sample import RecordedSample

from plandvc.chains.items import pool_items
from plandvc.chains.recovery import candidates, siblings_of
from plandvc.macros import MACROS
from plandvc.memory.text import missing_values
from plandvc.pool.coverage import pool_coverage, site_pieces
from plandvc.pool.store import Pool
from plandvc.run.recovery import plan_failure
from plandvc.sites.spec import load_sites


@pytest.mark.slow
@pytest.mark.timeout(2400)  # the session's recording (`world_sample`) is made by the first test that asks
def test_make_pool_keeps_every_macro_and_piece_on_a_covering_sample(world_sample: RecordedSample):
    assert world_sample.exit_code == 0, world_sample.output
    sites = world_sample.sites
    assert set(world_sample.covering) <= set(load_sites(sites))
    cov = pool_coverage(world_sample.pool, sites)
    print(cov.table(by_piece=False), cov.table(by_piece=True), dict(cov.reasons))
    assert all(cov.kept[m] >= 1 for m in MACROS), cov.table(by_piece=False)
    total = sum(cov.kept.values()) + sum(cov.rejected.values())
    assert sum(cov.kept.values()) >= 0.95 * total, cov.reasons
    # every piece any sampled site shows (the covering sample's, which are the whole world's, and the others')
    shown = set().union(*(site_pieces(s) for s in load_sites(sites).values()))
    missing = sorted(p for p in shown if cov.kept_by_piece[p] == 0)
    assert not missing, f"no kept trajectory drives or shows {missing}"
    assert corrective_leaves_out(world_sample.pool, sites) == []


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
