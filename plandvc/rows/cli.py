"""`plandvc filter-rows`: the pipeline's last stage (raw chains -> the versioned planner-rows dataset)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import click

from plandvc.io import InputError, check_output_dir, check_output_json, exclusive, read_jsonl
from plandvc.rows.dataset import METRIC_FILES, RESULTS
from plandvc.rows.dataset import filter_rows as run_filter
from plandvc.rows.version import DatasetVersion


def _is_metric(name: str) -> Callable[[object], bool]:
    """A recogniser of filter-rows' own metric file `name`: the plot is a list, the others objects, and
    filter.json has its counts."""
    if name == "plot_by_site.json":
        return lambda found: isinstance(found, list)
    if name == "filter.json":
        return lambda found: isinstance(found, dict) and {"chains_raw", "kept_rate"} <= found.keys()
    return lambda found: isinstance(found, dict)


def check_inputs(raw: Path, out: Path, metrics_dir: Path, allow_empty: bool) -> None:
    """Before any work: RAW has results, OUT may be replaced, the metrics can be written."""
    if raw.is_dir() and not read_jsonl(raw / RESULTS) and not allow_empty:
        raise InputError(f"{raw / RESULTS}: no chains (--allow-empty publishes an empty dataset)")
    check_output_dir(out, DatasetVersion.owns, "filter-rows")
    for name in METRIC_FILES:
        check_output_json(metrics_dir / name, _is_metric(name), "filter-rows", "--metrics")


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
@click.option("--allow-empty", is_flag=True, help="Publish an empty dataset when RAW has no chains.")
def filter_rows(
    raw: str,
    out: str,
    metrics_dir: str,
    val_share: float,
    split_seed: int,
    image_size: str,
    quiet: bool,
    allow_empty: bool,
) -> None:
    """Check every ok chain of RAW, drop broken and duplicate chains, publish the dataset and its metrics.

    Each kept chain is copied byte for byte to OUT/<key>/ (rows.jsonl, episode.json, step_*.png) with
    OUT/manifest.json (counts, sha256 of every file, index of chains, a train/val split by part: no
    trajectory and no identical prompt in both; see plandvc/rows/split.py).
    The dataset is built beside OUT and swapped in at the end: a failed run leaves the old one as it was.
    Metrics (filter.json, by_site.json, by_macro.json, by_parts.json, by_family.json, plot_by_site.json)
    go to METRICS. An existing OUT is replaced only when it is a previous filter-rows output (its
    manifest.json indexes everything in it), by one writer at a time (a second one says another
    filter-rows is writing it); RAW without chains is an error unless --allow-empty.

    \b
    Example:
        plandvc filter-rows --raw data/raw --out data/planner_rows/v1 --metrics metrics
        plandvc filter-rows --raw data/raw --out scratch/rows --metrics scratch/metrics --val-share 0.2 --image-size any
    """
    size = _size(image_size)
    with exclusive(out, "filter-rows"):
        check_inputs(Path(raw), Path(out), Path(metrics_dir), allow_empty)
        done = run_filter(raw, out, metrics_dir, val_share=val_share, image_size=size, split_seed=split_seed)
    if not quiet:
        for d in done.dropped:
            click.echo(f"dropped {d.key}: {d.kind}: {d.detail}", err=True)
    c = done.manifest.counts
    ok = sum(r["ok"] for r in done.results)
    click.echo(
        f"filter-rows: kept {c['chains']} of {ok} ok chains ({c['chains_raw']} in raw), {c['rows']} rows, "
        f"train {c['train']} / val {c['val']} / excluded {c['excluded']}, dropped {c['dropped']} -> {out}",
        err=True,
    )
