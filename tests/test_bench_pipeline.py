"""The bench's world chains take the pipeline's own params from params.yaml (plandvc/bench/pipeline.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from plandvc.bench.pipeline import read_pipeline_params
from plandvc.io import InputError

ROOT = Path(__file__).resolve().parents[1]


def test_reads_the_pipelines_chain_and_prompt_params() -> None:
    doc = yaml.safe_load((ROOT / "params.yaml").read_text())
    p = read_pipeline_params(ROOT / "params.yaml", 12, 3)
    assert (p.chains.n, p.chains.seed) == (12, 3)  # the bench's own
    for key in ("request", "goal_share", "goal_kinds", "recovery_share", "phrasing", "hygiene", "home_rule"):
        assert getattr(p.chains, key) == doc["chains"][key], key
    assert p.chains.sizes == tuple(int(x) for x in str(doc["chains"]["sizes"]).split(","))
    assert (p.dialect, p.marks) == (doc["prompt"]["dialect"], doc["prompt"]["marks"])


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda d: d["chains"].update(goal_share="lots"), "chains.goal_share"),
        (lambda d: d["chains"].update(hygiene="yes"), "chains.hygiene"),
        (lambda d: d["prompt"].update(dialect="gpt-9"), "prompt.dialect"),
        (lambda d: d["prompt"].update(marks="on"), "prompt.marks"),
        (lambda d: d.pop("chains"), "`chains`"),
    ],
)
def test_a_bad_value_is_one_line_naming_the_key(tmp_path: Path, edit, message: str) -> None:  # type: ignore[no-untyped-def]
    doc = yaml.safe_load((ROOT / "params.yaml").read_text())
    edit(doc)
    bad = tmp_path / "params.yaml"
    bad.write_text(yaml.safe_dump(doc))
    with pytest.raises(InputError, match=message) as e:
        read_pipeline_params(bad, 12, 3)
    assert str(bad) in str(e.value) and "\n" not in str(e.value)
