"""TaskMaker: what every macro's task generator reads off a site spec and how it writes one task.

A generator (`Macro.tasks`) gets a TaskMaker for one (site, macro) and a seeded RNG, and returns its candidate
tasks in a fixed order; make-pool samples and numbers them (`plandvc.pool.tasks`). The maker reads the spec as
the site serves it (list and detail paths, the query parameters a page's controls set, how many rows a query
shows) and builds a task from its parts, drawing the instruction from the macro's phrases. Every name, label,
number and value an executor needs is written in the instruction exactly (labels and values in double quotes).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Iterator
from typing import Literal, NamedTuple

from plandvc.checks import Check
from plandvc.macros.home import home_path
from plandvc.records import Control as TaskControl
from plandvc.records import TaskDraft
from plandvc.sites.query import select_rows
from plandvc.sites.spec import Control, Page, Spec, Table

PER_MACRO = 8  # tasks per (site, macro), fewer when the site has fewer distinct ones
HOME_START_SHARE = 0.2  # of the tasks done on a list page: they start at home and go there first


class Choice(NamedTuple):
    """One way to set a list control: the query it makes, the words its phrase adds, the task's target values."""

    params: dict[str, list[str]]
    words: dict[str, str]
    target: dict[str, object]


ChoicesOf = Callable[[Page, Control, Table], Iterable[Choice]]


def control_tasks(
    kind: str, choices: ChoicesOf, check: Literal["query", "visited"] = "query"
) -> Callable[[TaskMaker, random.Random], Iterator[TaskDraft]]:
    """The task generator of a macro done with one list control: a task (`TaskMaker.list_task`) per choice
    that `choices` offers on each control of `kind`, in page order."""

    def tasks(make: TaskMaker, rng: random.Random) -> Iterator[TaskDraft]:
        for p, c in make.controls(kind):
            for ch in choices(p, c, make.table(p)):
                yield make.list_task(p, c, rng, ch.params, ch.words, check, **ch.target)

    return tasks


def fmt(value: object) -> str:
    """A value as instructions, fields and answers write it (numbers without a needless '.0')."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def list_path(site: str, page: str) -> str:
    return f"/sites/{site}/{page}"


def detail_path(site: str, page: str, entry_id: str) -> str:
    return f"/sites/{site}/{page}/{entry_id}"


def page_params(page: Page) -> list[str]:
    """Every query parameter the page's controls set (a part reading its rows takes all of them)."""
    return sorted({q for c in page.controls for q in c.query_params})


def plural(table: Table) -> str:
    return table.title.lower()


def count(page: Page, table: Table, pairs: list[tuple[str, str]]) -> int:
    """How many rows the list page shows for these query pairs (the server's own semantics)."""
    return len(select_rows(page, table, list(table.rows), pairs))


