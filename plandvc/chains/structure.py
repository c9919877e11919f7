"""The structure table (issue 45, item 5): what the chains ask for, by goal structure, beside WebVoyager's tasks.

Every chain gets one structure (the first rows of the table, one each) and two flags, all BY CONSTRUCTION from
its spec (the goal's `kind` and live `steps`, the parts' macros and vias, the pages they start on), never by
reading its words:
- a goal chain's structure is its goal kind: `detail` and `carry` (a value found, then used) are "find an entry,
  then report its details", `lookup`, `compare`, `act` (on the found entry), `top`, `count` their own rows;
- a walked chain of one run (consecutive list parts on one page, or one part): a `count_entries` question is
  a count, a `report_information` question a lookup (a named entry and a detail), list parts only a narrowed
  list, anything else (one edit, one page) "other";
- a walked chain of several runs is several unrelated asks, unless every run after the first opens an entry
  that the run before it leaves, from that list (`plandvc.chains.hygiene`'s link), which is "other" (one goal);
- *a found value carried*: the goal has a `find` step whose entry a later step carries, or is a `carry`;
- *one coherent goal*: not several unrelated asks;
- *planner steps*: the parts, plus the goal's live steps (or its one reading).

WebVoyager's column is the issue's labelling of its 643 tasks (`WEBVOYAGER`, cited there and in
../shared/REQUESTS.md, "What users ask for: goal structures"). `plandvc chain-structure --check` holds the chains to the issue's
"Must show" targets (`TARGETS`) and exits 1 naming each miss.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import cast

import click

from plandvc.chains.hygiene import chain_text, false_link, goal_steps
from plandvc.errors import InputError
from plandvc.io import read_jsonl
from plandvc.macros import LIST_MACROS
from plandvc.records import ChainSpec, ItemRecord

# the rows, in the order: (key, what the row counts)
STRUCTURES = (
    ("detail", "find an entry under constraints (or by search), then report its details"),
    ("lookup", "a named entry: open it and report a detail"),
    ("compare", "compare two or more entries"),
    ("act", "find an entry, then act on it (save, edit, book, delete)"),
    ("top", "which entry is first / best under constraints (name only)"),
    ("count", "how many entries meet constraints"),
    ("narrowed", "show a narrowed list, no question"),
    ("unrelated", "several unrelated asks in one request"),
    ("other", "other"),
)
FLAGS = (
    ("carried", "a later step needs an entry or value that only an earlier step reveals"),
    ("coherent", "one coherent goal"),
)
# WebVoyager's 643 tasks, labelled by goal structure (issue 45's table; ../shared/REQUESTS.md, "What users ask
# for: goal structures"): shares in %, and its planner steps (mean, max)
WEBVOYAGER_TASKS = 643
WEBVOYAGER: dict[str, float] = {
    "detail": 37.0,
    "lookup": 24.6,
    "compare": 3.0,
    "act": 1.7,
    "top": 9.3,
    "count": 5.0,
    "narrowed": 9.3,
    "unrelated": 0.5,
    "other": 9.2,
    "carried": 28.5,
    "coherent": 99.5,
}
WEBVOYAGER_STEPS = (3.5, 7)
# a goal chain's kind -> its row (the kinds issue 45 adds, and v3's count and top)
KIND_ROW = {
    "detail": "detail",
    "carry": "detail",
    "lookup": "lookup",
    "compare": "compare",
    "act": "act",
    "top": "top",
    "count": "count",
}
# issue 45's "Must show": (label, rows summed, at least, at most) on shares in %
TARGETS: tuple[tuple[str, tuple[str, ...], float | None, float | None], ...] = (
    ("detail + lookup", ("detail", "lookup"), 45.0, None),
    ("a found value carried", ("carried",), 25.0, None),
    ("compare", ("compare",), 3.0, None),
    ("act on the found entry", ("act",), 3.0, None),
    ("count", ("count",), None, 12.0),
    ("unrelated asks", ("unrelated",), None, 5.0),
)
MIN_MEAN_STEPS = 3.4


@dataclass(frozen=True)
class Label:
    """One chain's structure, flags and planner steps."""

    structure: str
    carried: bool
    steps: int

    @property
    def coherent(self) -> bool:
        return self.structure != "unrelated"


