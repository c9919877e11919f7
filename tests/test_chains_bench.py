"""plandvc.bench.chains runs and reports seconds, on a small generated pool."""

from __future__ import annotations

from plandvc.bench import chains as bench


def test_bench_runs_small() -> None:
    res = bench.run(trajectories=300, chains=60)
    assert res["trajectories"] == 300 and res["chains"] == 60
    assert res["dropped"]["test_site"] == 30  # one site in ten is the test site
    # reading 300 trajectory directories takes well over the 1 ms the figure is rounded to: 0.0 would mean the
    # clock around pool_items never ran; the walk of 60 chains can take less, so it is only a number of seconds
    assert res["pool_items_s"] > 0 and isinstance(res["chain_specs_s"], float)
    assert sum(res["by_size"].values()) == 60
