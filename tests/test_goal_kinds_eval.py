"""Held-out chains of the new goal kinds (`eval.goal_kinds`) on the generated world's test domains: eval-specs
keeps them (their live steps pass every gate in real Chromium), and the oracle scores 1.0 teacher-forced and
succeeds on every one in the closed loop, where its live steps are done again."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from plandvc.eval.closed import LoopConfig
from plandvc.eval.run import EvalConfig, evaluate
from plandvc.eval.specs import SpecsConfig, eval_specs, load_held_out

ROOT = Path(__file__).resolve().parents[1]
POOL = ROOT / "data" / "world-pool"
MIX = "detail:0.3,lookup:0.2,compare:0.1,act:0.2,carry:0.2"
N = 10
pytestmark = pytest.mark.slow


def test_new_goal_kinds_are_held_out_and_the_oracle_scores_them_exactly(tmp_path: Path, world0: Path) -> None:
    cfg = SpecsConfig(
        POOL, world0, tmp_path / "eval", n=N, seed=0, workers=2, cache=tmp_path / "cache",
        request="composed", goal_share=1.0, goal_kinds=MIX,
    )  # fmt: skip
    summary = eval_specs(cfg)
    chains = load_held_out(tmp_path / "eval")
    assert summary["held_out"] == len(chains) == N, summary
    kinds = Counter(c.line["goal"]["kind"] for c in chains)
    assert set(kinds) == {"detail", "lookup", "compare", "act", "carry"}, kinds
    turns = sum(len(c.turns) for c in chains)
    loop = LoopConfig(POOL, world0)
    out = evaluate(
        EvalConfig(specs=tmp_path / "eval", out=tmp_path / "o", metrics=tmp_path / "o.json", loop=loop,
                   mode="both", reference="oracle")
    )  # fmt: skip
    tf, cl = out["teacher_forced"], out["closed_loop"]
    assert (tf["correct"], tf["turns"], tf["step_accuracy"]) == (turns, turns, 1.0), tf
    assert (cl["success"], cl["episodes"]) == (N, N), cl
    done = evaluate(
        EvalConfig(specs=tmp_path / "eval", out=tmp_path / "d", metrics=tmp_path / "d.json", loop=loop,
                   mode="closed-loop", reference="always-done")
    )["closed_loop"]  # fmt: skip
    assert done["success"] == 0
