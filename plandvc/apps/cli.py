"""The `record-apps` command: an app site's tasks recorded into a pool folder."""

from __future__ import annotations

import click

from plandvc.errors import InputError


@click.command("record-apps")
@click.option(
    "--app", "app", default="trac", show_default=True, help="the application (plandvc.apps.REGISTRY)"
)
@click.option("--out", "out", required=True, type=click.Path(file_okay=False), help="pool folder to write")
@click.option(
    "--seed", type=int, default=0, show_default=True, help="seed of the app's data and of its tasks"
)
@click.option(
    "--size", type=click.IntRange(15), default=40, show_default=True, help="rows seeded (Trac: tickets)"
)
@click.option("--per-macro", type=click.IntRange(1), default=2, show_default=True, help="tasks per macro")
@click.option("--macros", default="", help="comma list: record only these macros' tasks [default: all]")
def record_apps(app: str, out: str, seed: int, size: int, per_macro: int, macros: str) -> None:
    """Record a real web application's tasks in Chromium, each gated on the application's own database.

    The app is installed (its own venv, from its hash lock, outside the checkout) and seeded; each task runs
    on a fresh copy of its state, solved by the scripted executor (docs/APPS.md).

    Writes OUT/runs/APP/accepted/<task_id>/{task,trajectory,elements}.json, OUT/kept.jsonl,
    OUT/pool_ids.txt and OUT/gates.jsonl (every task's gate line). The same app, seed, size and per-macro
    give the same bytes.

    \b
    Example:
        plandvc record-apps --out /tmp/trac-pool
        plandvc record-apps --app trac --out /tmp/trac-pool --per-macro 1 --macros create_entry,edit_entry
    """
    from pathlib import Path

    from plandvc.apps import REGISTRY

    if app not in REGISTRY:
        raise InputError(f"--app: unknown app {app!r} (known: {', '.join(sorted(REGISTRY))})")
    chosen = [m for m in macros.split(",") if m.strip()]
    unknown = sorted(set(chosen) - set(REGISTRY[app].macros))
    if unknown:
        raise InputError(f"--macros: {app} has no macro {', '.join(unknown)}")
    summary = REGISTRY[app].record(Path(out), seed, size, per_macro, chosen)
    kept, tasks = sum(summary.kept.values()), sum(summary.tasks.values())
    click.echo(f"record-apps: {app}: {kept} of {tasks} tasks kept in {out}", err=True)
    if not kept:
        raise SystemExit(1)


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

    from plandvc.apps.evaluate import AppEvalConfig
    from plandvc.apps.evaluate import eval_apps as run_eval
    from plandvc.apps.held import AppSpecsConfig, app_specs

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
