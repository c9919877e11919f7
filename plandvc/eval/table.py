"""Every planner on every held-out domain, side by side: the generated test domains (`metrics/eval.json`,
`metrics/eval-reference-<name>.json`) and each application (`metrics/eval-apps-<app>.json`), as `make eval`
prints them.

A cell is the teacher-forced step accuracy (strict, the lenient one after a slash when it differs) and the
closed loop's successes out of its episodes. A planner or domain without metrics is left out; a cell for a
planner not run on that domain is "—". Beside the generated domains' column, the same held-out chains worded
in the training phrasings (`metrics/eval-training-<name>.json`, teacher-forced only: issue 46's "every
evaluation prints both"), so the `template` reference's score on training phrasings stands next to its score
on held-out ones. A domain whose held-out chains have goal kinds that use what is found
(issue 45: the metrics' `by_goal`) gets a table of its own, a column per goal kind and one for the delegations
that carry a value only an earlier report revealed ("after a report": their accuracy and share).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import click

from plandvc import io
from plandvc.errors import InputError
from plandvc.eval.reference import REFERENCES

GENERATED = "generated"
TRAINING = "generated, training phrasings"  # the same chains in training words (teacher-forced)


@dataclass(frozen=True)
class KindCell:
    """One planner on one goal kind of a domain: teacher-forced accuracy over its turns, closed-loop successes."""

    accuracy: float | None
    success: int | None
    episodes: int | None

    def text(self) -> str:
        acc = "n/a" if self.accuracy is None else f"{self.accuracy:.2f}"
        return acc if self.episodes is None else f"{acc}, {self.success} of {self.episodes}"


@dataclass(frozen=True)
class Cell:
    """One planner on one domain: its chains, teacher-forced step accuracy and closed-loop successes; by goal
    kind and after a report when its metrics have them."""

    chains: int
    strict: float
    lenient: float
    success: int | None  # None: scored teacher-forced only (no closed loop)
    episodes: int | None
    by_goal: dict[str, KindCell] = field(default_factory=dict)
    after_report: str | None = None

    def text(self) -> str:
        acc = f"{self.strict:.2f}" + (f" / {self.lenient:.2f}" if self.lenient != self.strict else "")
        return acc if self.episodes is None else f"{acc}, {self.success} of {self.episodes}"


def cell(metrics: dict[str, Any]) -> Cell:
    """A cell from one planner's metrics (`plandvc.eval.metrics.EvalMetrics`; no `closed_loop`: teacher-forced
    only)."""
    tf, cl = metrics["teacher_forced"], metrics.get("closed_loop")
    strict = float(tf["step_accuracy"])
    closed = cl.get("by_goal", {}) if cl is not None else {}
    by_goal = {
        k: KindCell(
            g["accuracy"],
            closed[k]["correct"] if k in closed else None,
            closed[k]["turns"] if k in closed else None,
        )
        for k, g in tf.get("by_goal", {}).items()
    }
    after = tf.get("after_report")
    after_text = None
    if after is not None:
        acc = "n/a" if after["accuracy"] is None else f"{after['accuracy']:.2f}"
        after_text = f"{acc} ({after['turns']} turns, {100 * float(tf['after_report_share']):.1f} %)"
    return Cell(
        int(metrics["chains"]),
        strict,
        float(tf.get("step_accuracy_lenient", strict)),
        int(cl["success"]) if cl is not None else None,
        int(cl["episodes"]) if cl is not None else None,
        by_goal,
        after_text,
    )


def _planner_name(metrics: dict[str, Any]) -> str:
    return str(metrics["planner"]).removeprefix("reference:")


def collect(folder: Path) -> dict[str, dict[str, Cell]]:
    """{domain: {planner: cell}} from a metrics folder; the generated domains first (in held-out, then in
    training phrasings), then the apps by name."""
    out: dict[str, dict[str, Cell]] = {}
    generated = [folder / "eval.json", *sorted(folder.glob("eval-reference-*.json"))]
    for domain, paths in ((GENERATED, generated), (TRAINING, sorted(folder.glob("eval-training-*.json")))):
        for path in (p for p in paths if p.is_file()):
            m = cast(dict[str, Any], io.read_json(path))
            if "skipped" not in m:
                out.setdefault(domain, {})[_planner_name(m)] = cell(m)
    for path in sorted(folder.glob("eval-apps-*.json")):
        app = path.stem.removeprefix("eval-apps-")
        found = cast(dict[str, dict[str, Any]], io.read_json(path))
        out[app] = {
            _planner_name(m) if str(m["planner"]).startswith("reference:") else k: cell(m)
            for k, m in found.items()
        }
    return out


def side_by_side(cells: dict[str, dict[str, Cell]]) -> str:
    """The markdown table: one row a planner, one column a domain (its held-out chains in the header)."""
    if not cells:
        raise InputError("no evaluation metrics: run make eval (dvc repro eval_planner eval_reference)")
    domains = list(cells)
    seen = {p for d in domains for p in cells[d]}
    # served planners first (by name), then the references in their own order
    planners = sorted(seen - set(REFERENCES)) + [r for r in REFERENCES if r in seen]
    head = ["planner"] + [f"{d} ({max(c.chains for c in cells[d].values())} chains)" for d in domains]
    rows = [[p] + [cells[d][p].text() if p in cells[d] else "—" for d in domains] for p in planners]
    out = [_markdown(head, rows)]
    for d in domains:
        kinds = sorted({k for c in cells[d].values() for k in c.by_goal})
        if not kinds:
            continue
        in_domain = [p for p in planners if p in cells[d]]
        head = [f"{d}: planner"] + [f"goal {k}" for k in kinds] + ["after a report"]
        rows = [
            [p]
            + [cells[d][p].by_goal[k].text() if k in cells[d][p].by_goal else "—" for k in kinds]
            + [cells[d][p].after_report or "—"]
            for p in in_domain
        ]
        out.append(_markdown(head, rows))
    return "\n\n".join(out)


def _markdown(head: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    return "\n".join(lines + ["| " + " | ".join(r) + " |" for r in rows])


@click.command("eval-table")
@click.option(
    "--metrics", "folder", type=click.Path(file_okay=False, exists=True, path_type=Path), default=Path("metrics"),
    show_default=True, help="the metrics folder",
)  # fmt: skip
def eval_table(folder: Path) -> None:
    """Print every planner on every held-out domain side by side: the generated test domains and each app.

    A cell is the teacher-forced step accuracy (strict / lenient) and the closed loop's successes of its
    episodes, read from METRICS/eval.json, eval-reference-*.json and eval-apps-*.json; the column "generated,
    training phrasings" (METRICS/eval-training-*.json) is the same held-out chains in the training rows'
    phrasings, teacher-forced only.

    \b
    Example:
        plandvc eval-table --metrics metrics
    """
    click.echo(side_by_side(collect(folder)))
