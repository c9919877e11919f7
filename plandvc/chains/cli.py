"""The `pool-items` and `chain-specs` commands: thin wrappers over plandvc.chains.items and .walk."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from plandvc.chains.items import pool_items as load_pool_items
from plandvc.chains.walk import chain_specs as walk_chains
from plandvc.chains.walk import summarise
from plandvc.io import InputError, read_jsonl, write_jsonl
from plandvc.records import ItemRecord

# the keys of an items.jsonl record the walk reads, and their types
ITEM_KEYS: dict[str, type | tuple[type, ...]] = {
    "id": str,
    "site": str,
    "macro": str,
    "start": str,
    "control": (str, type(None)),
    "scope": list,
    "answers": bool,
    "fresh": bool,
    "stays": bool,
    "home_start": bool,
}


def _counts(d: dict[str, Any]) -> str:
    return ", ".join(f"{k} {v}" for k, v in d.items()) or "none"


@click.command("pool-items")
@click.option("--pool", type=click.Path(path_type=Path), required=True, help="The executor pool directory.")
@click.option(
    "--sites", type=click.Path(path_type=Path), required=True, help="Sites directory (site_split.json)."
)
@click.option("--out", type=click.Path(path_type=Path), required=True, help="items.jsonl to write.")
@click.option(
    "--ids", type=click.Path(path_type=Path), default=None, help="Ids to chain [default: pool_ids.txt]."
)
@click.option("--qa/--no-qa", default=True, show_default=True, help="Add every kept question trajectory.")
def pool_items(pool: Path, sites: Path, out: Path, ids: Path | None, qa: bool) -> None:
    """Write one record per usable kept trajectory of a training site.

    The trajectories whose id is in the pool ids, plus (--qa) every kept report_information and count_entries
    trajectory; test sites never appear. Dropped trajectories are counted by reason and unreadable files named
    on stderr.

    \b
    Example:
        plandvc pool-items --pool data/pool --sites data/sites --out data/items.jsonl
    """
    try:
        records, report = load_pool_items(pool, sites, ids=ids, qa=qa)
    except InputError as e:
        raise click.ClickException(str(e)) from None
    write_jsonl(out, records)
    click.echo(
        f"pool-items: {report['records']} records from {report['chosen']} chosen of {report['kept']} kept",
        err=True,
    )
    click.echo(f"  by site: {_counts(report['by_site'])}", err=True)
    click.echo(f"  by macro: {_counts(report['by_macro'])}", err=True)
    click.echo(f"  dropped: {_counts(report['dropped'])}", err=True)
    click.echo(f"  unreadable: {len(report['unreadable'])}", err=True)
    for bad in report["unreadable"]:
        click.echo(f"    {bad['file']}: {bad['error']}", err=True)


def read_items(path: Path) -> list[ItemRecord]:
    """items.jsonl, each line checked for the keys the walk reads; a bad line names the file, line and key."""
    items = read_jsonl(path)
    ids: set[str] = set()
    for n, item in enumerate(items, 1):
        if not isinstance(item, dict):
            raise InputError(f"{path}:{n}: expected an object")
        for key, kind in ITEM_KEYS.items():
            if key not in item:
                raise InputError(f"{path}:{n}: missing key {key!r}")
            if not isinstance(item[key], kind):
                raise InputError(f"{path}:{n}: key {key!r} has the wrong type ({type(item[key]).__name__})")
        if item["id"] in ids:
            raise InputError(f"{path}:{n}: duplicate id {item['id']!r}")
        ids.add(item["id"])
    return items


def parse_sizes(text: str) -> tuple[int, ...]:
    """'2,3,4' -> (2, 3, 4); every size 2, 3 or 4."""
    try:
        sizes = tuple(int(s) for s in text.split(","))
    except ValueError:
        raise InputError(f"--sizes: expected sizes like 2,3,4, got {text!r}") from None
    bad = [s for s in sizes if not 2 <= s <= 4]
    if bad:
        raise InputError(f"--sizes: every size must be 2, 3 or 4, got {bad[0]}")
    return sizes


@click.command("chain-specs")
@click.option("--items", "items_path", type=click.Path(path_type=Path), required=True, help="items.jsonl.")
@click.option("--out", type=click.Path(path_type=Path), required=True, help="chains.jsonl to write.")
@click.option("--n", "n", type=int, default=1500, show_default=True, help="How many chains (at most).")
@click.option("--sizes", default="2,3,4", show_default=True, help="Chain sizes to draw from, each 2–4.")
@click.option("--seed", type=int, default=0, show_default=True, help="The walk's RNG seed.")
@click.option("--tries", type=int, default=40, show_default=True, help="Attempts per site per round.")
@click.option(
    "--answer-share", type=float, default=0.5, show_default=True, help="P(end on a question when one can)."
)
def chain_specs(
    items_path: Path, out: Path, n: int, sizes: str, seed: int, tries: int, answer_share: float
) -> None:
    """Walk the items into chains of 2–4 parts of one site, deterministically in the seed.

    Sites take turns; parts use different controls with disjoint scopes; only the last part may answer. Each
    line of the output is {key, site, parts: [{id, via}]}, via null, "page" or "home".

    \b
    Example:
        plandvc chain-specs --items data/items.jsonl --out data/chains.jsonl --n 1500 --seed 0
    """
    try:
        size_list = parse_sizes(sizes)
        if n < 1:
            raise InputError(f"--n: must be at least 1, got {n}")
        if tries < 1:
            raise InputError(f"--tries: must be at least 1, got {tries}")
        if not 0.0 <= answer_share <= 1.0:
            raise InputError(f"--answer-share: must be in [0, 1], got {answer_share}")
        items = read_items(items_path)
    except InputError as e:
        raise click.ClickException(str(e)) from None
    chains = walk_chains(items, n, size_list, seed=seed, tries=tries, answer_share=answer_share)
    write_jsonl(out, chains)
    s = summarise(chains, {r["id"] for r in items if r["answers"]})
    click.echo(f"chain-specs: {s['chains']} chains from {len(items)} items (seed {seed})", err=True)
    click.echo(f"  by size: {_counts(s['by_size'])}", err=True)
    click.echo(
        f"  home steps {s['home_steps']}, page steps {s['page_steps']}, ending on a question {s['answers']}",
        err=True,
    )
    click.echo(f"  by site: {_counts(s['by_site'])}", err=True)
