"""chain-specs: the seeded walk that strings records into chains (`next_via`, `chain_specs`, `chain_key`).

A chain is 2–4 records of one site. Each part after the first is reached by `next_via` ("page": it starts on the
page the previous part stays on; "home": it starts on the home page, reached by a trip home). The rules read a
part's chain roles off its macro's record in the registry (`plandvc.macros`): `leaves_page`, `continues_page`,
`url_state`; a record of an unregistered macro has none of them. Parts act on
different controls with pairwise disjoint scopes and only the last may answer. One `random.Random(seed)` drives
the walk in one fixed order of draws, so a seed names one list of chains (docs/STAGES.md, "The chain
rules", states the rules and the order of draws).

The home rule (`home_rule`): a URL-state part (a filter or a sort) is checked on the query of the chain's last
page, so a trip home anywhere after it undoes it. `any_earlier` (the default) allows no trip home once any
earlier part of the chain is a URL-state part; `neighbour` is the older rule, which only looks at the part just
before (`next_via`), and so allows filter -(page)-> search -(home)-> ..., a chain that fails by construction;
`neighbour` gives the chains of earlier versions byte for byte.

The plain walk would scan every record of the site at every step; here each record's successors are computed once (the
candidates by page and the home starts, merged in id order), and a step only filters that list. The lists the
RNG chooses from are the plain walk's lists, element for element, so the draws and the chains are the same
(tests/test_chains_walk.py holds the plain walk as the reference).
"""

from __future__ import annotations

import hashlib
import heapq
import random
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from typing import TypedDict

from plandvc.io import InputError
from plandvc.macros import REGISTRY
from plandvc.records import ChainSpec, ItemRecord, Via

Record = ItemRecord
Chain = ChainSpec
PAGE_OVER_HOME = 0.75  # continuing on the page beats a trip home, 3:1
MISSES = 3  # a site that fails this many rounds drops out
HOME_RULES = ("any_earlier", "neighbour")  # the first is the default


def leaves_page(r: Record) -> bool:
    """Whether r's macro stays on its page and leaves it for the next part (`Macro.leaves_page`)."""
    m = REGISTRY.get(r["macro"])
    return m is not None and m.leaves_page


def continues_page(r: Record) -> bool:
    """Whether r's macro can start on a page an earlier part left changed (`Macro.continues_page`)."""
    m = REGISTRY.get(r["macro"])
    return m is not None and m.continues_page


def reads_last_query(r: Record) -> bool:
    """Whether r's check reads the query of the chain's last page, so a trip home after it undoes it
    (`Macro.url_state`)."""
    m = REGISTRY.get(r["macro"])
    return m is not None and m.url_state


def next_via(a: Record, b: Record) -> Via:
    """How b can follow a on one session: 'page', 'home' or None (the rules: module docstring)."""
    if a["answers"]:
        return None
    if (
        leaves_page(a)
        and a["stays"]
        and b["fresh"]
        and b["start"] == a["start"]
        and (continues_page(b) or b["answers"])
    ):
        return "page"
    if b["home_start"] and not reads_last_query(a):
        return "home"
    return None


def chain_key(site: str, ids: Sequence[str]) -> str:
    """`plan-<site>-<sha1 of the ids joined by +>[:10]`."""
    return f"plan-{site}-" + hashlib.sha1("+".join(ids).encode()).hexdigest()[:10]


class _Site:
    """One site's records in id order, with each record's successors (index, via) computed on first use."""

    def __init__(self, recs: list[Record]) -> None:
        self.recs = recs
        self.scope = [frozenset(r["scope"]) for r in recs]
        self.page_by_start: dict[str, list[int]] = defaultdict(list)
        self.home: list[int] = []
        for j, b in enumerate(recs):
            if b["fresh"] and (continues_page(b) or b["answers"]):
                self.page_by_start[b["start"]].append(j)
            if b["home_start"]:
                self.home.append(j)
        self._succ: dict[int, list[tuple[int, Via]]] = {}

    def successors(self, i: int) -> list[tuple[int, Via]]:
        """[(j, via)] for every j != i with next_via(recs[i], recs[j]), in id order."""
        got = self._succ.get(i)
        if got is None:
            a = self.recs[i]
            got = []
            if not a["answers"]:
                page = self.page_by_start.get(a["start"], []) if leaves_page(a) and a["stays"] else []
                home = self.home if not reads_last_query(a) else []
                page_set = set(page)
                last = -1
                for j in heapq.merge(page, home):
                    if j != last and j != i:
                        got.append((j, "page" if j in page_set else "home"))
                    last = j
            self._succ[i] = got
        return got


