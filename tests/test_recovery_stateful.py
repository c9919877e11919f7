"""A part on a stateful control (a calendar popup, clickable sort headers) gets no `wrong_value` failure: its
recorded steps move from the state they were recorded in (the calendar opens at the current date's month, a
header flips the direction it shows), so after a wrong value they would not redo the part. pool-items marks
those parts from the site specs; the other controls of the same macros keep the failure."""

from __future__ import annotations

from pathlib import Path
from typing import cast

from chain_pools import rec

from plandvc.chains.items import STATEFUL_IMPLS, stateful_controls
from plandvc.chains.recovery import candidates, siblings_of
from plandvc.records import ItemRecord
from plandvc.sites.spec import load_sites
from plandvc.world.make import make_world

ROOT = Path(__file__).resolve().parents[1]


def test_a_stateful_part_has_no_wrong_value_failure() -> None:
    same = {"macro": "filter_by_date_range", "control": "c-date", "start": "/sites/shop/orders"}
    plain = [cast(ItemRecord, rec(i, **same, instruction=f"Dates {i}.")) for i in ("a", "b")]
    marked = [cast(ItemRecord, {**r, "stateful": True}) for r in plain]
    assert "wrong_value" in dict(candidates(plain[0], siblings_of(plain)))
    kinds = dict(candidates(marked[0], siblings_of(marked)))
    assert "wrong_value" not in kinds and "stopped_short" in kinds


def test_pool_items_marks_exactly_the_calendar_and_header_controls(tmp_path: Path) -> None:
    make_world(tmp_path / "w", seed=0)
    specs = load_sites(tmp_path / "w")
    marked = stateful_controls(tmp_path / "w")
    want = {
        (s, c.control_id) for s, spec in specs.items() for _, c in spec.controls if c.impl in STATEFUL_IMPLS
    }
    assert marked == want and {
        c.impl for s, spec in specs.items() for _, c in spec.controls if (s, c.control_id) in marked
    } == {"calendar", "headers"}
    assert stateful_controls(ROOT / "data" / "sites") == set()  # the hand-written sites: plain controls only
