"""The `eval-apps` command: held-out chains on a real application, and the reference planners (and any served
planner) on them (`plandvc.eval.apps`, `plandvc.eval.apps_run`). Its own module: the evaluation stages' code
(`EVAL_CODE`) does not import it, so editing an app's held-out chains reruns no stage of the main pipeline."""

from __future__ import annotations

import click

from plandvc.eval.apps import AppSpecsConfig
from plandvc.eval.apps_run import AppEvalConfig
from plandvc.eval.reference import REFERENCES
from plandvc.options import feeds, fill
from plandvc.run import options
from plandvc.run.chain import RunParams


def _references(ctx: click.Context, param: click.Parameter, value: str) -> list[str]:
    names = [r for r in value.split(",") if r]
    unknown = sorted(set(names) - set(REFERENCES))
    if unknown:
        raise click.BadParameter(f"unknown {', '.join(unknown)} (known: {', '.join(REFERENCES)})")
    return names


@feeds(AppSpecsConfig, AppEvalConfig, RunParams)
@click.command("eval-apps")
@click.option(
    "--app", "app", default="trac", show_default=True, help="the application (plandvc.apps.REGISTRY)"
)
@click.option("--pool", type=options.DIR, required=True, help="a record-apps folder")
@click.option("--specs", type=options.DIR, required=True, help="the held-out folder to write (or reuse)")
@click.option("--out", type=options.DIR, default=None, help="the evaluation's folder [none: no evaluation]")
@click.option("--metrics", type=options.FILE, default=None, help="a copy of OUT/metrics.json for dvc")
@click.option(
    "--seed",
    type=int,
    default=AppSpecsConfig.seed,
    show_default=True,
    help="the app's seed, as recorded; the walk's",
)
@click.option(
    "--size",
    type=click.IntRange(15),
    default=AppSpecsConfig.size,
    show_default=True,
    help="rows seeded, as recorded",
)
@click.option(
    "--n",
    "n",
    type=click.IntRange(1),
    default=AppSpecsConfig.n,
    show_default=True,
    help="chains to walk (at most)",
)
@click.option("--references", default=",".join(REFERENCES), show_default=True, callback=_references,
              help="comma list of reference planners to evaluate")  # fmt: skip
@click.option("--planner-url", default="", help="a served planner's OpenAI-compatible base URL (empty: none)")
@click.option("--planner-model", default="", help="the served planner's model name")
@click.option(
    "--name", default="planner", show_default=True, help="the served planner's folder and metrics key"
)
@options.share(
    "--goal-share",
    AppSpecsConfig.goal_share,
    "goal chains among them, where the app answers goals (eval.goal_share)",
)
@click.option(
    "--goal-kinds",
    default=AppSpecsConfig.goal_kinds,
    show_default=True,
    help="the goal chains' kinds (chain-specs --goal-kinds); a mix needs an app with goal kinds (Trac)",
)
@click.option(
    "--hygiene",
    type=click.BOOL,
    default=AppSpecsConfig.hygiene,
    show_default=True,
    help="refuse the held-out chains whose words fail a hygiene check (chain-specs --hygiene)",
)
@click.option("--reuse-specs", is_flag=True, help="keep an existing held-out folder (no walk, no run)")
@options.dialect()
@options.marks()
@options.run_params("--budget", "--planner-turns")
def eval_apps(**values: object) -> None:
    """Held-out chains on a real application, and the reference planners (and a served one) evaluated on them.

    The app pool's tasks become walk records (requests composed from their facts), the chains are walked with
    chain-specs' walk, each is run by run-chains' scripted planner on its own fresh app session, every part
    gated on the app's database; the good ones are written to SPECS in eval-specs' layout (no training row
    comes from them). With --out, each reference planner (and --planner-url's) is scored teacher-forced and in
    the closed loop: OUT/<name>/{replies,episodes}.jsonl and OUT/metrics.json (and --metrics).

    \b
    Example:
        plandvc eval-apps --app trac --pool /tmp/trac-pool --specs /tmp/trac-specs --out /tmp/trac-eval
    """
    import contextlib
    import json
    import time

    from plandvc.eval.apps import app_specs, known_app
    from plandvc.eval.apps_run import claim_out, evaluate

    known_app(str(values["app"]))
    if values["planner_url"] and not values["planner_model"]:
        raise click.BadParameter("--planner-model is needed with --planner-url", param_hint="--planner-model")
    cfg = fill(AppEvalConfig, values) if values["out"] is not None else None
    with contextlib.ExitStack() as held:
        if cfg is not None:  # OUT and --metrics claimed before any work, the held-out chains included
            held.enter_context(claim_out(cfg))
        t0 = time.monotonic()
        summary = app_specs(fill(AppSpecsConfig, values, out=values["specs"], params=fill(RunParams, values)))
        click.echo(f"eval-apps: {json.dumps(summary)} ({time.monotonic() - t0:.0f} s)", err=True)
        if cfg is None:
            return
        metrics = evaluate(cfg)
    for name, m in metrics.items():
        tf, cl = m["teacher_forced"], m["closed_loop"]
        click.echo(
            f"eval-apps: {name}: teacher-forced {tf['step_accuracy']} ({tf['correct']}/{tf['turns']}), "
            f"closed-loop {cl['success_rate']} ({cl['success']}/{cl['episodes']})",
            err=True,
        )
    click.echo(f"eval-apps: times {json.dumps({k: round(v) for k, v in cfg.timings.items()})}", err=True)
