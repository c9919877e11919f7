"""chain-specs as one library call: the walk, the goal chains, the recovery failures, and the words.

`make_chains` strings the steps in their fixed order, each seeded apart, so a param that only adds a step
leaves the others' draws alone: with `request: joined` and `goal_share: 0` the chains are the walk's (and the
recovery draw's) byte for byte, as before either existed.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from plandvc.chains.compose import REQUESTS, compose_chains
from plandvc.chains.goal_kinds import V3_KINDS, AppKinds, app_kind_chains, kind_chains, parse_kinds
from plandvc.chains.goal_words import goal_words
from plandvc.chains.goals import Answer, goal_chains, site_answers
from plandvc.chains.hygiene import chain_problems
from plandvc.chains.phrasing import PHRASING, SETS
from plandvc.chains.recovery import assign_failures
from plandvc.chains.values import check_item
from plandvc.chains.walk import HOME_RULES, chain_specs
from plandvc.io import InputError
from plandvc.macros import UI_ONLY_MACROS
from plandvc.records import ChainSpec, ItemRecord
from plandvc.sites.model import Spec


@dataclass(frozen=True)
class ChainParams:
    """chain-specs' params (params.yaml `chains`): each changes the chains."""

    n: int = 300
    sizes: tuple[int, ...] = (2, 3, 4)
    seed: int = 0
    tries: int = 40
    answer_share: float = 0.5
    home_rule: str = HOME_RULES[0]
    recovery_share: float = 0.0
    request: str = REQUESTS[0]
    goal_share: float = 0.0
    goal_kinds: str = V3_KINDS  # the goal chains' mix (plandvc.chains.goal_kinds); v3: count and top
    hygiene: bool = False  # refuse the chains `plandvc.chains.hygiene` finds a problem in (v3: off)
    phrasing: str = PHRASING[0]  # v3's words, or varied (plandvc.chains.phrasing); composed requests only
    phrasing_set: str = SETS[0]  # the phrasings drawn: training (chain-specs), held-out (eval-specs)


HYGIENE_MARGIN = (
    0.5  # with `hygiene`, the chains are made for n * (1 + margin) and the first n clean ones kept
)


def make_chains(
    items: Sequence[ItemRecord],
    params: ChainParams,
    specs: Mapping[str, Spec] | None = None,
    answers: Mapping[str, Answer] | None = None,
    kinds: Mapping[str, AppKinds] | None = None,
) -> list[ChainSpec]:
    """The chains of `items` (an app's goals: its database's `answers` and its `kinds`); with `hygiene` (composed requests only) made for more than n, the ones with a
    hygiene problem (`plandvc.chains.hygiene`) refused, and the first n clean ones kept in order."""
    p = params
    if not p.hygiene:
        return _make_chains(items, p, specs, answers, kinds)
    if p.request != "composed":
        raise InputError("hygiene: the checks read composed words (request: composed)")
    more = replace(p, n=p.n + math.ceil(p.n * HYGIENE_MARGIN), hygiene=False)
    by_id = {r["id"]: r for r in items}
    made = _make_chains(items, more, specs, answers, kinds)
    return [c for c in made if not chain_problems(c, by_id, specs or {})][: p.n]


def _make_chains(
    items: Sequence[ItemRecord],
    params: ChainParams,
    specs: Mapping[str, Spec] | None = None,
    answers: Mapping[str, Answer] | None = None,
    kinds: Mapping[str, AppKinds] | None = None,
) -> list[ChainSpec]:
    """The chains of `items`: a composed request leaves out the parts a user never asks for (pages, tabs, trips
    home as parts); `goal_share` of the chains are goal chains (their answers need the sites' `specs`, or an
    app's `answers`),
    shuffled in among the walked ones by their own seed; then the recovery failures, then the words."""
    p = params
    for item in items:  # a pool's text never adds a line to a request, nor garbles its quotes
        check_item(item)
    if p.request not in REQUESTS:
        raise InputError(f"request: expected one of {', '.join(REQUESTS)}, got {p.request!r}")
    if not 0.0 <= p.goal_share <= 1.0:
        raise InputError(f"goal_share: must be in [0, 1], got {p.goal_share}")
    if p.phrasing_set not in SETS:
        raise InputError(f"phrasing_set: expected one of {', '.join(SETS)}, got {p.phrasing_set!r}")
    if p.phrasing != PHRASING[0] and p.request != "composed":
        raise InputError("phrasing: varied phrasing needs composed requests (request: composed)")
    mixed = parse_kinds(p.goal_kinds) is not None
    if mixed and answers is not None and kinds is None:
        raise InputError("goal_kinds: this app's goal chains are count and top only (goal_kinds: count,top)")
    if p.goal_share and p.request != "composed":
        raise InputError("goal_share: goal chains need composed requests (request: composed)")
    usable = (
        [r for r in items if r["macro"] not in UI_ONLY_MACROS] if p.request == "composed" else list(items)
    )
    n_goal = round(p.n * p.goal_share)
    chains = chain_specs(
        usable,
        p.n - n_goal,
        p.sizes,
        seed=p.seed,
        tries=p.tries,
        answer_share=p.answer_share,
        home_rule=p.home_rule,
    )
    if n_goal:
        if answers is None and specs is None:
            raise InputError("goal_share: goal chains need the sites (--sites)")
        if mixed and answers is not None and kinds is not None:
            chains += app_kind_chains(
                usable, answers, kinds, n_goal, p.goal_kinds, seed=p.seed, tries=p.tries
            )
        elif mixed:
            chains += kind_chains(usable, specs or {}, n_goal, p.goal_kinds, seed=p.seed, tries=p.tries)
        else:
            answers = answers if answers is not None else site_answers(specs or {})
            chains += goal_chains(usable, answers, n_goal, seed=p.seed, tries=p.tries)
        random.Random(f"goal-mix:{p.seed}").shuffle(chains)
    chains = assign_failures(chains, items, p.recovery_share, seed=p.seed)
    if p.request != "composed":
        return chains
    return compose_chains(
        chains, items, seed=p.seed, phrasing=p.phrasing, phrasing_set=p.phrasing_set, goal_words=goal_words
    )