class TaskMaker:
    """Builds the tasks of one macro on one site from its spec."""

    def __init__(self, spec: Spec, site_name: str, macro: str, phrases: tuple[str, ...]):
        self.spec = spec
        self.site = spec.site
        self.site_name = site_name
        self.macro = macro
        self.phrases = phrases
        self.pages = list(spec.pages)
        self.home = home_path(self.site)

    def table(self, page: Page) -> Table:
        return self.spec.table_of(page)

    def list_path(self, page: Page) -> str:
        return list_path(self.site, page.page)

    def detail_path(self, page: Page, entry_id: str) -> str:
        return detail_path(self.site, page.page, entry_id)

    def tables(self) -> Iterator[tuple[Page, Table]]:
        """Every list page with its table, in page order."""
        for p in self.pages:
            yield p, self.spec.table_of(p)

    def controls(self, kind: str) -> Iterator[tuple[Page, Control]]:
        """Every (page, control) of this kind, in page order."""
        for p in self.pages:
            for c in p.controls:
                if c.kind == kind:
                    yield p, c

    def words(self, page: Page) -> dict[str, str]:
        """The words every phrase of a page may use: its title, the table's plural and singular, the site's name."""
        t = self.table(page)
        return {"title": page.title, "plural": plural(t), "singular": t.singular, "site_name": self.site_name}

    def task(
        self,
        page: Page | None,
        start_url: str,
        control: TaskControl,
        check: Check,
        scope: list[str],
        words: dict[str, str],
        rng: random.Random,
        verifier: dict[str, bool] | None = None,
        **target: object,
    ) -> TaskDraft:
        """One fresh task of this macro; its instruction is one of the macro's phrases filled with `words`, and
        `target` (with the page) is what the scripted solution acts on."""
        text = rng.choice(self.phrases).format(**words)
        if page is not None:
            target["page"] = page.page
        return {
            "site": self.site,
            "macro": self.macro,
            "instruction": text,
            "start": {"url": start_url, "kind": "fresh", "keep": False},
            "control": control,
            "check": check,
            "verifier": verifier or {},
            "scope": sorted(set(scope)),
            "target": target,
        }

    def url_start(self, lp: str, rng: random.Random) -> str:
        """The start of a task done on list page `lp`: there, or (one in five) the home page."""
        return self.home if rng.random() < HOME_START_SHARE else lp

    def list_task(
        self,
        p: Page,
        c: Control,
        rng: random.Random,
        params: dict[str, list[str]],
        words: dict[str, str],
        check: Literal["query", "visited"] = "query",
        **target: object,
    ) -> TaskDraft:
        """A task done with control `c` of list page `p`: it starts there (or, one in five, at home), its check
        (`query` or `visited`) is the list page with `params`, each param is in its scope, and only one part of
        a chain may set them (exclusive). `words` are added to the page's for the phrase."""
        lp = self.list_path(p)
        checked: Check = (
            {"kind": "query", "path": lp, "params": params}
            if check == "query"
            else {"kind": "visited", "path": lp, "params": params}
        )
        return self.task(
            p,
            self.url_start(lp, rng),
            {"control_id": c.control_id, "role": c.kind, "prep": {}},
            checked,
            [f"query:{lp}:{k}" for k in params],
            {**self.words(p), **words},
            rng,
            {"exclusive": True},
            control_id=c.control_id,
            **target,
        )

    def entry_start(
        self, p: Page, rid: str, from_list_share: float, rng: random.Random
    ) -> tuple[str, list[str]]:
        """(start URL, scope) of a task read off one entry: on its list page with probability `from_list_share`
        (then the list's query is in the scope too), else on its detail page."""
        lp = self.list_path(p)
        if rng.random() < from_list_share:
            return lp, [f"entry:{p.table}/{rid}", *(f"query:{lp}:{q}" for q in page_params(p))]
        return self.detail_path(p, rid), [f"entry:{p.table}/{rid}"]

    def new_value(self, t: Table, name: str, rng: random.Random, avoid: object = None) -> str | int | float:
        """A realistic value for a field, made from the table's own data (so it reads like the site)."""
        col = t.column(name)
        values = [r[name] for r in t.rows]
        for _ in range(50):
            if col.type == "enum":
                v: str | int | float = rng.choice(col.values)
            elif col.type == "number":
                nums = [float(x) for x in values]
                step = 1 if all(float(x).is_integer() for x in values) else 0.5
                lo, hi = min(nums), max(nums)
                v = round(rng.uniform(lo, hi) / step) * step
                v = int(v) if step == 1 else v
            elif col.type == "date":
                v = rng.choice(sorted({str(x) for x in values}))
                day = int(v[8:10])
                v = f"{v[:8]}{min(28, max(1, day + rng.choice((-2, -1, 1, 2)))):02d}"
            else:
                a, b = rng.choice(values), rng.choice(values)
                pa, pb = str(a).split(), str(b).split()
                v = " ".join(pa[:1] + pb[1:]) if len(pa) > 1 and len(pb) > 1 else f"{a} {rng.randint(2, 9)}"
            if str(v) != str(avoid) and str(v) not in {str(x) for x in values if col.type == "text"}:
                return v
        raise ValueError(f"no new value for column {name!r}")
