"""The macro registry: one `Macro` record per macro (its own module here), in one table, `REGISTRY`.

A macro is one kind of single-primitive task (filter by a dropdown, open an entry, ...); its family names the
specialist that does it. Its record (`plandvc.macros.macro.Macro`) holds its family, check kind, scope kinds,
chain roles, instruction phrases, task generator and scripted solution, so make-pool generates and records it,
pool-items and the chain walk join it into chains, the planner delegates it and filter-rows counts it, all from
this one table. The sets the stages read (`FAMILY_OF`, `MACROS`, `QA_MACROS`, and the composer's, the goals', recovery's
and the applications' `LIST_MACROS`, `UI_ONLY_MACROS`, `GOAL_MACROS`, `TOGGLES`, `APP_DRAW_ORDER`) are views
computed from it; no module outside this package names a macro to know a fact of it (tests/test_macro_names.py).

Adding a macro is one new module (its `MACRO` record) and its line in `_TABLE` (docs/POOL.md, "Adding a
macro"); `registered()` adds macros for the length of a `with` block (tests).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Set
from contextlib import contextmanager

from plandvc.macros import (
    choose_suggestion,
    copy_value,
    count_entries,
    create_entry,
    delete_entry,
    edit_entry,
    filter_by_date_range,
    filter_by_dropdown,
    filter_by_options,
    filter_by_slider,
    go_to_page,
    navigate_home,
    navigate_to_page,
    open_entry,
    report_information,
    search_by_text,
    sort_by_form,
    switch_tab,
)
from plandvc.macros.home import (
    CHAIN_HOME_DONE,
    HOME_MEMORY,
    HOME_STEP,
    home_path,
    home_trajectory,
    recorded_home_done,
)
from plandvc.macros.macro import FAMILIES, Family, Macro

__all__ = [
    "APP_DRAW_ORDER",
    "CHAIN_HOME_DONE",
    "FAMILIES",
    "FAMILY_OF",
    "FLAGGED_ROLES",
    "GOAL_MACROS",
    "HOME_MEMORY",
    "HOME_STEP",
    "LIST_MACROS",
    "MACROS",
    "QA_MACROS",
    "REGISTRY",
    "TOGGLES",
    "UI_ONLY_MACROS",
    "Family",
    "Macro",
    "delegation_template",
    "goal_step_macro",
    "home_path",
    "home_trajectory",
    "macro",
    "recorded_home_done",
    "registered",
    "registered_macros",
]

# The registry, in the order make-pool generates tasks in (one line per macro).
_TABLE: tuple[Macro, ...] = (
    navigate_to_page.MACRO,
    open_entry.MACRO,
    navigate_home.MACRO,
    filter_by_dropdown.MACRO,
    filter_by_options.MACRO,
    filter_by_slider.MACRO,
    filter_by_date_range.MACRO,
    sort_by_form.MACRO,
    search_by_text.MACRO,
    create_entry.MACRO,
    edit_entry.MACRO,
    report_information.MACRO,
    count_entries.MACRO,
    copy_value.MACRO,
    go_to_page.MACRO,
    switch_tab.MACRO,
    choose_suggestion.MACRO,
    delete_entry.MACRO,
)
REGISTRY: dict[str, Macro] = {m.name: m for m in _TABLE}

# control roles that need state the home page does not give: never a home start
FLAGGED_ROLES = frozenset({"prepared"})


def macro(name: str) -> Macro:
    """The registered macro `name`; a KeyError naming it and the known ones otherwise."""
    try:
        return REGISTRY[name]
    except KeyError:
        raise KeyError(f"unknown macro {name!r} (known: {', '.join(sorted(REGISTRY))})") from None


def registered_macros() -> tuple[Macro, ...]:
    """Every registered macro, in the registry's order."""
    return tuple(REGISTRY.values())


@contextmanager
def registered(*extra: Macro) -> Iterator[None]:
    """The registry with `extra` macros added for the length of the block, then as it was."""
    clash = [m.name for m in extra if m.name in REGISTRY]
    if clash:
        raise ValueError(f"macro {clash[0]!r} is registered already")
    REGISTRY.update((m.name, m) for m in extra)
    try:
        yield
    finally:
        for m in extra:
            del REGISTRY[m.name]


class _Names(Set[str]):
    """The names of the registered macros that `has` holds for, read at each use (a live view)."""

    def __init__(self, has: Callable[[Macro], bool]) -> None:
        self._has = has

    def _names(self) -> list[str]:
        return [m.name for m in REGISTRY.values() if self._has(m)]

    def __contains__(self, name: object) -> bool:
        return any(m.name == name and self._has(m) for m in REGISTRY.values())

    def __iter__(self) -> Iterator[str]:
        return iter(self._names())

    def __len__(self) -> int:
        return len(self._names())


class _FamilyOf(Mapping[str, str]):
    """Macro name -> family, of the registered macros (a live view)."""

    def __getitem__(self, name: str) -> str:
        return macro(name).family

    def __iter__(self) -> Iterator[str]:
        return iter(list(REGISTRY))

    def __len__(self) -> int:
        return len(REGISTRY)


FAMILY_OF: Mapping[str, str] = _FamilyOf()
MACROS: Set[str] = _Names(lambda m: True)
# the answer-only macros: pool_ids.txt leaves them out and pool-items adds them back (they only end a chain)
QA_MACROS: Set[str] = _Names(lambda m: m.question)
# the macros whose parts narrow or order one list page: consecutive ones on one page merge into one noun phrase
LIST_MACROS: Set[str] = _Names(lambda m: m.narrows_list)
# the constraints a goal chain is made of: they stay on their list page and narrow or order it
GOAL_MACROS: Set[str] = _Names(lambda m: m.goal_constraint)
# what a user never asks for: the planner decides on pages and tabs (the composed walk leaves them out)
UI_ONLY_MACROS: Set[str] = _Names(lambda m: not m.asked)
# doing them again with the right value keeps the wrong one (option checkboxes): never a `wrong_value` failure
TOGGLES: Set[str] = _Names(lambda m: m.toggles)


def delegation_template(name: str, implementation: str) -> str | None:
    """The delegation's template of macro `name` on a control drawn as `implementation`; None: it has none (or
    `name` is no registered macro)."""
    m = REGISTRY.get(name)
    return m.delegation(implementation) if m is not None else None


def goal_step_macro(step: str) -> str:
    """The macro a goal step's turn is counted as (`count`, `top`, `find`, `open`, `read`, `copy`, `delete`)."""
    for m in REGISTRY.values():
        if step in m.goal_steps:
            return m.name
    raise KeyError(f"no macro counts the goal step {step!r}")


def _app_draw_order() -> tuple[str, ...]:
    """The order every application draws its macros' tasks in (`Macro.app_order`)."""
    offered = sorted((m.app_order, m.name) for m in REGISTRY.values() if m.app_order is not None)
    return tuple(name for _, name in offered)


APP_DRAW_ORDER: tuple[str, ...] = _app_draw_order()
