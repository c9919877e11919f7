"""The `eval-specs` and `eval-planner` commands: thin layers over `plandvc.eval.specs` and `plandvc.eval.run`."""

from __future__ import annotations

import sys

import click
from click.decorators import FC

from plandvc.chains.cli import parse_sizes
from plandvc.chains.options import check_walk_options, walk_options
from plandvc.chains.phrasing import SETS
from plandvc.eval.client import Asking
from plandvc.eval.closed import LoopConfig
from plandvc.eval.metrics import table
from plandvc.eval.reference import REFERENCES
from plandvc.eval.references import ReferencesConfig, eval_references, parse_references
from plandvc.eval.run import MODES, EvalConfig, evaluate
from plandvc.eval.specs import SpecsConfig, eval_specs
from plandvc.options import feeds, fill
from plandvc.ports import workers_option
from plandvc.run import options
from plandvc.run.chain import RunParams


@feeds(SpecsConfig, RunParams)
@click.command("eval-specs")
@click.option("--pool", type=options.DIR, required=True, help="the executor pool")
@click.option(
    "--sites", type=options.DIR, required=True, help="the sites folder (site_split.json names the test sites)"
)
@click.option("--out", type=options.DIR, required=True, help="the held-out folder to write")
@walk_options(SpecsConfig)
@click.option(
    "--phrasing-set",
    type=click.Choice(SETS),
    default=SpecsConfig.phrasing_set,
    show_default=True,
    help="with --phrasing varied, the set the requests draw from: held-out (the evaluation's), or training (the "
    "same chains in the training rows' phrasings, the `template` reference's high mark)",
)
@options.run_params("--budget", "--planner-turns")
@options.dialect()
@options.marks()
@workers_option(SpecsConfig.workers)
@options.cache(
    ".plandvc/cache/eval_chains", "finished held-out chains, for resuming (apart from run-chains' own)"
)
def eval_specs_cmd(**values: object) -> None:
    """Walk held-out chains on the test sites only, run them with the scripted planner, keep the good ones.

    The records come from the test sites of SITES/site_split.json (never a training site); the chains are
    run exactly as run-chains runs training chains, so OUT/raw/<key>/rows.jsonl holds the planner's input at
    every turn; OUT/specs.jsonl lists the held-out chains and their turns, OUT/summary.json the counts.

    \b
    Example:
        plandvc eval-specs --pool data/pool --sites data/sites --out data/eval --n 24 --seed 0
        plandvc eval-specs --pool data/pool --sites data/sites --out data/eval-training --phrasing varied \\
            --phrasing-set training
    """
    params = fill(RunParams, values)
    cfg = fill(SpecsConfig, values, sizes=parse_sizes(str(values["sizes"])), params=params)
    check_walk_options(cfg.n, cfg.tries, cfg.answer_share, cfg.recovery_share)
    s = eval_specs(cfg)
    click.echo(
        f"eval-specs: {s['held_out']} held-out chains of {s['chains']} walked from {s['records']} test-site "
        f"records; {s['turns']} turns ({s['asking']} chains ask a question); dropped: {s['dropped'] or 'none'}",
        err=True,
    )


def scoring_options(command: FC) -> FC:
    """The options eval-planner and eval-references share: the chains, the pool and sites, how the planner is
    asked and the closed loop's caps."""
    for option in reversed(
        [
            click.option(
                "--specs", type=options.DIR, required=True, help="the held-out folder from eval-specs"
            ),
            click.option(
                "--pool", type=options.DIR, required=True, help="the executor pool (the parts' trajectories)"
            ),
            click.option("--sites", type=options.DIR, required=True, help="the sites folder"),
            click.option("--seed", type=int, default=0, show_default=True, help="random-family's seed"),
            click.option("--mode", type=click.Choice(MODES), default="both", show_default=True),
            click.option(
                "--images",
                type=click.BOOL,
                default=True,
                show_default=True,
                help="send the screenshot as an image part (false for a text-only model)",
            ),
            click.option(
                "--limit", type=click.IntRange(0), default=0, help="only the first N held-out chains"
            ),
            options.shown(
                "--timeout", click.FloatRange(0.1), 120.0, "seconds per reply before it is retried"
            ),
            options.shown("--retries", click.IntRange(0), 2, "retries per reply"),
            options.shown("--concurrency", click.IntRange(1), 2, "replies asked at once (teacher-forced)"),
            click.option("--max-tokens", type=click.IntRange(16), default=512, show_default=True),
            options.run_params("--budget", "--planner-turns"),
        ]
    ):
        command = option(command)
    return command


