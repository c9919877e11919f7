"""The bundled sites (`data/sites`): their `site.json` and `doc/README.md` written from seeded generators (run
once; commit the output).

    .venv/bin/python -m plandvc.sites.bundled [OUT_DIR]     # OUT_DIR: data/sites

One module a site (`shop.py`, ... each a `make()`), built of `kit.py`'s names, dates, columns and controls.

The committed site.json files are the source of truth; this script only documents how their data was made.
Each site has its own `random.Random(seed)`, so re-running it writes the same bytes.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from plandvc.io import write_bytes, write_json
from plandvc.sites.bundled import clinic, fleet, hotel, library, school, shop
from plandvc.sites.bundled.kit import SiteJson
from plandvc.sites.spec import load_spec

OUT = Path("data/sites")  # the bundled sites' folder, from the repository root
# one module a site (its `make`), in the order they are written
SITES: dict[str, Callable[[], tuple[SiteJson, str]]] = {
    "shop": shop.make, "clinic": clinic.make, "fleet": fleet.make, "library": library.make, "hotel": hotel.make,
    "school": school.make,
}  # fmt: skip
SPLIT = {"train": ["clinic", "fleet", "hotel", "library", "shop"], "test": ["school"]}


def main(argv: list[str] | None = None) -> None:
    """Write every site (and the split) to `argv[0]`, default: `OUT`."""
    args = sys.argv[1:] if argv is None else argv
    out = Path(args[0]) if args else OUT
    for site, make in SITES.items():
        spec, doc = make()
        write_json(out / site / "site.json", spec, sort_keys=False)
        write_bytes(out / site / "doc" / "README.md", doc.encode("utf-8"))
        load_spec(out / site / "site.json")  # validate what was written
    write_json(out / "site_split.json", SPLIT)
    print(f"wrote {len(SITES)} sites to {out.name}/")
