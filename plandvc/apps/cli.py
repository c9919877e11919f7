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
    from plandvc.apps.record import record_pool

    if app not in REGISTRY:
        raise InputError(f"--app: unknown app {app!r} (known: {', '.join(sorted(REGISTRY))})")
    chosen = [m for m in macros.split(",") if m.strip()]
    unknown = sorted(set(chosen) - set(REGISTRY[app].macros))
    if unknown:
        raise InputError(f"--macros: {app} has no macro {', '.join(unknown)}")
    summary = record_pool(REGISTRY[app], Path(out), seed, size, per_macro, chosen)
    kept, tasks = sum(summary.kept.values()), sum(summary.tasks.values())
    click.echo(f"record-apps: {app}: {kept} of {tasks} tasks kept in {out}", err=True)
    if not kept:
        raise SystemExit(1)