@feeds(EvalConfig, LoopConfig, Asking)
@click.command("eval-planner")
@click.option(
    "--out",
    type=options.DIR,
    required=True,
    help="the folder for replies.jsonl, episodes.jsonl, metrics.json",
)
@click.option(
    "--metrics",
    type=options.FILE,
    required=True,
    help="the metrics file for dvc (metrics/eval.json)",
)
@click.option("--planner-url", default="", help="OpenAI-compatible base URL of the planner (empty: skipped)")
@click.option("--planner-model", default="", help="the planner's model name on that server")
@click.option(
    "--reference",
    type=click.Choice(["", *REFERENCES]),
    default="",
    help="serve a reference planner over loopback HTTP instead of --planner-url",
)
@scoring_options
def eval_planner_cmd(**values: object) -> None:
    """Score a planner on the held-out chains, teacher-forced and in the closed loop.

    Teacher-forced: every turn gets its training row's input and the reply is scored (schema, kind,
    family, values kept, the answer). Closed loop: the planner agent runs each chain in Chromium, a
    delegation that matches the next part is replayed, anything else ends the episode off script. Writes
    OUT/replies.jsonl, OUT/episodes.jsonl, OUT/metrics.json and METRICS; prints a table. With no
    --planner-url and no --reference it writes "skipped" outputs.

    \b
    Example:
        plandvc eval-planner --specs data/eval --pool data/pool --sites data/sites \\
            --out eval/oracle --metrics metrics/eval.json --reference oracle
        plandvc eval-planner --specs data/eval --pool data/pool --sites data/sites \\
            --out eval/qwen --metrics metrics/eval.json \\
            --planner-url http://127.0.0.1:8000/v1 --planner-model qwen
    """
    if values["planner_url"] and not values["planner_model"]:
        raise click.BadParameter("--planner-model is needed with --planner-url", param_hint="--planner-model")
    loop, asking = fill(LoopConfig, values), fill(Asking, values)
    cfg = fill(EvalConfig, values, loop=loop, asking=asking)
    m = evaluate(cfg)
    if "skipped" in m:
        click.echo(
            f"eval-planner: skipped ({m['skipped']}): set eval.planner_url and eval.planner_model", err=True
        )
        return
    click.echo(table(m))
    took = ", ".join(f"{k} {v:.1f}" for k, v in cfg.timings.items())
    click.echo(f"eval-planner: wall seconds: {took}", err=True)
    sys.stdout.flush()


@feeds(ReferencesConfig, LoopConfig, Asking)
@click.command("eval-references")
@click.option(
    "--references",
    default=",".join(REFERENCES),
    show_default=True,
    help="the reference planners to score, a comma list",
)
@click.option("--out", required=True, help="each reference's folder, {name} its name (eval/reference-{name})")
@click.option(
    "--metrics",
    required=True,
    help="each reference's metrics file, {name} its name (metrics/eval-reference-{name}.json)",
)
@scoring_options
def eval_references_cmd(**values: object) -> None:
    """Score every reference planner on the held-out chains in one process and one served session.

    Each reference's OUT and METRICS are byte for byte what `eval-planner --reference <name>` writes; one
    loopback server serves them all, teacher-forced first, then the closed loops in one Chromium (an episode a
    page-blind reference's first reply already ends off script is not played). Prints each table.

    \b
    Example:
        plandvc eval-references --specs data/eval --pool data/pool --sites data/sites \\
            --references oracle,copy,always-done,random-family,template \\
            --out 'eval/reference-{name}' --metrics 'metrics/eval-reference-{name}.json'
    """
    loop, asking = fill(LoopConfig, values), fill(Asking, values)
    refs = parse_references(str(values["references"]))
    cfg = fill(ReferencesConfig, values, loop=loop, asking=asking, references=refs)
    for m in eval_references(cfg).values():
        click.echo(table(m))
    took = ", ".join(f"{k} {v:.1f}" for k, v in cfg.timings.items())
    click.echo(f"eval-references: wall seconds: {took}", err=True)
    sys.stdout.flush()
