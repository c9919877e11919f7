"""`plandvc eval-table`: every planner on every held-out domain side by side, read from the metrics files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from plandvc.errors import InputError
from plandvc.eval.table import collect, side_by_side


def metrics(planner: str, chains: int, strict: float, lenient: float, success: int) -> dict[str, object]:
    return {
        "planner": planner,
        "chains": chains,
        "teacher_forced": {"step_accuracy": strict, "step_accuracy_lenient": lenient},
        "closed_loop": {"success": success, "episodes": chains},
    }


def test_the_table_puts_each_app_beside_the_generated_domains(tmp_path: Path) -> None:
    (tmp_path / "eval.json").write_text(json.dumps({"skipped": "no planner_url"}))
    for name, acc, ok in (("oracle", 1.0, 24), ("copy", 0.12, 0)):
        (tmp_path / f"eval-reference-{name}.json").write_text(
            json.dumps(metrics(f"reference:{name}", 24, acc, acc + 0.03 * (name == "copy"), ok))
        )
    apps = {
        "oracle": metrics("reference:oracle", 30, 1.0, 1.0, 30),
        "qwen": metrics("qwen:q", 30, 0.5, 0.5, 3),
    }
    (tmp_path / "eval-apps-trac.json").write_text(json.dumps(apps))
    table = side_by_side(collect(tmp_path)).splitlines()
    assert table[0] == "| planner | generated (24 chains) | trac (30 chains) |"
    assert table[2] == "| qwen | — | 0.50, 3 of 30 |"  # a served planner first; absent where it was not run
    assert table[3] == "| oracle | 1.00, 24 of 24 | 1.00, 30 of 30 |"
    assert table[4] == "| copy | 0.12 / 0.15, 0 of 24 | — |"


def test_the_training_phrasings_column_stands_beside_the_held_out_one(tmp_path: Path) -> None:
    """Every evaluation prints both (issue 46): eval-training-<name>.json (the same chains in the training
    phrasings, teacher-forced only) is a column of its own, its cells without closed-loop counts."""
    for name, held, train in (("oracle", 1.0, 1.0), ("template", 0.11, 0.86)):
        (tmp_path / f"eval-reference-{name}.json").write_text(
            json.dumps(metrics(f"reference:{name}", 24, held, held, 24 if name == "oracle" else 0))
        )
        tf = {"step_accuracy": train, "by_goal": {"detail": {"accuracy": train, "correct": 1, "turns": 1}}}
        m = {"planner": f"reference:{name}", "chains": 24, "teacher_forced": tf}
        (tmp_path / f"eval-training-{name}.json").write_text(json.dumps(m))
    table = side_by_side(collect(tmp_path)).splitlines()
    assert table[0] == "| planner | generated (24 chains) | generated, training phrasings (24 chains) |"
    assert table[2] == "| oracle | 1.00, 24 of 24 | 1.00 |"
    assert table[3] == "| template | 0.11, 0 of 24 | 0.86 |"
    goals = "\n".join(table)
    assert "| generated, training phrasings: planner | goal detail | after a report |" in goals
    assert "| template | 0.86 | — |" in goals


def test_no_metrics_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no evaluation metrics"):
        side_by_side(collect(tmp_path))
    from plandvc.cli import cli

    got = CliRunner().invoke(cli, ["eval-table", "--metrics", str(tmp_path)])
    assert got.exit_code != 0 and "no evaluation metrics" in got.output


def test_the_committed_metrics_give_the_reference_rows() -> None:
    """On the repository's own metrics: the four references on the generated domains, the oracle at 1.00."""
    root = Path(__file__).resolve().parents[1]
    rows = side_by_side(collect(root / "metrics")).splitlines()
    assert [r.split(" | ")[0] for r in rows[2:6]] == [
        "| oracle",
        "| copy",
        "| always-done",
        "| random-family",
    ]
    assert rows[2].split(" | ")[1].startswith("1.00, ")
