"""The `eval-apps` command: held-out chains on a real application, and the reference planners on them
(`plandvc.eval.apps`, `plandvc.eval.apps_run`). Its own module: the evaluation stages' code (`EVAL_CODE`) does
not import it, so editing an app's held-out chains reruns no stage."""

from __future__ import annotations

import click

from plandvc.errors import InputError


@click.command("eval-apps")
@click.option("--app", "app", default="trac", show_default=True, help="the application (only trac so far)")
@click.option(
    "--pool", type=click.Path(file_okay=False, exists=True), required=True, help="a record-apps folder"
)
@click.option("--specs", type=click.Path(file_okay=False), required=True, help="the held-out folder to write")
@click.option(
    "--out", type=click.Path(file_okay=False), default="", help="the evaluation's folder [none: no eval]"
)
@click.option(
    "--seed", type=int, default=0, show_default=True, help="the app's seed, as recorded; the walk's"
)
@click.option(
    "--size", type=click.IntRange(15), default=40, show_default=True, help="rows seeded, as recorded"
)
@click.option(
    "--n", "n", type=click.IntRange(1), default=30, show_default=True, help="chains to walk (at most)"
)
@click.option("--references", default="oracle,copy,always-done,random-family", show_default=True,
              help="comma list of reference planners to evaluate")  # fmt: skip
@click.option("--reuse-specs", is_flag=True, help="keep an existing held-out folder (no walk, no run)")
def eval_apps(
    app: str,
    pool: str,
    specs: str,
    out: str,
    seed: int,
    size: int,
    n: int,
    references: str,
    reuse_specs: bool,
) -> None:
    """Held-out chains on a real application, and every reference planner evaluated on them.

    The app pool's tasks become walk records (requests composed from their facts), the chains are walked with
    chain-specs' walk, each is run by run-chains' scripted planner on its own fresh app session, every part
    gated on the app's database; the good ones are written to SPECS in eval-specs' layout (no training row
    comes from them). With --out, each reference planner is scored teacher-forced and in the closed loop.

    \b
    Example:
        plandvc eval-apps --pool /tmp/trac-pool --specs /tmp/trac-specs --out /tmp/trac-eval
    """
    import json
    import time
    from pathlib import Path

    from plandvc.eval.apps import AppSpecsConfig, app_specs
    from plandvc.eval.apps_run import AppEvalConfig
    from plandvc.eval.apps_run import eval_apps as run_eval

    if app != "trac":
        raise InputError(f"--app: held-out chains exist for trac only, not {app!r}")
    t0 = time.monotonic()
    if not (reuse_specs and (Path(specs) / "summary.json").is_file()):
        summary = app_specs(AppSpecsConfig(Path(pool), Path(specs), seed, size, n))
        click.echo(f"eval-apps: {json.dumps(summary)} ({time.monotonic() - t0:.0f} s)", err=True)
    if not out:
        return
    cfg = AppEvalConfig(Path(specs), Path(pool), Path(out), [r for r in references.split(",") if r])
    metrics = run_eval(cfg)
    for name, m in metrics.items():
        tf, cl = m["teacher_forced"], m["closed_loop"]
        click.echo(
            f"eval-apps: {name}: teacher-forced {tf['step_accuracy']} ({tf['correct']}/{tf['turns']}), "
            f"closed-loop {cl['success_rate']} ({cl['success']}/{cl['episodes']})",
            err=True,
        )
    click.echo(f"eval-apps: times {json.dumps({k: round(v) for k, v in cfg.timings.items()})}", err=True)
