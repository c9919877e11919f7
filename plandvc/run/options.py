"""The click options run-chains shares with the commands that run chains the same way (eval-specs,
eval-planner), declared once: the folder type, the cache of finished chains and the run params with their one
set of defaults (`RunParams`). `--workers` and `--ports` are plandvc.ports's (make-pool has them too)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import click

from plandvc.agent.dialects import DIALECTS
from plandvc.run.chain import RunParams

F = TypeVar("F", bound=Callable[..., object])
DIR = click.Path(file_okay=False, path_type=Path)
FILE = click.Path(dir_okay=False, path_type=Path)
DEFAULTS = RunParams()  # the one home of the run's defaults

# option, its type, the RunParams field holding its default, its help
_PARAMS: dict[str, tuple[click.ParamType, str, str]] = {
    "--budget": (click.IntRange(1), "budget", "specialist steps the reports count down from"),
    "--planner-turns": (click.IntRange(1), "planner_turns", "the planner's turn cap its prompt shows"),
    "--timeout-base": (click.FloatRange(1), "timeout_base", "per-chain timeout: base seconds"),
    "--timeout-per-turn": (click.FloatRange(0), "timeout_per_turn", "per-chain timeout: seconds per turn"),
}


def run_params(*names: str) -> Callable[[F], F]:
    """The options of the run params `names` (e.g. "--budget"), in that order, defaults from `RunParams`."""

    def apply(f: F) -> F:
        for name in reversed(names):
            kind, field, text = _PARAMS[name]
            f = click.option(name, type=kind, default=getattr(DEFAULTS, field), show_default=True, help=text)(
                f
            )
        return f

    return apply


def shown(name: str, kind: click.ParamType, default: float, help: str) -> Callable[[F], F]:
    """An option whose default `--help` shows."""
    return click.option(name, type=kind, default=default, show_default=True, help=help)


def share(name: str, default: float, help: str) -> Callable[[F], F]:
    """An option that is a share of the chains (0 to 1), e.g. --answer-share."""
    return shown(name, click.FloatRange(0, 1), default, help)


def cache(default: str, help: str, envvar: str | None = None) -> Callable[[F], F]:
    """--cache: the folder of finished chains a rerun resumes from."""
    return click.option(
        "--cache", type=DIR, envvar=envvar, default=Path(default), show_default=True, help=help
    )


def dialect() -> Callable[[F], F]:
    """--dialect: the planner input's dialect (plandvc.agent.dialects), recorded in each episode."""
    return click.option(
        "--dialect",
        type=click.Choice(list(DIALECTS)),
        default=DEFAULTS.dialect,
        show_default=True,
        help="how the planner's input writes the page, history and step info (params.yaml prompt.dialect)",
    )


def marks() -> Callable[[F], F]:
    """--marks: the screenshot with the dialect's set-of-marks, recorded in each episode that has them."""
    return click.option(
        "--marks",
        type=click.BOOL,
        default=DEFAULTS.marks,
        show_default=True,
        help="draw the agent's highlight boxes and indices on the planner's screenshot where the dialect's "
        "agent draws them (browser-use-0.5; params.yaml prompt.marks)",
    )
