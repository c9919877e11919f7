"""The `pool-items` and `chain-specs` commands: thin wrappers over plandvc.chains.items and .walk."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import cast

import click

from plandvc.chains.goal_kinds import V3_KINDS, parse_kinds
from plandvc.chains.items import check_pages, read_site_split, site_specs
from plandvc.chains.items import pool_items as load_pool_items
from plandvc.chains.make import ChainParams, make_chains
from plandvc.chains.options import check_walk_options, walk_options
from plandvc.chains.recovery import count_failures
from plandvc.chains.values import check_item
from plandvc.chains.walk import HOME_RULES, summarise
from plandvc.io import InputError, check_output_file, exclusive, raise_problems, read_jsonl, write_jsonl
from plandvc.options import feeds, fill
from plandvc.pool.store import Pool, read_ids
from plandvc.records import ChainSpec, ItemRecord

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


def _counts(d: Mapping[str, int] | Mapping[int, int]) -> str:
    return ", ".join(f"{k} {v}" for k, v in d.items()) or "none"


def is_item(record: Mapping[str, object]) -> bool:
    """Whether a line is a pool-items record (so an existing --out is a previous pool-items output)."""
    return {"id", "run", "dir", "site", "macro"} <= set(record)


def is_chain(record: Mapping[str, object]) -> bool:
    """Whether a line is a chain-specs record (so an existing --out is a previous chain-specs output)."""
    return {"key", "site", "parts"} <= set(record)


def check_ids(ids: Path | None, pool: Path) -> None:
    """Every id of the ids file names a kept trajectory of the pool; else one line per unknown id. The index is
    read as pool-items reads it: a bad line is pool-items' to count, but no index at all is an error. `ids`
    None: the pool's own ids (`Pool.ids_file`)."""
    kept = Pool.scan(pool)
    ids_path = kept.ids_file if ids is None else ids
    read_ids(ids_path)  # a missing or unreadable file: one line
    if not kept.index.is_file():
        raise InputError(f"{kept.index}: file not found")
    raise_problems(
        [
            f"{ids_path}:{n}: id {tid!r} is not a kept trajectory of {kept.index}"
            for n, tid in kept.unknown_ids(ids_path)
        ]
    )


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
@click.option("--allow-empty", is_flag=True, help="Write an empty items file when no record is usable.")
def pool_items(pool: Path, sites: Path, out: Path, ids: Path | None, qa: bool, allow_empty: bool) -> None:
    """Write one record per usable kept trajectory of a training site.

    The trajectories whose id is in the pool ids, plus (--qa) every kept report_information and count_entries
    trajectory; test sites never appear. Dropped trajectories are counted by reason and unreadable files named
    on stderr. Every id of --ids must be a kept trajectory; no usable record is an error (--allow-empty
    writes the empty file); an existing --out is replaced only when it is a previous pool-items output, and
    by one writer at a time (a second one says another pool-items is writing it).

    \b
    Example:
        plandvc pool-items --pool data/pool --sites data/sites --out data/items.jsonl
    """
    with exclusive(out, "pool-items"):
        check_output_file(out, is_item, "pool-items")
        read_site_split(sites)
        check_ids(ids, pool)
        records, report = load_pool_items(pool, sites, ids=ids, qa=qa)
        if not records and not allow_empty:
            raise InputError(
                f"{pool}: no usable trajectory ({report['kept']} kept, {report['chosen']} chosen); "
                "--allow-empty writes an empty items file"
            )
        write_jsonl(out, records)
    click.echo(
        f"pool-items: {report['records']} records from {report['chosen']} chosen of {report['kept']} kept",
        err=True,
    )
    click.echo(f"  by site: {_counts(report['by_site'])}", err=True)
    click.echo(f"  by macro: {_counts(report['by_macro'])}", err=True)
    click.echo(f"  dropped: {_counts(report['dropped'])}", err=True)
    for name in report.get("unknown_macros", []):
        click.echo(f"    unknown macro: {name}", err=True)
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
        check_item(cast(ItemRecord, item), f"{path}:{n}: ")
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


def write_chain_specs(
    items_path: Path, out: Path, sites: Path | None, allow_empty: bool, params: ChainParams
) -> tuple[list[ChainSpec], list[ItemRecord]]:
    """chain-specs' work: the items read, the chains made and written to `out` (holding its lock); the chains
    and the items."""
    p = params
    check_walk_options(p.n, p.tries, p.answer_share, p.recovery_share)
    parse_kinds(p.goal_kinds)  # a bad mix is one line before anything is read or written
    with exclusive(out, "chain-specs"):
        check_output_file(out, is_chain, "chain-specs")
        items = read_items(items_path)
        if not items and not allow_empty:
            raise InputError(f"{items_path}: no items (--allow-empty writes an empty chains file)")
        if p.goal_share and sites is None:
            raise InputError(
                "--goal-share: goal chains need --sites (their answers come from the sites' tables)"
            )
        specs = site_specs(sites) if sites is not None else None
        if sites is not None and specs:  # a folder of no site spec (a site split only) has no pages to check
            check_pages(items, specs, str(items_path), sites)
        chains = make_chains(items, p, specs)
        if not chains and not allow_empty:
            raise InputError(
                f"{items_path}: {len(items)} items make no chain (--allow-empty writes an empty chains file)"
            )
        write_jsonl(out, chains)
    return chains, items


