"""bench/bench_chains.py runs and reports seconds, on a small generated pool."""

from __future__ import annotations

import importlib.util
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1] / "bench" / "bench_chains.py"


def test_bench_runs_small() -> None:
    spec = importlib.util.spec_from_file_location("bench_chains", BENCH)
    assert spec and spec.loader
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    res = bench.run(trajectories=300, chains=60)
    assert res["trajectories"] == 300 and res["chains"] == 60
    assert res["dropped"]["test_site"] == 30  # one site in ten is the test site
    # reading 300 trajectory directories takes well over the 1 ms the figure is rounded to: 0.0 would mean the
    # clock around pool_items never ran; the walk of 60 chains can take less, so it is only a number of seconds
    assert res["pool_items_s"] > 0 and isinstance(res["chain_specs_s"], float)
    assert sum(res["by_size"].values()) == 60
