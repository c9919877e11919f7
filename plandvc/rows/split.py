"""The train/val split of a dataset version: a seeded group split by part, so that val scores do not lie.

A chain is made of parts (recorded executor trajectories), and two chains often share a part: the same page,
the same delegation, the same report. A split by chain would put one trajectory in train and in val at once.
So the split is by *group*: every part id is a group, and so is every row prompt (its messages, with each
image replaced by the sha256 of its bytes), because two identical prompts in two splits are the same leak.
A chain's groups are its parts and its prompts.

The rule (`group_split`):

1. Each chain's *collateral* is the number of other chains that share one of its groups.
2. Val is filled with chains in the order (collateral, sha1(seed:key)) — the chains that cost the fewest
   others first, ties in a seeded random order — until it holds round(val_share × chains) chains. After each
   pick, every chain whose groups are all already in val joins val at no cost.
3. A chain that shares no group with val is `train`. A chain that shares a group with val but was not picked
   is `excluded`, with the group it shares and the val chain that holds it: it stays in the dataset version
   (its rows are good) but goes to no split, because either split would leak.
4. A chain whose row prompt an earlier chain (key order) of its split already holds, or that holds one prompt
   twice, is `excluded` too: the same example twice in a split would weigh double (at 1,500 chains, two chains
   that begin with two "go home" tasks and then the same part share their first turns).

`leak_check` recomputes, from the chains alone, the parts and prompts found in both train and val, and the
row prompts found twice within one split (duplicate rows); the exports and the metrics report them, and an
export refuses a version where any is not 0.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from plandvc.io import dumps

SPLITS = ("train", "val")
EXCLUDED = "excluded"
RULE = (
    "group split by part: part ids and identical prompts are groups; val takes chains in the order "
    "(chains sharing a group, sha1(seed:key)) up to round(val_share*chains), plus every chain whose groups "
    "are all in val; a chain sharing a group with val is otherwise excluded; a chain repeating a row prompt "
    "of an earlier chain (key order) of its split is excluded"
)


@dataclass(frozen=True)
class SplitChain:
    """What the split needs to know of a chain: its key, its parts and the fingerprints of its row prompts."""

    key: str
    parts: tuple[str, ...]
    prompts: tuple[str, ...] = ()

    def groups(self) -> set[str]:
        return {f"part:{p}" for p in self.parts} | {f"prompt:{h}" for h in self.prompts}


@dataclass(frozen=True)
class Assignment:
    """A chain's split (`train`, `val` or `excluded`) and, when excluded, why (one line)."""

    split: str
    detail: str = ""


@dataclass
class Leaks:
    """Parts and prompts found in both train and val (each with one train and one val chain holding it)."""

    shared_parts: dict[str, list[str]] = field(default_factory=dict)
    shared_prompts: dict[str, list[str]] = field(default_factory=dict)
    duplicate_rows: dict[str, list[str]] = field(default_factory=dict)  # same prompt twice in one split

    @property
    def crosses(self) -> bool:
        """A part or a prompt is in train and in val."""
        return bool(self.shared_parts or self.shared_prompts)

    @property
    def ok(self) -> bool:
        return not self.crosses and not self.duplicate_rows

    def first(self) -> str:
        """The first leak as one line ('' when there is none)."""
        for what, found in (("part", self.shared_parts), ("identical prompt", self.shared_prompts)):
            if found:
                name, (train, val) = sorted(found.items())[0]
                n = len(found)
                return f"{what} {name} is in train ({train}) and in val ({val}); {n} such {what}(s) in all"
        if self.duplicate_rows:
            name, (a, b) = sorted(self.duplicate_rows.items())[0]
            n = len(self.duplicate_rows)
            return (
                f"a row prompt ({name[:12]}) is in {a} and in {b} of one split; {n} duplicate row(s) in all"
            )
        return ""


def prompt_fingerprint(messages: object, image_sha: Mapping[str, str]) -> str:
    """sha256 of a row's prompt: its messages with each image file name replaced by its bytes' sha256."""

    def swap(obj: object) -> object:
        if isinstance(obj, dict):
            if obj.get("type") == "image_url" and isinstance(obj.get("image_url"), dict):
                url = str(obj["image_url"].get("url"))
                return {**obj, "image_url": {**obj["image_url"], "url": image_sha.get(url, url)}}
            return {k: swap(v) for k, v in obj.items()}
        if isinstance(obj, list):
            return [swap(v) for v in obj]
        return obj

    return hashlib.sha256(dumps(swap(messages), sort_keys=True)).hexdigest()


