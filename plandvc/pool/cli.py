"""The `make-pool` command: record the sample executor pool on the bundled sites."""

from __future__ import annotations

import sys

import click

from plandvc.options import feeds, fill
from plandvc.pool.recorder import make_pool as run_make_pool
from plandvc.ports import ports_option, workers_option


@feeds(run_make_pool)
@click.command("make-pool")
@click.option("--sites", "sites", required=True, type=click.Path(file_okay=False), help="site specs folder")
@click.option("--out", "out", required=True, type=click.Path(file_okay=False), help="pool folder to write")
@click.option("--run", "run", default="r1", show_default=True, help="run name (runs/<run>/)")
@click.option("--seed", type=int, default=0, show_default=True, help="seed of the task generation")
@workers_option(2, most=16)
@ports_option("server ports, e.g. 8350,8351 [PLANDVC_PORTS, default: a free one]")
@click.option("--limit", type=click.IntRange(0), default=0, help="record only the first N tasks (by id)")
@click.option("--only-site", default=None, help="record only this site's tasks")
@click.option(
    "--per-macro", type=click.IntRange(1), default=None, help="tasks per site and macro [default 8]"
)
def make_pool(**values: object) -> None:
    """Record the executor pool: every site's tasks, run by the scripted executor in Chromium and gated.

    Writes OUT/runs/RUN/accepted/<task_id>/{task,trajectory,elements}.json, OUT/runs/RUN/rejected/<task_id>/
    {task.json,reason.txt}, OUT/kept.jsonl and OUT/pool_ids.txt. The same sites and seed give the same bytes,
    whatever the worker count. A killed run resumes: the next run of the same code, sites and tasks reuses
    the outcomes already filed (OUT/runs/.RUN.tmp/) and records only the rest. One writer at a time writes
    OUT: a second make-pool on it while one runs says another make-pool is writing it (exit 1).

    \b
    Example:
        plandvc make-pool --sites data/sites --out data/pool
        plandvc make-pool --sites data/sites --out /tmp/pool --only-site shop --limit 20 --workers 2
        plandvc make-pool --sites data/world --out /tmp/world-pool --per-macro 2
    """
    summary = fill(run_make_pool, values)
    if not summary.accepted:
        click.echo("error: no task was accepted", err=True)
        sys.exit(1)
