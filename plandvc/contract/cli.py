"""The `check-pool` command: a thin layer over plandvc.contract.pool.check_pool."""

from __future__ import annotations

from pathlib import Path

import click

from plandvc.contract.pool import check_pool as run_check


@click.command("check-pool")
@click.option(
    "--pool", type=click.Path(path_type=Path, file_okay=False), required=True, help="The pool folder."
)
@click.option(
    "--sites",
    type=click.Path(path_type=Path, file_okay=False),
    help="The sites folder (a generated world's pool; an app's pool has none).",
)
def check_pool(pool: Path, sites: Path | None) -> None:
    """Check a pool and its sites against the contract; name every problem.

    Validates site_split.json and every site.json, kept.jsonl, pool_ids.txt and each kept part's task.json,
    trajectory.json and elements.json against the JSON Schemas in plandvc/contract/schemas/, then each part
    against its site: the site, control id, tables and pages it names exist, its prep and start URL work, and
    every recorded element is on the page its step is on (the site's own pages, rendered without a browser).
    An app's pool (pool.json: site_kind app, written by record-apps) takes no --sites: its index and parts are
    checked by the schemas' app branch (the app's own paths, no spec control).
    Prints one line per problem (file: key: reason) and a summary; exits 1 when there is any problem.

    \b
    Example:
        plandvc check-pool --pool data/pool --sites data/sites
        plandvc check-pool --pool data/apps/trac/pool
    """
    if not pool.is_dir():
        raise click.ClickException(f"{pool}: pool folder not found")
    if sites is not None and not sites.is_dir():
        raise click.ClickException(f"{sites}: sites folder not found")
    report = run_check(pool, sites)
    for p in report.problems:
        click.echo(p.line())
    click.echo(report.summary(), err=True)
    if report.problems:
        raise SystemExit(1)