def _order_hash(seed: int, key: str) -> str:
    return hashlib.sha1(f"{seed}:{key}".encode()).hexdigest()


def group_split(chains: Iterable[SplitChain], val_share: float, seed: int = 0) -> dict[str, Assignment]:
    """Each chain's Assignment under the rule in the module doc; deterministic in (chains, val_share, seed)."""
    chains = sorted(chains, key=lambda c: c.key)
    groups = {c.key: c.groups() for c in chains}
    users: dict[str, set[str]] = {}
    for c in chains:
        for g in groups[c.key]:
            users.setdefault(g, set()).add(c.key)
    collateral = {
        c.key: len(set().union(*(users[g] for g in groups[c.key])) - {c.key}) if groups[c.key] else 0
        for c in chains
    }
    target = round(val_share * len(chains))
    val: set[str] = set()
    val_groups: set[str] = set()
    holder: dict[str, str] = {}  # group -> the val chain that brought it
    for c in sorted(chains, key=lambda c: (collateral[c.key], _order_hash(seed, c.key))):
        if len(val) >= target:
            break
        if c.key in val:
            continue
        val.add(c.key)
        for g in sorted(groups[c.key] - val_groups):
            holder[g] = c.key
        val_groups |= groups[c.key]
        for other in chains:  # chains now wholly inside val cost nothing more
            if other.key not in val and groups[other.key] and groups[other.key] <= val_groups:
                val.add(other.key)
    out: dict[str, Assignment] = {}
    for c in chains:
        if c.key in val:
            out[c.key] = Assignment("val")
            continue
        shared = sorted(groups[c.key] & val_groups)
        if not shared:
            out[c.key] = Assignment("train")
        else:
            g = shared[0]
            what = g.replace("part:", "part ", 1).replace("prompt:", "an identical prompt ", 1)
            out[c.key] = Assignment(EXCLUDED, f"shares {what[:40]} with val chain {holder[g]}")
    _exclude_repeated_rows(chains, out)
    return out


def _exclude_repeated_rows(chains: list[SplitChain], out: dict[str, Assignment]) -> None:
    """Step 4 of the rule: a chain with a row prompt that an earlier chain (key order) of its split already
    holds, or that it holds twice, is excluded: the same example twice would weigh double. Two chains that
    begin alike (two "go home" tasks from different pages, then the same part) share their first turns."""
    held: dict[tuple[str, str], str] = {}  # (split, prompt) -> the chain holding it
    for c in chains:
        split = out[c.key].split
        if split not in SPLITS:
            continue
        first = next((held[(split, h)] for h in c.prompts if (split, h) in held), None)
        if first is None and len(set(c.prompts)) < len(c.prompts):
            first = c.key
        if first is not None:
            out[c.key] = Assignment(EXCLUDED, f"repeats a row prompt of {split} chain {first}")
            continue
        held.update({(split, h): c.key for h in c.prompts})


def leak_check(chains: Iterable[SplitChain], split_of: Mapping[str, str]) -> Leaks:
    """Parts and prompts held by a train chain and by a val chain (excluded chains hold nothing)."""
    seen: dict[str, dict[str, str]] = {}  # group -> {split: first key}
    for c in sorted(chains, key=lambda c: c.key):
        s = split_of.get(c.key)
        if s not in SPLITS:
            continue
        for g in c.groups():
            seen.setdefault(g, {}).setdefault(s, c.key)
    leaks = Leaks()
    for g, by in sorted(seen.items()):
        if len(by) == 2:
            kind, name = g.split(":", 1)
            target = leaks.shared_parts if kind == "part" else leaks.shared_prompts
            target[name] = [by["train"], by["val"]]
    holders: dict[tuple[str, str], list[str]] = {}  # (split, prompt) -> the chains of its rows, with repeats
    for c in sorted(chains, key=lambda c: c.key):
        if split_of.get(c.key) in SPLITS:
            for h in c.prompts:
                holders.setdefault((split_of[c.key], h), []).append(c.key)
    for (_, h), keys in sorted(holders.items()):
        if len(keys) > 1:
            leaks.duplicate_rows[h] = keys[:2]
    return leaks
