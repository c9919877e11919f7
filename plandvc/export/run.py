"""`export`: a dataset version turned into the folders each trainer's loader reads as it is.

`export(rows, out, formats, params, ...)` first checks its outputs: OUT is absent, empty or a previous export
(`is_export`: only format folders and cards this module writes), `<metrics>/export.json` absent or a previous
one; anything else is refused before any work. It then holds OUT's lock (`io.exclusive`: a second export to
the same OUT says "another export is writing OUT"), reads the version (`plandvc.rows.version.DatasetVersion`),
refuses it when it has no examples (unless `allow_empty`), when a chain is on a held-out test site or when the
split leaks (a part or an identical prompt in train and in val), then builds every folder aside
(`.<out>.tmp-<pid>/`): `<format>/` with its files and its card for each format asked for, a
`<format>/README.md` saying it was not asked for otherwise (so every DVC output exists), and the version card
`README.md`. Only when all are built are they published, each with a rename: a failure leaves every previous
export as it was. `<metrics>/export.json` reports the counts, sizes and the leak check.
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict, cast

from plandvc import io
from plandvc.export import hf, llamafactory, openai_jsonl, wds
from plandvc.export.card import Provenance, card
from plandvc.export.common import FORMATS, ExportError, ExportParams, FormatReport
from plandvc.rows.split import SPLITS, Leaks, leak_check
from plandvc.rows.version import DatasetVersion

if TYPE_CHECKING:  # the type only: export runs none of filter-rows' code
    from plandvc.rows.dataset import FilterMetrics

WRITERS: dict[str, Callable[[DatasetVersion, Path, ExportParams], FormatReport]] = {
    "hf": hf.write,
    "llamafactory": llamafactory.write,
    "openai": openai_jsonl.write,
    "wds": wds.write,
}
README = "README.md"
CARD_START = b"---\npretty_name: plandvc planner rows"  # how every card of `card.card` begins


class LeakCounts(TypedDict):
    """The leak check recomputed on export: parts and prompts shared by splits, duplicate rows."""

    shared_parts: int
    shared_prompts: int
    duplicate_rows: int


class ExportMetrics(TypedDict):
    """export.json: the version, its chains and examples by split, the leak check, what each format wrote."""

    version: str
    chains: dict[str, int]
    examples: dict[str, int]
    leak: LeakCounts
    formats: dict[str, dict[str, object]]


@dataclass
class ExportOutcome:
    """What one export did (the CLI prints it; tests read it)."""

    version: DatasetVersion
    reports: dict[str, FormatReport]
    leaks: Leaks
    metrics: ExportMetrics
    seconds: dict[
        str, float
    ]  # wall time per format (printed, never written: it is not a function of the input)


def parse_formats(text: str | Sequence[str]) -> list[str]:
    """`all` or a comma-separated list of FORMATS; an unknown name is an ExportError naming it."""
    names = [s.strip() for s in (text.split(",") if isinstance(text, str) else text) if s.strip()]
    if names == ["all"]:
        return list(FORMATS)
    unknown = [n for n in names if n not in FORMATS]
    if unknown or not names:
        raise ExportError(f"export formats {unknown or names!r}: choose from {', '.join(FORMATS)} or 'all'")
    return [f for f in FORMATS if f in names]


def check_version(version: DatasetVersion, test_sites: Sequence[str]) -> Leaks:
    """Refuse a chain on a held-out test site, and a split that leaks; return the (empty) leak check."""
    chains = [c.entry for c in version.contents.chains]
    for c in chains:
        if c.site in test_sites:
            raise ExportError(
                f"{version.root / 'manifest.json'}: chain {c.key} is on the held-out test site {c.site!r}"
            )
    leaks = leak_check(version.split_chains(), {c.key: str(c.split) for c in chains})
    if not leaks.ok:
        what = "the split leaks" if leaks.crosses else "duplicate rows"
        raise ExportError(f"{version.root / 'manifest.json'}: {what}: {leaks.first()}")
    return leaks


def _not_asked(fmt: str) -> bytes:
    return (
        f"# {fmt}: not exported\n\nThis format is not in `export.formats` (params.yaml) for this version; "
        "add it there and run `dvc repro export`.\n"
    ).encode()


def _metrics(version: DatasetVersion, reports: dict[str, FormatReport], leaks: Leaks) -> ExportMetrics:
    splits = {s: 0 for s in ("train", "val", "excluded")}
    for c in version.contents.chains:
        splits[str(c.entry.split)] += 1
    return {
        "version": version.name,
        "chains": splits,
        "examples": {s: version.count(s) for s in SPLITS},
        "leak": {
            "shared_parts": len(leaks.shared_parts),
            "shared_prompts": len(leaks.shared_prompts),
            "duplicate_rows": len(leaks.duplicate_rows),
        },
        "formats": {
            name: {"examples": rep.examples, "files": len(rep.files), "bytes": rep.bytes, **rep.notes}
            for name, rep in sorted(reports.items())
        },
    }


def is_export(out: Path) -> bool:
    """Whether folder `out` is a previous export: only README.md and format folders, every README.md a card
    this module writes (a dataset card, or the note of a format not asked for)."""
    for entry in out.iterdir():
        if entry.name == io.DVC_IGNORE:  # DVC's list of the format folders it tracks
            continue
        if entry.name == README:
            if not entry.is_file() or not entry.read_bytes().startswith(CARD_START):
                return False
        elif entry.name in FORMATS:
            readme = entry / README
            if not readme.is_file() or not readme.read_bytes().startswith(
                (CARD_START, _not_asked(entry.name))
            ):
                return False
        else:
            return False
    return True


def _is_export_metrics(found: object) -> bool:
    return isinstance(found, dict) and {"version", "examples", "formats"} <= found.keys()


def check_outputs(out: Path, metrics_dir: Path | None) -> None:
    """Before any work: OUT may be replaced (absent, empty or a previous export) and export.json written."""
    io.check_output_dir(out, is_export, "export")
    if metrics_dir is not None:
        io.check_output_json(metrics_dir / "export.json", _is_export_metrics, "export", "--metrics")


def _build(
    tmp: Path,
    version: DatasetVersion,
    chosen: list[str],
    params: ExportParams,
    prov: Provenance,
    leaks: Leaks,
) -> tuple[dict[str, FormatReport], dict[str, float]]:
    """Every format folder and card inside `tmp`: (the reports, the seconds per format)."""
    reports: dict[str, FormatReport] = {}
    seconds: dict[str, float] = {}
    for fmt in FORMATS:
        (tmp / fmt).mkdir()
        if fmt in chosen:
            start = time.perf_counter()
            reports[fmt] = WRITERS[fmt](version, tmp / fmt, params)
            seconds[fmt] = time.perf_counter() - start
    for fmt in FORMATS:
        data = card(version, fmt, reports, leaks, prov) if fmt in reports else _not_asked(fmt)
        (tmp / fmt / README).write_bytes(data)
    (tmp / README).write_bytes(card(version, None, reports, leaks, prov))
    return reports, seconds


def _publish(tmp: Path, out: Path) -> None:
    """Each format folder, then the card, swapped into OUT with renames."""
    out.mkdir(exist_ok=True)
    for fmt in FORMATS:
        io.publish_dir(tmp / fmt, out / fmt)
    os.replace(tmp / README, out / README)


def _filter_metrics(path: Path) -> FilterMetrics:
    """filter-rows' filter.json (the card reads its counts); not an object is an InputError naming it."""
    found = io.read_json(path)
    if not isinstance(found, dict):
        raise io.InputError(f"{path}: expected filter-rows' metrics object")
    return cast("FilterMetrics", found)


