"""`plandvc view`: a static HTML viewer of a dataset version and of the chains that did not make it.

No server, no CDN, no network: the pages open from the repo (`file://`) after `dvc repro` or `dvc pull`.
`read` finds the chains (kept, dropped by filter-rows, failed in the run), `build` computes what each page
shows, `write` renders the pages with their data embedded as JSON and publishes them in one swap.
"""

from __future__ import annotations

from pathlib import Path

from plandvc import io
from plandvc.io import InputError
from plandvc.rows.version import DatasetVersion
from plandvc.view.build import Site, build
from plandvc.view.read import read_chains
from plandvc.view.write import is_view, write_site


def _inside(a: Path, b: Path) -> bool:
    a, b = a.resolve(), b.resolve()
    return a == b or b in a.parents or a in b.parents


def make_view(dataset: str | Path, raw: str | Path | None, out: str | Path) -> Site:
    """Read the dataset version (and the raw run), write the viewer to `out`, return what it shows."""
    dataset, out = Path(dataset), Path(out)
    raw_dir = Path(raw) if raw is not None else None
    version = DatasetVersion.open(dataset)
    version.check_present()  # a listed screenshot that is gone is refused, as export refuses it
    if raw_dir is not None and not raw_dir.is_dir():
        raise InputError(f"{raw_dir}: no such raw run folder (run-chains' output)")
    for name, d in (("dataset", dataset), ("raw run", raw_dir)):
        if d is not None and _inside(out, d):
            raise InputError(f"{out}: the viewer must not contain or be inside the {name} folder {d}")
    io.check_output_dir(out, is_view, "view")
    with io.exclusive(out, "view"):
        sources = read_chains(version, raw_dir)
        site = build(version, sources, out, raw_given=raw_dir is not None)
        write_site(site, out)
    return site


__all__ = ["make_view"]
