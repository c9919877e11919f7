"""The `run-chains` command: a thin layer over `plandvc.run.runner.run_chains`."""

from __future__ import annotations

import os
from pathlib import Path

import click

from plandvc.options import feeds, fill
from plandvc.ports import ports_option, workers_option
from plandvc.run import options
from plandvc.run.chain import RunParams
from plandvc.run.runner import RunConfig, RunSummary
from plandvc.run.runner import run_chains as run


def _shard(_ctx: click.Context, _param: click.Parameter, value: str | None) -> tuple[int, int] | None:
    """--shard k/n as (k, n), or None."""
    if not value:
        return None
    try:
        k, n = (int(v) for v in value.split("/"))
    except ValueError:
        raise click.BadParameter(f"{value!r}: expected k/n, e.g. 0/2") from None
    if not 0 <= k < n:
        raise click.BadParameter(f"{value!r}: need 0 <= k < n")
    return k, n


@feeds(RunConfig, RunParams)
@click.command("run-chains")
@click.option("--chains", "chains", type=options.FILE, required=True, help="chains.jsonl from chain-specs")
@click.option("--pool", type=options.DIR, required=True, help="the executor pool")
@click.option("--sites", type=options.DIR, required=True, help="the sites folder")
@click.option("--out", type=options.DIR, required=True, help="raw output folder")
@workers_option(RunConfig.workers)
@ports_option("server ports, e.g. 8320,8321 (PLANDVC_PORTS; default: free ports)")
@click.option(
    "--engine",
    type=click.Choice(["local", "ray"]),
    envvar="PLANDVC_ENGINE",
    default="local",
    show_default=True,
    help="where chains run: local browsers, or Ray actors on RAY_ADDRESS's cluster (else a local Ray) "
    "(PLANDVC_ENGINE); never changes the output",
)
@click.option("--limit", type=click.IntRange(0), default=0, help="run only the first N chains")
@click.option(
    "--shard", default=None, callback=_shard, help="k/n: this process takes every n-th chain from k"
)
@options.run_params("--budget", "--planner-turns", "--timeout-base", "--timeout-per-turn")
@options.dialect()
@options.marks()
@click.option("--memory-url", default="", help="OpenAI-compatible URL of the memory model (empty: none)")
@click.option("--memory-model", default="", help="the memory model's name on that server")
@click.option("--headful", is_flag=True, envvar="PLANDVC_HEADFUL", help="show the browser windows")
@options.cache(".plandvc/cache/run_chains", "finished chains, for resuming (PLANDVC_CACHE)", "PLANDVC_CACHE")
@click.option(
    "--log",
    type=options.FILE,
    envvar="PLANDVC_RUN_LOG",
    default=None,
    help="write timings here (never a stage output)",
)
@click.option("--progress/--no-progress", default=True, help="the live progress line on stderr")
@click.option(
    "--allow-empty", is_flag=True, help="an empty chains file publishes an empty OUT (else an error)"
)
def run_chains(**values: object) -> None:
    """Run each chain's planner in Chromium with a scripted model and replayed specialists; write the rows.

    Ok chains go to OUT/<key>/ (rows.jsonl, step_*.png, episode.json), failed ones to OUT/_failed/<key>/,
    one line per chain to OUT/results.jsonl. Finished chains are kept in --cache by a fingerprint of the
    chain, its parts, the params, the code and the environment, so an interrupted run resumes and a
    changed input never reuses stale chains. OUT is published atomically at the end.

    Every input is checked before any chain runs (each problem one line, nothing written). An existing
    OUT is replaced only when it is a previous run-chains output, by one writer at a time (a second run-chains
    on OUT, whichever engine, says another run-chains is writing it). When the browser driver, Chromium or a
    site server is lost, it is restarted and the chains it touched run again; if it cannot be, nothing is
    published and the exit code is 75 (the cache keeps the finished chains).

    \b
    Example:
        plandvc run-chains --chains data/chains.jsonl --pool data/pool --sites data/sites \\
            --out data/raw --workers 2
        plandvc run-chains --dialect browser-use-0.13 --chains data/chains.jsonl --pool data/pool \\
            --sites data/sites --out data/raw
        RAY_ADDRESS=head:6379 plandvc run-chains --engine ray --workers 16 \\
            --chains data/chains.jsonl --pool data/pool --sites data/sites --out data/raw
    """
    default_log = Path(os.environ.get("PLANDVC_LOGS", ".plandvc/logs")) / "run_chains.json"
    cfg = fill(RunConfig, values, params=fill(RunParams, values), log=values["log"] or default_log)
    _report(run(cfg))


def _report(summary: RunSummary) -> None:
    """The run's last lines: what it did, and its failures by kind."""
    click.echo(
        f"run-chains: {summary['ok']} ok, {summary['failed']} failed of {summary['chains']} "
        f"({summary['reused']} reused) in {summary['wall_s']}s with {summary['workers']} workers",
        err=True,
    )
    if summary["errors"]:
        click.echo(f"run-chains: failures by kind: {summary['errors']}", err=True)
