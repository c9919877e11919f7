"""The walk's options, once, for the two commands that walk chains: chain-specs (training chains, defaults from
`ChainParams`) and eval-specs (held-out chains, defaults from `plandvc.eval.specs.SpecsConfig`).

Each option's default is read off the params type it feeds (`walk_options(ChainParams)`), so a default lives in
one place; `plandvc.options.feeds` refuses, at import, a command whose option says another, and
tests/test_defaults.py holds the options, the params types and params.yaml's values to each other.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import TypeVar

import click

from plandvc.chains.compose import REQUESTS
from plandvc.chains.phrasing import PHRASING
from plandvc.io import InputError

F = TypeVar("F", bound=Callable[..., object])


WALK = ("n", "sizes", "seed", "tries", "answer_share", "recovery_share", "request", "goal_share", "phrasing",
        "goal_kinds", "hygiene")  # fmt: skip


def defaults_of(params: Callable[..., object]) -> dict[str, object]:
    """The walk's defaults as `params` (a params type) declares them; a KeyError naming a field it lacks."""
    declared = {n: p.default for n, p in inspect.signature(params).parameters.items()}
    lost = [n for n in WALK if n not in declared or declared[n] is inspect.Parameter.empty]
    if lost:
        raise KeyError(f"{getattr(params, '__name__', params)} has no default for {', '.join(lost)}")
    return {n: declared[n] for n in WALK}


def walk_options(params: Callable[..., object]) -> Callable[[F], F]:
    """The walk's options (--n, --sizes, --seed, --tries, --answer-share, --recovery-share, --request,
    --goal-share, --phrasing, --goal-kinds, --hygiene), each defaulting to `params`' field of its name."""
    d = defaults_of(params)
    sizes = d["sizes"]
    if not isinstance(sizes, tuple):
        raise TypeError(f"{getattr(params, '__name__', params)}.sizes: a tuple of sizes, got {sizes!r}")
    options = [
        click.option(
            "--n", "n", type=int, default=d["n"], show_default=True, help="How many chains (at most)."
        ),
        click.option(
            "--sizes",
            default=",".join(map(str, sizes)),
            show_default=True,
            help="Chain sizes to draw from, each 2–4.",
        ),
        click.option("--seed", type=int, default=d["seed"], show_default=True, help="The walk's RNG seed."),
        click.option(
            "--tries", type=int, default=d["tries"], show_default=True, help="Attempts per site per round."
        ),
        click.option(
            "--answer-share",
            type=float,
            default=d["answer_share"],
            show_default=True,
            help="P(end on a question when one can).",
        ),
        click.option(
            "--recovery-share",
            type=float,
            default=d["recovery_share"],
            show_default=True,
            help="Share of chains whose one part fails at its first attempt and is re-delegated (0: none; "
            "held-out recovery turns are scored apart).",
        ),
        click.option(
            "--request",
            type=click.Choice(REQUESTS),
            default=d["request"],
            show_default=True,
            help="The user's request: the parts' instructions joined at run time, or composed as a user states "
            "the goal (with the planner's delegations and the final message).",
        ),
        click.option(
            "--goal-share",
            type=float,
            default=d["goal_share"],
            show_default=True,
            help="Share of goal chains: constraints on one list, then a question answered from the state they "
            "leave (needs --request composed and --sites).",
        ),
        click.option(
            "--phrasing",
            type=click.Choice(PHRASING),
            default=d["phrasing"],
            show_default=True,
            help="The composed request's words: v3's, or varied (many phrasings drawn by the seed: the training "
            "set of the seeded split for chain-specs, the held-out set for eval-specs; needs --request composed).",
        ),
        click.option(
            "--goal-kinds",
            default=d["goal_kinds"],
            show_default=True,
            help="The goal chains' kinds: count,top (v3: a sort asks for the first entry, else a count) or a mix "
            "with shares of count, top, detail, lookup, compare, act (e.g. detail:0.5,lookup:0.2,compare:0.1,"
            "act:0.1,count:0.05,top:0.05).",
        ),
        click.option(
            "--hygiene",
            type=click.BOOL,
            default=d["hygiene"],
            show_default=True,
            help="Refuse the chains whose words have a hygiene problem (plandvc.chains.hygiene: float noise, a "
            "non-integer count, a self-contradicting entry, a garbled title, a false link, an undone step, an "
            "idle hop); needs --request composed.",
        ),
    ]

    def apply(f: F) -> F:
        for option in reversed(options):
            f = option(f)
        return f

    return apply


def check_walk_options(n: int, tries: int, answer_share: float, recovery_share: float) -> None:
    """The walk's numbers, each in its range, or one line naming the option."""
    if n < 1:
        raise InputError(f"--n: must be at least 1, got {n}")
    if tries < 1:
        raise InputError(f"--tries: must be at least 1, got {tries}")
    for option, share in (("--answer-share", answer_share), ("--recovery-share", recovery_share)):
        if not 0.0 <= share <= 1.0:
            raise InputError(f"{option}: must be in [0, 1], got {share}")
