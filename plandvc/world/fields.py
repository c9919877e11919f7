"""The building blocks of a domain: how one column's values are drawn, and what a table of a domain holds.

A `Maker` draws one value from a seeded `random.Random` (never the global one), so a site's rows are a function
of its seed. Makers are small frozen records, so a domain reads as data: `Pick(CUISINES)`, `Num(5, 95)`,
`Days(-400, -1)`, `Words((ADJ, DISH))`, `Person()`.
"""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass
from typing import Protocol

from plandvc.sites.model import Column
from plandvc.world import vocab

Value = str | int | float


class Maker(Protocol):
    def draw(self, rng: random.Random, today: dt.date, i: int) -> Value: ...


@dataclass(frozen=True)
class Pick:
    """One of `values`, optionally weighted (so some options are common and some rare, as on real sites)."""

    values: tuple[str, ...]
    weights: tuple[float, ...] = ()

    def draw(self, rng: random.Random, today: dt.date, i: int) -> Value:
        if self.weights:
            return rng.choices(self.values, weights=self.weights)[0]
        return rng.choice(self.values)


@dataclass(frozen=True)
class Num:
    """A number in [lo, hi] with `decimals` places (`nice` rounds prices to .99 / .49 endings)."""

    lo: float
    hi: float
    decimals: int = 0
    nice: bool = False

    def draw(self, rng: random.Random, today: dt.date, i: int) -> Value:
        if self.decimals == 0:
            return rng.randint(int(self.lo), int(self.hi))
        v = rng.uniform(self.lo, self.hi)
        if self.nice:
            return round(int(v) + rng.choice((0.99, 0.49, 0.0, 0.95)), 2)
        return round(v, self.decimals)


@dataclass(frozen=True)
class Days:
    """An ISO date `lo..hi` days from the site's today (negative: in the past)."""

    lo: int
    hi: int

    def draw(self, rng: random.Random, today: dt.date, i: int) -> Value:
        return (today + dt.timedelta(days=rng.randint(self.lo, self.hi))).isoformat()


@dataclass(frozen=True)
class Words:
    """One word from each list joined by `sep` (a dish, a product, a title); labels stay distinct because the
    builder redraws a duplicate."""

    parts: tuple[tuple[str, ...], ...]
    sep: str = " "
    distinct: bool = False  # no word twice in one value ("Kingsbridge vs Kingsbridge" redrawn): data v4

    def draw(self, rng: random.Random, today: dt.date, i: int) -> Value:
        words = [rng.choice(p) for p in self.parts]
        while self.distinct and len(set(words)) < len(words):
            words = [rng.choice(p) for p in self.parts]
        return self.sep.join(words)


@dataclass(frozen=True)
class Person:
    """A full name from the shared first- and last-name lists."""

    def draw(self, rng: random.Random, today: dt.date, i: int) -> Value:
        return f"{rng.choice(vocab.FIRST)} {rng.choice(vocab.LAST)}"


@dataclass(frozen=True)
class Code:
    """An identifier-like text: `prefix` + a seeded number of `digits` (a SKU, a DOI, a booking code)."""

    prefix: str
    digits: int = 5
    suffix: str = ""

    def draw(self, rng: random.Random, today: dt.date, i: int) -> Value:
        return f"{self.prefix}{rng.randint(10 ** (self.digits - 1), 10**self.digits - 1)}{self.suffix}"


@dataclass(frozen=True)
class Sentence:
    """A description: one template filled from word lists (`{0}`, `{1}`, … are drawn from `parts`)."""

    templates: tuple[str, ...]
    parts: tuple[tuple[str, ...], ...]

    def draw(self, rng: random.Random, today: dt.date, i: int) -> Value:
        return rng.choice(self.templates).format(*(rng.choice(p) for p in self.parts))


@dataclass(frozen=True)
class Field:
    """One column of a domain table: the site's column it becomes (name, label, type, how it is shown; an
    enum's values are the ones its rows use, filled in when a site is built) and how its values are drawn."""

    column: Column
    make: Maker
    v4: Maker | None = None  # how world data v4 draws it, when not as `make` (`plandvc.world.data`)

    def maker(self, data: str) -> Maker:
        """How the world data version `data` draws this column."""
        return self.v4 if data == "v4" and self.v4 is not None else self.make


@dataclass(frozen=True)
class TableDef:
    """A table of a domain: its page, its fields and which of them the controls, forms and copy button use.

    `label` is the column that names an entry, `text` a description shown on cards, `dropdown` / `options` two
    enum columns, `slider` a number column, `date` a date column, `sort` and `search` the columns those read.
    An empty `create` / `edit` means the table has no such form (a read-only catalogue)."""

    name: str
    title: str
    singular: str
    id_prefix: str
    fields: tuple[Field, ...]
    label: str
    dropdown: str
    options: str
    slider: str
    date: str
    sort: tuple[str, ...]
    search: tuple[str, ...]
    text: str | None = None
    create: tuple[str, ...] = ()
    edit: tuple[str, ...] = ()
    copy: str | None = None
    slider_label: str = ""
    date_label: str = ""

    def field(self, name: str) -> Field:
        """The field of the column `name`; KeyError(name) when the table has none."""
        for f in self.fields:
            if f.column.name == name:
                return f
        raise KeyError(name)


@dataclass(frozen=True)
class Domain:
    """A kind of website: its site names, tagline, hero line and two tables (the first is its main list)."""

    key: str
    title: str  # what the domain is, for the docs ("recipes", "an online store")
    names: tuple[str, ...]  # site names to draw from; generic, no real brands
    tagline: str
    hero: str
    tables: tuple[TableDef, TableDef]
