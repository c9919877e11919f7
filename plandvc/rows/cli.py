"""`plandvc filter-rows`: the pipeline's last stage (raw chains -> the versioned planner-rows dataset)."""

from __future__ import annotations

import re

import click

from plandvc.io import InputError
from plandvc.rows.dataset import filter_rows as run_filter


def _size(value: str) -> tuple[int, int] | None:
    if value.lower() in ("any", "none"):
        return None
    m = re.fullmatch(r"(\d+)x(\d+)", value.strip())
    if not m:
        raise click.ClickException(f"--image-size {value!r} is not WIDTHxHEIGHT (e.g. 1280x800) or 'any'")
    return int(m[1]), int(m[2])


@click.command("filter-rows")
@click.option(
    "--raw", "raw", required=True, type=click.Path(file_okay=False), help="run-chains' output directory."
)
@click.option(
    "--out", "out", required=True, type=click.Path(file_okay=False), help="The dataset directory to publish."
)
@click.option(
    "--metrics",
    "metrics_dir",
    required=True,
    type=click.Path(file_okay=False),
    help="Directory for metrics/*.json.",
)
@click.option(
    "--val-share", default=0.1, show_default=True, type=click.FloatRange(0, 1), help="Share of chains in val."
)
@click.option(
    "--split-seed",
    default=0,
    show_default=True,
    type=int,
    help="Seed of the group split's order (rows/split.py).",
)
@click.option(
    "--image-size",
    default="1280x800",
    show_default=True,
    help="Every image's WIDTHxHEIGHT, or 'any' to skip.",
)
@click.option("--quiet", is_flag=True, help="Only the summary line, not one line per dropped chain.")
def filter_rows(
    raw: str, out: str, metrics_dir: str, val_share: float, split_seed: int, image_size: str, quiet: bool
) -> None:
    """Check every ok chain of RAW, drop broken and duplicate chains, publish the dataset and its metrics.

    Each kept chain is copied byte for byte to OUT/<key>/ (rows.jsonl, episode.json, step_*.png) with
    OUT/manifest.json (counts, sha256 of every file, index of chains, a train/val split by part: no
    trajectory and no identical prompt in both; see plandvc/rows/split.py).
    The dataset is built beside OUT and swapped in at the end: a failed run leaves the old one as it was.
    Metrics (filter.json, by_site.json, by_macro.json, by_parts.json, by_family.json, plot_by_site.json)
    go to METRICS.

    \b
    Example:
        plandvc filter-rows --raw data/raw --out data/planner_rows/v1 --metrics metrics
        plandvc filter-rows --raw data/raw --out scratch/rows --metrics scratch/metrics --val-share 0.2 --image-size any
    """
    size = _size(image_size)
    try:
        done = run_filter(raw, out, metrics_dir, val_share=val_share, image_size=size, split_seed=split_seed)
    except InputError as e:
        raise click.ClickException(str(e)) from None
    if not quiet:
        for d in done.dropped:
            click.echo(f"dropped {d.key}: {d.kind}: {d.detail}", err=True)
    c = done.manifest["counts"]
    ok = sum(r["ok"] for r in done.results)
    click.echo(
        f"filter-rows: kept {c['chains']} of {ok} ok chains ({c['chains_raw']} in raw), {c['rows']} rows, "
        f"train {c['train']} / val {c['val']} / excluded {c['excluded']}, dropped {c['dropped']} -> {out}",
        err=True,
    )
