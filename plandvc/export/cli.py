"""`plandvc export`: the stage after filter-rows (a dataset version -> one folder per trainer's format)."""

from __future__ import annotations

import time

import click

from plandvc.export.common import FORMATS, ExportParams
from plandvc.export.run import ExportOutcome
from plandvc.export.run import export as run_export
from plandvc.options import feeds, fill


def _report(done: ExportOutcome, out: str, start: float) -> None:
    """One stderr line per format and a summary line."""
    for name, rep in sorted(done.reports.items()):
        click.echo(
            f"export {name}: {rep.examples.get('train', 0)} train / {rep.examples.get('val', 0)} val, "
            f"{len(rep.files)} files, {rep.bytes:,} bytes, {done.seconds[name]:.1f}s",
            err=True,
        )
    m = done.metrics
    click.echo(
        f"export: {m['examples']['train']} train / {m['examples']['val']} val examples, leak check "
        f"{m['leak']['shared_parts']} parts / {m['leak']['shared_prompts']} prompts shared, "
        f"{time.perf_counter() - start:.1f}s -> {out}",
        err=True,
    )


@feeds(run_export, ExportParams)
@click.command("export")
@click.option(
    "--rows", required=True, type=click.Path(file_okay=False), help="The dataset version (filter-rows' OUT)."
)
@click.option("--out", required=True, type=click.Path(file_okay=False), help="The export's version folder.")
@click.option(
    "--formats", default="all", show_default=True, help=f"'all' or a comma list of {', '.join(FORMATS)}."
)
@click.option(
    "--sites", type=click.Path(file_okay=False), help="The sites folder (site_split.json, hash for the card)."
)
@click.option(
    "--pool", type=click.Path(file_okay=False), help="The executor pool (its hash goes in the card)."
)
@click.option(
    "--filter-metrics", type=click.Path(dir_okay=False), help="filter-rows' filter.json (for the card)."
)
@click.option("--metrics", "metrics_dir", type=click.Path(file_okay=False), help="Directory for export.json.")
@click.option("--license", default="mit", show_default=True, help="The card's license id.")
@click.option(
    "--shard-rows", default=2000, show_default=True, type=click.IntRange(1), help="Examples per file/shard."
)
@click.option(
    "--row-group-rows",
    default=100,
    show_default=True,
    type=click.IntRange(1),
    help="Rows per Parquet row group.",
)
@click.option(
    "--row-group-mb",
    default=64.0,
    show_default=True,
    type=click.FloatRange(0, min_open=True),
    help="Image MB per row group.",
)
@click.option("--allow-empty", is_flag=True, help="Export a version with no examples (else an error).")
def export(**values: object) -> None:
    """Export the dataset version ROWS to OUT/<format>/ for TRL/HF datasets, LLaMA-Factory, OpenAI and WebDataset.

    Formats: hf (Parquet with Image features and TRL's prompt/completion/images columns), llamafactory
    (sharegpt JSONL with <image> tokens and dataset_info.json), openai (chat fine-tuning JSONL with data
    URLs), wds (WebDataset tar shards). Each folder gets a dataset card (README.md), and OUT/README.md
    describes the version. The export refuses a chain on a held-out test site, a split that leaks (a part or
    an identical prompt in train and val) and duplicate rows, and writes nothing then; a version with no
    examples is an error unless --allow-empty. An existing OUT is replaced only when it is a previous export
    (only format folders and the cards export writes), and METRICS/export.json only when it is a previous one;
    a second export to the same OUT while one runs stops with "another export is writing OUT". Everything is
    built aside and published at the end: a failed export leaves the previous one as it was.

    \b
    Example:
        plandvc export --rows data/planner_rows/v1 --out data/exports/v1 --sites data/sites --metrics metrics
        plandvc export --rows data/planner_rows/v1 --out scratch/exports --formats hf,wds
    """
    start = time.perf_counter()
    done = fill(run_export, values, params=fill(ExportParams, values))
    _report(done, str(values["out"]), start)
