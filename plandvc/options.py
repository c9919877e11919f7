"""A command's options handed to the library by name: `fill(RunConfig, values, params=...)`.

A click command names its options as the fields of the records (or the parameters of the functions) they
feed, so its body is one call instead of a list of `x=x` lines kept in step with the options above it by hand.
`feeds` checks the names when the command is defined (an option that feeds nothing is an error at import, so
the test suite's first import catches it), and the defaults: a record's field (or a function's parameter) is the
one home of its default, so an option that feeds it derives its default from there (`default=ChainParams.n`)
and one that says another is an error at import too; `fill` refuses a `given` name its target does not have."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Mapping
from typing import TypeVar

import click
from click.core import UNSET

R = TypeVar("R")


def feeds(*targets: Callable[..., object]) -> Callable[[click.Command], click.Command]:
    """Decorate a click command whose every option is a parameter of one of `targets` (else TypeError)."""

    def check(command: click.Command) -> click.Command:
        names = {n for t in targets for n in inspect.signature(t).parameters}
        lost = sorted(str(p.name) for p in command.params if p.name not in names)
        if lost:
            raise TypeError(f"{command.name}: option {', '.join(lost)} feeds none of {_names(targets)}")
        if drift := default_drift(command, targets):
            raise TypeError(f"{command.name}: {'; '.join(drift)}")
        return command

    return check


def default_drift(command: click.Command, targets: Iterable[Callable[..., object]]) -> list[str]:
    """The options of `command` whose default is not the default of the field or parameter they feed (a
    sequence default is shown as its comma list, as the option takes it; an option with no default passes None,
    a flag False)."""
    out = []
    for p in command.params:
        for t in targets:
            target = inspect.signature(t).parameters.get(str(p.name))
            if target is None or target.default is inspect.Parameter.empty:
                continue
            want = target.default
            if isinstance(want, tuple) and isinstance(p.default, str):
                want = ",".join(map(str, want))
            given = p.default if p.default is not UNSET else (False if getattr(p, "is_flag", False) else None)
            if given != want:
                out.append(f"option {p.name} defaults to {given!r}, {_names([t])}.{p.name} to {want!r}")
    return out


def fill(target: Callable[..., R], values: Mapping[str, object], **given: object) -> R:
    """`target` called with each of its parameters from `given`, else from the option of the same name (a
    parameter with neither keeps its default)."""
    names = inspect.signature(target).parameters
    unknown = sorted(set(given) - set(names))
    if unknown:
        raise TypeError(f"{_names([target])} has no parameter {', '.join(unknown)}")
    return target(**{n: given[n] if n in given else values[n] for n in names if n in given or n in values})


def _names(targets: Iterable[Callable[..., object]]) -> str:
    return ", ".join(getattr(t, "__name__", str(t)) for t in targets)