def _runs(chain: ChainSpec, items: Mapping[str, ItemRecord]) -> list[list[int]]:
    """The parts' indices in runs: consecutive list parts on one page, each after the first reached by page."""
    runs: list[list[int]] = []
    for i, p in enumerate(chain["parts"]):
        r = items[p["id"]]
        if runs and p["via"] == "page":
            prev = items[chain["parts"][runs[-1][-1]]["id"]]
            same = r.get("ask", {}).get("page") == prev.get("ask", {}).get("page")
            if r["macro"] in LIST_MACROS and prev["macro"] in LIST_MACROS and same:
                runs[-1].append(i)
                continue
        runs.append([i])
    return runs


def carried(chain: ChainSpec) -> bool:
    """Whether a later step of the goal carries what an earlier step found (or the goal is a carry)."""
    goal = chain.get("goal")
    if goal is None:
        return False
    if goal["kind"] == "carry":
        return True
    found: set[str] = set()
    for step in goal_steps(goal):
        if step["do"] != "find" and step["name"] in found:
            return True
        if step["do"] == "find":
            found.add(step["name"])
    return False


def label(chain: ChainSpec, items: Mapping[str, ItemRecord]) -> Label:
    """A chain's structure by construction (module docstring); a KeyError names an unknown part or goal kind."""
    goal = chain.get("goal")
    parts = len(chain["parts"])
    if goal is not None:
        kind = str(goal["kind"])
        if kind not in KIND_ROW:
            raise KeyError(f"goal kind {kind!r}")
        return Label(KIND_ROW[kind], carried(chain), parts + max(1, len(goal_steps(goal))))
    runs = _runs(chain, items)
    macros = [items[p["id"]]["macro"] for p in chain["parts"]]
    if len(runs) > 1:
        linked = "ask" in items[chain["parts"][0]["id"]] and _linked(chain, items, runs)
        return Label("other" if linked else "unrelated", False, parts)
    if macros[-1] == "count_entries":
        structure = "count"
    elif macros[-1] == "report_information":
        structure = "lookup"
    elif all(m in LIST_MACROS for m in macros):
        structure = "narrowed"
    else:
        structure = "other"
    return Label(structure, False, parts)


def _linked(chain: ChainSpec, items: Mapping[str, ItemRecord], runs: Sequence[Sequence[int]]) -> bool:
    """Every run after the first is one entry part opened from the list the run before it leaves."""
    if any(len(r) != 1 or "entry" not in items[chain["parts"][r[0]]["id"]].get("ask", {}) for r in runs[1:]):
        return False
    c = chain_text({**chain, "request": "among them"}, items, {})
    return not false_link(c)


def coverage_listing(items_path: Path, sites_path: Path) -> str:
    """Per training site, the goal kinds it cannot make and why (`plandvc.chains.goal_kinds.coverage`)."""
    from plandvc.chains.goal_kinds import NEEDS, coverage
    from plandvc.chains.items import read_site_split, site_specs

    items = cast(list[ItemRecord], read_jsonl(items_path))
    specs = site_specs(sites_path)
    train = sorted(read_site_split(sites_path)[0] & set(specs))
    got = coverage(items, specs, train)
    lines = [f"goal kinds ({', '.join(NEEDS)}) on {len(train)} training sites:"]
    for site, missing in got.items():
        lines.append(f"- {site}: " + ("every kind" if not missing else f"all but {', '.join(missing)}"))
        lines += [f"  - {why}" for why in missing.values()]
    return "\n".join(lines)


@dataclass(frozen=True)
class Table:
    """The chains' shares (%) by row and flag, their planner steps (mean, max), and how many chains."""

    chains: int
    shares: dict[str, float]
    mean_steps: float
    max_steps: int

    def misses(self) -> list[str]:
        """The issue's targets these chains miss, one line each (empty: every target met)."""
        out = []
        for name, rows, lo, hi in TARGETS:
            got = round(sum(self.shares[r] for r in rows), 1)
            if lo is not None and got < lo:
                out.append(f"{name}: {got} % is below {lo} %")
            if hi is not None and got > hi:
                out.append(f"{name}: {got} % is above {hi} %")
        if self.mean_steps < MIN_MEAN_STEPS:
            out.append(f"planner steps: mean {self.mean_steps} is below {MIN_MEAN_STEPS}")
        return out

    def markdown(self) -> str:
        """The table beside WebVoyager's column."""
        lines = [
            f"| goal structure | WebVoyager ({WEBVOYAGER_TASKS}) | these chains ({self.chains}) |",
            "|---|---|---|",
        ]
        for key, what in STRUCTURES + FLAGS:
            lines.append(f"| {what} | {WEBVOYAGER[key]:.1f} % | {self.shares[key]:.1f} % |")
        mean, most = WEBVOYAGER_STEPS
        lines.append(
            f"| planner steps, mean (max) | {mean} ({most}) | {self.mean_steps} ({self.max_steps}) |"
        )
        return "\n".join(lines)