@feeds(ChainParams, write_chain_specs)
@click.command("chain-specs")
@click.option("--items", "items_path", type=click.Path(path_type=Path), required=True, help="items.jsonl.")
@click.option("--out", type=click.Path(path_type=Path), required=True, help="chains.jsonl to write.")
@walk_options(ChainParams)
@click.option(
    "--home-rule",
    type=click.Choice(HOME_RULES),
    default=ChainParams.home_rule,
    show_default=True,
    help="When a trip home may follow: never after any URL-state part (any_earlier), or the old rule that "
    "only looks at the part just before (neighbour).",
)
@click.option(
    "--sites", type=click.Path(path_type=Path), default=None, help="Sites directory (goal chains' answers)."
)
@click.option("--allow-empty", is_flag=True, help="Write an empty chains file when no chain can be made.")
def chain_specs(**values: object) -> None:
    """Walk the items into chains of 2–4 parts of one site, deterministically in the seed.

    Sites take turns; parts use different controls with disjoint scopes; only the last part may answer; no
    trip home after a filter or sort (--home-rule). Each line of the output is {key, site, parts: [{id, via}]},
    via null, "page" or "home"; a --recovery-share of the chains (seeded apart from the walk, so the chains
    stay the same) also carry a failure {part, kind, sibling?}: that part's first attempt stops short, uses
    a wrong value or loses its form, and the planner re-delegates it. With --request composed each line also
    has the user's request, each part's delegation (`say`) and the final message, and a --goal-share of the
    chains end on a question answered from the state their constraints leave (`goal`). Empty items (or no
    chain made) is an error unless --allow-empty; --hygiene true refuses the chains whose words fail a hygiene check; an existing --out is replaced only when it is a previous
    chain-specs output, and by one writer at a time (a second one says another chain-specs is writing it).

    \b
    Example:
        plandvc chain-specs --items data/items.jsonl --out data/chains.jsonl --n 1500 --seed 0
        plandvc chain-specs --items data/items.jsonl --out data/chains.jsonl --recovery-share 0.2
        plandvc chain-specs --items data/items.jsonl --out data/chains.jsonl --request composed \\
            --goal-share 0.4 --sites data/world
        plandvc chain-specs --items data/items.jsonl --out data/chains.jsonl --request composed \\
            --sites data/world --hygiene true --phrasing varied
    """
    params = fill(ChainParams, values, sizes=parse_sizes(str(values["sizes"])))
    chains, items = fill(write_chain_specs, values, params=params)
    s = summarise(chains, {r["id"] for r in items if r["answers"]})
    click.echo(
        f"chain-specs: {s['chains']} chains from {len(items)} items (seed {params.seed}, home rule "
        f"{params.home_rule})",
        err=True,
    )
    click.echo(f"  by size: {_counts(s['by_size'])}", err=True)
    click.echo(
        f"  home steps {s['home_steps']}, page steps {s['page_steps']}, ending on a question {s['answers']}",
        err=True,
    )
    if params.request == "composed":
        click.echo(f"  goal chains {sum('goal' in c for c in chains)} (requests composed)", err=True)
        if params.goal_kinds != V3_KINDS:
            kinds = Counter(str(c["goal"]["kind"]) for c in chains if "goal" in c)
            click.echo(f"  goal kinds: {_counts(dict(sorted(kinds.items())))}", err=True)
    click.echo(f"  by site: {_counts(s['by_site'])}", err=True)
    if params.recovery_share:
        click.echo(f"  recovery chains: {_counts(count_failures(chains))}", err=True)


@click.command("chain-variety")
@click.option(
    "--chains",
    "paths",
    type=click.Path(path_type=Path, exists=True, dir_okay=False),
    multiple=True,
    required=True,
    help="A chains.jsonl with composed requests (repeat for several).",
)
@click.option("--n", type=click.IntRange(1), default=300, show_default=True, help="WebVoyager tasks drawn.")
@click.option("--seed", type=int, default=0, show_default=True, help="The seed of WebVoyager's draw.")
def chain_variety(paths: tuple[Path, ...], n: int, seed: int) -> None:
    """Print how varied the requests are beside WebVoyager's tasks: with values masked (quoted strings, numbers,
    dates), the distinct words, the share of distinct word 3-grams and the most used phrasing's share.

    \b
    Example:
        plandvc chain-variety --chains data/chains.jsonl
    """
    from plandvc.chains.variety import chains_variety, table, webvoyager_variety

    rows = [(f"webvoyager ({n}, seed {seed})", webvoyager_variety(n, seed))]
    rows += [(p.name, chains_variety(p)) for p in paths]
    click.echo(table(rows))
