"""The `Macro` record: everything the pipeline knows about one macro, in one place.

A macro is one kind of single-primitive task (filter by a dropdown, open an entry, ...). Its record names its
family (the specialist the planner delegates it to), the check kind its tasks are gated by, the kinds of scope
token its tasks name, its chain roles, its instruction phrases, its task generator and its scripted solution.
The registry (`plandvc.macros`) holds one record per macro; every stage reads the macro's facts from it.
"""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Literal

from plandvc.checks import CheckKind
from plandvc.macros.make import TaskMaker
from plandvc.macros.script import Executor
from plandvc.records import TaskDraft

Family = Literal["Navigation", "Filter", "Form", "Information"]
FAMILIES: tuple[str, ...] = ("Navigation", "Filter", "Form", "Information")
# what a scope token is about: `query:<list path>:<param>`, `table:<table>`, `entry:<table>/<id>`
ScopeKind = Literal["query", "table", "entry"]
# the theme's pieces a macro's tasks drive besides their control (world coverage)
Piece = Literal["form", "nav", "pagination"]

TaskGenerator = Callable[[TaskMaker, random.Random], Iterable[TaskDraft]]
Solution = Callable[[Executor], Awaitable[None]]


@dataclass(frozen=True)
class Macro:
    """One macro. The chain roles (the chain walk's rules are written in them):

    - `url_state`: its check reads the query string of the chain's last page, so a trip home after it undoes
      it. Such a part stays on its page, so it is also `leaves_page` and `continues_page`.
    - `leaves_page`: a part of it stays on its page and leaves it for the next part to go on from (via page).
    - `continues_page`: a part of it can start on a page an earlier part left changed (filtered, sorted,
      searched).
    - `question`: it only answers (its check is `answer`): the executor pool (pool_ids.txt) leaves it out and
      pool-items adds it back, because it can only end a chain.

    And for make-pool: `keeps_state` (a share of its tasks keep the state of an earlier task, `start.keep`) and
    `mid_chain_after` (a share of its tasks start mid-chain, after a task of this macro).

    What the composer, the goals, recovery, coverage and the applications know of it:

    - `narrows_list`: its parts narrow or order one list page (consecutive ones on one page merge into one noun
      phrase of the request); `goal_constraint`: a goal chain's constraints are made of it.
    - `asked`: a user asks for it (False: pages, tabs and trips home are the planner's to decide, and the
      composed walk leaves them out).
    - `delegations`: how the planner delegates it, per widget implementation of its control (the words this
      site's widget has, and no other), `(implementation, template)` pairs.
    - `goal_steps`: the goal steps (`count`, `top`, and the live steps `find`, `open`, `read`, `copy`, `delete`, `narrow:<action>`)
      whose turns are counted as this macro's.
    - `toggles`: doing it again with the right value keeps a wrong one (option checkboxes), so recovery never
      makes it fail with a wrong value.
    - `pieces`: the kinds of the theme's pieces its tasks drive besides their control (`form`, `nav`,
      `pagination`; world coverage).
    - `app_order`: its place in the order every application draws its tasks in (None: no application offers it)."""

    name: str
    family: Family
    check: CheckKind
    scope: frozenset[ScopeKind]
    phrases: tuple[str, ...]
    tasks: TaskGenerator
    solve: Solution
    url_state: bool = False
    leaves_page: bool = False
    continues_page: bool = False
    question: bool = False
    keeps_state: bool = False
    mid_chain_after: str | None = None
    narrows_list: bool = False
    goal_constraint: bool = False
    asked: bool = True
    delegations: tuple[tuple[str, str], ...] = ()
    goal_steps: frozenset[str] = frozenset()
    toggles: bool = False
    pieces: frozenset[Piece] = frozenset()
    app_order: int | None = None

    def delegation(self, implementation: str) -> str | None:
        """Its delegation's template for a control drawn as `implementation`; None: it has none."""
        return dict(self.delegations).get(implementation)

    def __post_init__(self) -> None:
        if self.url_state and not (self.leaves_page and self.continues_page):
            raise ValueError(
                f"macro {self.name}: a URL-state macro stays on its page (leaves_page, continues_page)"
            )
        if self.question != (self.check == "answer"):
            raise ValueError(f"macro {self.name}: a question macro is exactly one whose check is 'answer'")
        if not self.phrases:
            raise ValueError(f"macro {self.name}: no phrases")
        if self.goal_constraint and not self.narrows_list:
            raise ValueError(
                f"macro {self.name}: a goal's constraint narrows or orders its list (narrows_list)"
            )


Scope = frozenset[ScopeKind]


def url_state(
    name: str,
    family: Family,
    phrases: tuple[str, ...],
    tasks: TaskGenerator,
    solve: Solution,
    *,
    scope: Scope = frozenset({"query"}),
    mid_chain_after: str | None = None,
) -> Macro:
    """A macro whose check is the list page's query (a filter, a sort, a page or a tab): it sets only query
    parameters, stays on its page, and a trip home after it undoes it."""
    return Macro(
        name, family, "query", scope, phrases, tasks, solve, url_state=True, leaves_page=True,
        continues_page=True, mid_chain_after=mid_chain_after,
    )  # fmt: skip


def list_search(name: str, phrases: tuple[str, ...], tasks: TaskGenerator, solve: Solution) -> Macro:
    """A Filter macro whose check is `visited` (any page seen with its query, so a trip home after it does not
    undo it): a search; it stays on its list page and can start on a page left filtered."""
    scope: Scope = frozenset({"query"})
    return Macro(
        name, "Filter", "visited", scope, phrases, tasks, solve, leaves_page=True, continues_page=True
    )


def navigation(
    name: str,
    phrases: tuple[str, ...],
    tasks: TaskGenerator,
    solve: Solution,
    *,
    scope: Scope = frozenset(),
    mid_chain_after: str | None = None,
) -> Macro:
    """A Navigation macro whose check is `visited`: it goes to a page, and a later part goes on from there."""
    return Macro(name, "Navigation", "visited", scope, phrases, tasks, solve, mid_chain_after=mid_chain_after)


def form(
    name: str, check: CheckKind, scope: Scope, phrases: tuple[str, ...], tasks: TaskGenerator, solve: Solution
) -> Macro:
    """A Form macro: its check reads the table it saves to (created, updated or deleted entries)."""
    return Macro(name, "Form", check, scope, phrases, tasks, solve)


def question(
    name: str,
    scope: Scope,
    phrases: tuple[str, ...],
    tasks: TaskGenerator,
    solve: Solution,
    *,
    keeps_state: bool = False,
) -> Macro:
    """An Information macro that only answers (its check is `answer`), so it can only end a chain."""
    return Macro(
        name, "Information", "answer", scope, phrases, tasks, solve, question=True, keeps_state=keeps_state
    )
