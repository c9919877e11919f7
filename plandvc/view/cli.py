"""`plandvc view`: the viewer stage (a dataset version and its raw run -> static HTML pages)."""

from __future__ import annotations

from pathlib import Path

import click


@click.command("view")
@click.option(
    "--dataset",
    "dataset",
    required=True,
    type=click.Path(),
    help="The dataset version (filter-rows' output).",
)
@click.option(
    "--raw", "raw", type=click.Path(), default=None, help="run-chains' output, for the chains that failed."
)
@click.option("--out", "out", required=True, type=click.Path(), help="The folder to write the viewer to.")
def view(dataset: str, raw: str | None, out: str) -> None:
    """Write a static HTML viewer of a dataset version: an index, a page per chain, stats, prompts.

    The index lists every chain of the run (kept, dropped by filter-rows, failed) with filters and a
    search; a chain page steps through its rows (← / →) with the screenshot, the target, the memory and
    what the planner saw; the stats page draws the counts, failure reasons, prompt lengths and the split.
    Screenshots are linked into the dataset (not copied); nothing is fetched from a network, so the pages
    open from file://. Prints the path of index.html.

    \b
    Example:
        plandvc view --dataset data/planner_rows/v1 --raw data/raw --out data/view/v1
        plandvc view --dataset data/planner_rows/v1 --out /tmp/view    # kept and dropped chains only
    """
    from plandvc.view import make_view

    site = make_view(dataset, raw, out)
    n = site.stats.by_status
    click.echo(
        f"view: {site.stats.chains} chains ({n['kept']} kept, {n['dropped']} dropped, {n['failed']} failed), "
        f"{len(site.chains)} chain pages -> {out}",
        err=True,
    )
    click.echo(Path(out) / "index.html")