def structure_table(chains: Sequence[ChainSpec], items: Mapping[str, ItemRecord]) -> Table:
    """The structure table of `chains` (their parts' items by id); no chain is an InputError."""
    if not chains:
        raise InputError("no chains: nothing to label")
    labels = [label(c, items) for c in chains]
    n = len(labels)
    count = Counter(x.structure for x in labels)
    shares = {key: round(100 * count[key] / n, 1) for key, _ in STRUCTURES}
    shares["carried"] = round(100 * sum(x.carried for x in labels) / n, 1)
    shares["coherent"] = round(100 * sum(x.coherent for x in labels) / n, 1)
    steps = [x.steps for x in labels]
    return Table(n, shares, round(sum(steps) / n, 2), max(steps))


def read_table(chains_path: Path, items_path: Path) -> Table:
    """The structure table of a chains file and its items file; a chain part or goal kind they do not know is
    one line naming the file and the chain."""
    items = {str(r["id"]): r for r in read_jsonl(items_path)}
    chains = read_jsonl(chains_path)
    for n, c in enumerate(chains, 1):
        where = f"{chains_path}:{n}"
        if not isinstance(c, dict) or not {"key", "site", "parts"} <= set(c):
            raise InputError(f"{where}: not a chain (expected key, site and parts)")
        for p in c["parts"]:
            if p.get("id") not in items:
                raise InputError(f"{where}: part {p.get('id')!r} is not in {items_path}")
        kind = c.get("goal", {}).get("kind")
        if kind is not None and kind not in KIND_ROW:
            raise InputError(f"{where}: unknown goal kind {kind!r} (known: {', '.join(KIND_ROW)})")
    return structure_table(cast(list[ChainSpec], chains), cast(dict[str, ItemRecord], items))


@click.command("chain-structure")
@click.option("--chains", "chains_path", type=click.Path(path_type=Path), required=True, help="chains.jsonl.")
@click.option("--items", "items_path", type=click.Path(path_type=Path), required=True, help="items.jsonl.")
@click.option("--check", is_flag=True, help="Exit 1 naming each of issue 45's targets the chains miss.")
@click.option(
    "--sites",
    "sites_path",
    type=click.Path(path_type=Path),
    default=None,
    help="Sites directory: also list, per training site, the goal kinds its data cannot make, and why.",
)
def chain_structure(chains_path: Path, items_path: Path, check: bool, sites_path: Path | None) -> None:
    """Print the chains' goal structures beside WebVoyager's tasks, labelled by construction from the specs.

    One row per structure (detail, lookup, compare, act on the found entry, top, count, narrowed list,
    unrelated asks, other), the share of chains that carry a found value and of one coherent goal, and the
    planner steps' mean and max. --check holds them to issue 45's targets and exits 1 naming each miss.
    --sites adds the goal kinds' coverage: per training site, each kind its data and recorded parts cannot make.

    \b
    Example:
        plandvc chain-structure --chains data/chains.jsonl --items data/items.jsonl
        plandvc chain-structure --chains data/chains.jsonl --items data/items.jsonl --check
        plandvc chain-structure --chains data/chains.jsonl --items data/items.jsonl --sites data/world
    """
    table = read_table(chains_path, items_path)
    click.echo(table.markdown())
    if sites_path is not None:
        click.echo("\n" + coverage_listing(items_path, sites_path))
    misses = table.misses() if check else []
    for line in misses:
        click.echo(f"miss: {line}", err=True)
    if misses:
        raise InputError(f"{chains_path}: {len(misses)} of issue 45's targets missed")
