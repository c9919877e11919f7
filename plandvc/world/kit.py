"""Short constructors for domain fields, so each domain reads as a compact table of columns."""

from __future__ import annotations

from plandvc.sites.model import Column
from plandvc.world.fields import Days, Field, Maker, Num, Pick


def text(name: str, label: str, make: Maker) -> Field:
    """A text column drawn by `make`."""
    return Field(Column(name, label, "text"), make)


def enum(
    name: str, label: str, values: tuple[str, ...], *, badge: bool = False, weights: tuple[float, ...] = ()
) -> Field:
    """An enum column (a status shown as a badge with `badge`)."""
    return Field(Column(name, label, "enum", display="badge" if badge else "plain"), Pick(values, weights))


def num(
    name: str, label: str, lo: float, hi: float, *, decimals: int = 0, prefix: str = "", suffix: str = "",
    nice: bool = False, stars: bool = False,
) -> Field:  # fmt: skip
    """A number column in [lo, hi]; `stars` shows it as a rating out of 5."""
    display = "stars" if stars else "plain"
    column = Column(name, label, "number", prefix=prefix, suffix=suffix, decimals=decimals, display=display)
    return Field(column, Num(lo, hi, decimals, nice))


def date(name: str, label: str, lo: int, hi: int) -> Field:
    """A date column `lo..hi` days from the site's today."""
    return Field(Column(name, label, "date"), Days(lo, hi))
