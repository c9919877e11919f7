"""The `Macro` record: everything the pipeline knows about one macro, in one place.

A macro is one kind of single-primitive task (filter by a dropdown, open an entry, ...). Its record names its
family (the specialist the planner delegates it to), the check kind its tasks are gated by, the kinds of scope
token its tasks name, its chain roles, its instruction phrases, its task generator and its scripted solution.
The registry (`plandvc.macros`) holds one record per macro; every stage reads the macro's facts from it.
"""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable
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

TaskGenerator = Callable[[TaskMaker, random.Random], list[TaskDraft]]
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
    `mid_chain_after` (a share of its tasks start mid-chain, after a task of this macro)."""

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

    def __post_init__(self) -> None:
        if self.url_state and not (self.leaves_page and self.continues_page):
            raise ValueError(
                f"macro {self.name}: a URL-state macro stays on its page (leaves_page, continues_page)"
            )
        if self.question != (self.check == "answer"):
            raise ValueError(f"macro {self.name}: a question macro is exactly one whose check is 'answer'")
        if not self.phrases:
            raise ValueError(f"macro {self.name}: no phrases")


def url_state_filter(
    name: str,
    phrases: tuple[str, ...],
    tasks: TaskGenerator,
    solve: Solution,
    mid_chain_after: str | None = None,
) -> Macro:
    """A macro of the Filter family whose check is the list page's query (a filter or a sort): it sets only
    query parameters (its scope), stays on its page, and a trip home after it undoes it."""
    return Macro(
        name=name,
        family="Filter",
        check="query",
        scope=frozenset({"query"}),
        phrases=phrases,
        tasks=tasks,
        solve=solve,
        url_state=True,
        leaves_page=True,
        continues_page=True,
        mid_chain_after=mid_chain_after,
    )