def _provenance(
    params: ExportParams, sites: Path | None, pool: Path | None, filter_metrics: Path | None
) -> Provenance:
    from plandvc.io import tree_hash
    from plandvc.sites.spec import load_split

    return Provenance(
        license=params.license,
        sites_hash=tree_hash(sites) if sites else None,
        pool_hash=tree_hash(pool) if pool else None,
        test_sites=list(load_split(sites)["test"]) if sites else [],
        filter_metrics=_filter_metrics(filter_metrics) if filter_metrics else None,
    )


def export(
    rows: str | Path,
    out: str | Path,
    formats: str | Sequence[str] = "all",
    params: ExportParams | None = None,
    *,
    sites: str | Path | None = None,
    pool: str | Path | None = None,
    filter_metrics: str | Path | None = None,
    metrics_dir: str | Path | None = None,
    allow_empty: bool = False,
) -> ExportOutcome:
    """Export the version at `rows` to `out/<format>/` (see the module doc)."""
    rows, out = Path(rows), Path(out)
    metrics_at = Path(metrics_dir) if metrics_dir is not None else None
    params = params or ExportParams()
    chosen = parse_formats(formats)
    if out.resolve() == rows.resolve() or rows.resolve() in out.resolve().parents:
        raise ExportError(f"{out}: the export must not be inside the dataset version {rows}")
    check_outputs(out, metrics_at)
    with io.exclusive(out, "export"):
        version = DatasetVersion.open(rows)
        if not version.contents.examples and not allow_empty:
            raise ExportError(f"{rows}: no examples to export (--allow-empty exports an empty version)")
        prov = _provenance(
            params,
            Path(sites) if sites else None,
            Path(pool) if pool else None,
            Path(filter_metrics) if filter_metrics else None,
        )
        leaks = check_version(version, prov.test_sites)
        tmp = io.staging(out)
        try:
            reports, seconds = _build(tmp, version, chosen, params, prov, leaks)
            _publish(tmp, out)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        metrics = _metrics(version, reports, leaks)
        if metrics_at is not None:
            io.write_json(metrics_at / "export.json", metrics)
    return ExportOutcome(version, reports, leaks, metrics, seconds)
