"""The world sample that make-pool records once per test run (the `world_sample` fixture of conftest.py) and
the record of that recording the world tests read."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from plandvc.io import read_json

# make-pool's sample of the world: the covering sample (every layout family, navigation, pagination, banner,
# form style and control implementation); two sites with tabs, an autocomplete search and numbered pages and
# no banner (a dashboard and a card grid) on which the widget macros' chains run; and one with numbered pages,
# no banner and a go_to_page task that starts at home (seed 0), on which a go_to_page chain runs
SAMPLE_EXTRA = ("papers-scholarvault", "courses-skillbridge-academy", "hotels-harbour-stays")
WIDGET_SITES = SAMPLE_EXTRA[:2]
SAMPLE_PER_MACRO = 3


@dataclass(frozen=True)
class RecordedSample:
    """One `plandvc make-pool --per-macro 3 --workers 2` on a sample of `world0`: its sites folder, its pool,
    what the command printed and its exit code, and the (site, macro) counts of its accepted and rejected
    tasks. Read-only: a test that edits a part copies the pool first."""

    sites: Path
    pool: Path
    exit_code: int
    output: str
    covering: tuple[str, ...]
    per_macro: int
    accepted: Counter[tuple[str, str]]
    rejected: Counter[tuple[str, str]]


def recorded_counts(pool: Path, verdict: str) -> Counter[tuple[str, str]]:
    """(site, macro) -> how many tasks of a pool's run r1 have `verdict` (accepted or rejected)."""
    tasks = (read_json(f) for f in sorted((pool / "runs" / "r1" / verdict).glob("*/task.json")))
    return Counter((t["site"], t["macro"]) for t in tasks)
