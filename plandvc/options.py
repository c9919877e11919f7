"""A command's options handed to the library by name: `fill(RunConfig, values, params=...)`.

A click command names its options as the fields of the record (or the parameters of the function) they feed,
so its body is one call instead of a list of `x=x` lines kept in step with the options above it by hand. A
name the target does not have is an error at once (`given`), and a required field with no option of its name
fails on the first run of the command, never quietly."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import TypeVar

R = TypeVar("R")


def fill(target: Callable[..., R], values: Mapping[str, object], **given: object) -> R:
    """`target` called with each of its parameters from `given`, else from the option of the same name (a
    parameter with neither keeps its default)."""
    names = inspect.signature(target).parameters
    unknown = sorted(set(given) - set(names))
    if unknown:
        raise TypeError(f"{getattr(target, '__name__', target)} has no parameter {', '.join(unknown)}")
    return target(**{n: given[n] if n in given else values[n] for n in names if n in given or n in values})
