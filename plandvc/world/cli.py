"""`plandvc make-sites`: write the generated world's sites folder."""

from __future__ import annotations

import time
from pathlib import Path

import click

from plandvc.io import InputError, check_output_dir, exclusive

COMMAND = "make-sites"


def _is_world(path: Path) -> bool:
    """A previous output of make-sites: its world.json is there."""
    return (path / "world.json").is_file()


@click.command("make-sites")
@click.option("--seed", type=int, default=0, show_default=True, help="seed of names, data and looks")
@click.option("--out", "out", required=True, type=click.Path(path_type=Path), help="sites folder to write")
@click.option(
    "--per-domain", type=click.IntRange(1, 4), default=2, show_default=True, help="sites per domain"
)
@click.option(
    "--domains",
    default="all",
    show_default=True,
    help="'all', or a comma list of domain keys to generate (e.g. recipes,store)",
)
@click.option(
    "--theme-seed",
    type=int,
    default=None,
    help="re-theme every site (palette, font, corners, navigation) keeping its data and layout family",
)
@click.option(
    "--furniture",
    type=click.Choice(["v2", "v3"]),
    default="v3",
    show_default=True,
    help="v3: home pages in five structures, list filters as facets with counts, one Apply or on change, "
    "and per-row Edit/Delete (v2: dataset v2's world, byte for byte)",
)
@click.option(
    "--data",
    type=click.Choice(["v3", "v4"]),
    default="v3",
    show_default=True,
    help="v4: the data without what no user writes (whole slider steps on whole numbers, no team against "
    "itself, titles whose words go together); v3: dataset v3's world, byte for byte",
)
@click.option("--allow-empty", is_flag=True, help="write a world of no sites when --domains names none")
def make_sites(
    seed: int,
    out: Path,
    per_domain: int,
    domains: str,
    theme_seed: int | None,
    furniture: str,
    data: str,
    allow_empty: bool,
) -> None:
    """Generate the training world's sites from the domain definitions, seeded (same seed, same bytes).

    Each site gets its own layout family, navigation, control implementations, pagination, furniture and theme.
    --theme-seed T redraws each site's palette, font, corner radius and navigation (each differs from the
    site's own) and keeps its data, layout family, pagination, banner and controls: the same tasks on a
    redesigned site, to check that recorded trajectories still replay.
    Writes OUT/<site>/site.json and doc/README.md, OUT/site_split.json (whole domains held out for test)
    and OUT/world.json (what each site is drawn with). Serve them with `plandvc serve --sites OUT`.
    A --domains list that names no domain is an error unless --allow-empty; one writer at a time writes OUT
    (a second one says another make-sites is writing it).

    \b
    Example:
        plandvc make-sites --seed 0 --out data/world
        plandvc make-sites --seed 0 --out /tmp/small-world --domains recipes,store
        plandvc make-sites --seed 0 --theme-seed 1 --out data/world-rethemed
        plandvc make-sites --seed 0 --furniture v2 --out /tmp/world-v2 --domains recipes,store,maker
        plandvc make-sites --seed 0 --data v4 --out /tmp/world-v4
        plandvc serve --sites data/world --ports 8320
    """
    from plandvc.world.make import make_world

    t0 = time.monotonic()
    chosen = None if domains.strip() == "all" else tuple(k.strip() for k in domains.split(",") if k.strip())
    if chosen == () and not allow_empty:
        raise InputError(f"--domains {domains!r}: names no domain (--allow-empty writes a world of no sites)")
    with exclusive(out, COMMAND):
        check_output_dir(out, _is_world, COMMAND)
        summary = make_world(out, seed, per_domain, chosen, theme_seed, furniture, data)
    click.echo(
        f"wrote {summary.sites} sites of {summary.domains} domains ({summary.rows} rows) to {out} "
        f"in {time.monotonic() - t0:.1f}s; test domains: {', '.join(summary.test_domains)}"
    )