def _walk_one(
    site: _Site, rng: random.Random, sizes: Sequence[int], answer_share: float, home_rule: str = HOME_RULES[0]
) -> list[tuple[int, Via]]:
    """One random chain attempt on a site (maybe shorter than 2): the draws in their fixed order."""
    recs = site.recs
    k = rng.choice(sizes)
    i = rng.choice(range(len(recs)))
    if recs[i]["answers"]:
        return []
    chain: list[tuple[int, Via]] = [(i, None)]
    used, ctrls, scopes = {i}, {recs[i]["control"]}, set(site.scope[i])
    any_earlier = home_rule == "any_earlier"
    no_home = any_earlier and reads_last_query(recs[i])  # a URL-state part is in the chain: no trip home
    while len(chain) < k:
        nxt = [
            (j, v)
            for j, v in site.successors(chain[-1][0])
            if j not in used
            and recs[j]["control"] not in ctrls
            and site.scope[j].isdisjoint(scopes)
            and not (no_home and v == "home")
        ]
        if not nxt:
            break
        ans = [x for x in nxt if recs[x[0]]["answers"]]
        if len(chain) == k - 1 and ans and rng.random() < answer_share:  # end on a question
            chain.append(rng.choice(ans))
            break
        nxt = [x for x in nxt if not recs[x[0]]["answers"]] or nxt
        page = [x for x in nxt if x[1] == "page"]
        pick = rng.choice(page if page and rng.random() < PAGE_OVER_HOME else nxt)
        chain.append(pick)
        j = pick[0]
        used.add(j)
        ctrls.add(recs[j]["control"])
        scopes |= site.scope[j]
        no_home = no_home or (any_earlier and reads_last_query(recs[j]))
        if recs[j]["answers"]:
            break
    return chain


def chain_specs(
    records: Iterable[Record],
    n: int,
    sizes: Sequence[int] = (2, 3, 4),
    seed: int = 0,
    tries: int = 40,
    answer_share: float = 0.5,
    home_rule: str = HOME_RULES[0],
) -> list[Chain]:
    """Up to n chains `{key, site, parts: [{id, via}]}`, walked at random; sites take turns in sorted order.
    `home_rule` is `any_earlier` (no trip home after any URL-state part) or `neighbour` (no trip home straight
    after a URL-state part; an earlier one is not looked at)."""
    if home_rule not in HOME_RULES:
        raise InputError(f"home_rule: expected one of {', '.join(HOME_RULES)}, got {home_rule!r}")
    by_site: dict[str, list[Record]] = defaultdict(list)
    last = None
    for r in sorted(records, key=lambda r: r["id"]):
        if r["id"] == last:
            raise InputError(f"records: duplicate id {last!r}")
        last = r["id"]
        by_site[r["site"]].append(r)
    walks = {s: _Site(recs) for s, recs in by_site.items()}
    sizes = tuple(sizes)
    out: list[list[tuple[Record, Via]]] = []
    rng, seen = random.Random(seed), set()
    sites = sorted(by_site)
    misses: Counter[str] = Counter()
    while len(out) < n and sites:
        for name in list(sites):
            if len(out) >= n:
                break
            site, got = walks[name], None
            for _ in range(tries):
                chain = _walk_one(site, rng, sizes, answer_share, home_rule)
                key = "+".join(site.recs[j]["id"] for j, _ in chain)
                if len(chain) >= 2 and key not in seen:
                    seen.add(key)
                    got = [(site.recs[j], v) for j, v in chain]
                    break
            if got:
                out.append(got)
            else:
                misses[name] += 1
                if misses[name] >= MISSES:
                    sites.remove(name)
    rng.shuffle(out)
    return [
        {
            "key": chain_key(c[0][0]["site"], [r["id"] for r, _ in c]),
            "site": c[0][0]["site"],
            "parts": [{"id": r["id"], "via": v} for r, v in c],
        }
        for c in out
    ]


class WalkSummary(TypedDict):
    """chain-specs' counts: chains by size and site, trips home, pages continued, chains ending on a question."""

    chains: int
    by_size: dict[int, int]
    home_steps: int
    page_steps: int
    answers: int
    by_site: dict[str, int]


def summarise(chains: list[Chain], answering: set[str] | frozenset[str] = frozenset()) -> WalkSummary:
    """Counts for the stage's summary: chains by size and site, trips home, pages continued, ending on a question
    (`answering`: the ids of records that answer)."""
    return {
        "chains": len(chains),
        "by_size": dict(sorted(Counter(len(c["parts"]) for c in chains).items())),
        "home_steps": sum(p["via"] == "home" for c in chains for p in c["parts"]),
        "page_steps": sum(p["via"] == "page" for c in chains for p in c["parts"]),
        "answers": sum(c["parts"][-1]["id"] in answering or "goal" in c for c in chains),
        "by_site": dict(sorted(Counter(c["site"] for c in chains).items())),
    }
