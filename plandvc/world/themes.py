"""Looks and pieces a generated site is drawn with: colour palettes, fonts, and which layout family, navigation,
pagination, banner and control implementations it gets.

The palettes, fonts, corner radii, paginations, banners and page sizes are data: `looks.toml` beside this
file, checked against `looks.schema.json` and read once into `OPTIONS`. Choices are made so a world covers
every piece evenly (site `i` takes the `i`-th of a seeded permutation, cycling), and the two sites of one
domain never share a layout family.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TypedDict, cast

from plandvc.errors import InputError
from plandvc.sites.model import BANNERS, FAMILIES, FORMS, IMPLS, NAVS, PAGINATIONS
from plandvc.world.domains.load import read_toml

LOOKS_FILE = Path(__file__).with_name("looks.toml")
LOOKS_SCHEMA = Path(__file__).with_name("looks.schema.json")
Palette = tuple[str, str, str, str]  # (accent, background, panel, text)


class LooksFile(TypedDict):
    """looks.toml as read (looks.schema.json has checked every type)."""

    palettes: list[list[str]]
    fonts: list[str]
    radii: list[int]
    paginations: list[str]
    banners: list[str]
    page_sizes: list[int]


@dataclass(frozen=True)
class LookOptions:
    """What looks are drawn from (looks.toml): sites take them by index or by seeded permutation."""

    palettes: tuple[Palette, ...]
    fonts: tuple[str, ...]
    radii: tuple[int, ...]
    paginations: tuple[str, ...]
    banners: tuple[str, ...]
    page_sizes: tuple[int, ...]


def read_options(path: Path) -> LookOptions:
    """The look options in `path`; a bad file or value is one `InputError` naming the file and the key."""
    d = cast(LooksFile, read_toml(path, LOOKS_SCHEMA))
    for key, values, known in (
        ("paginations", d["paginations"], PAGINATIONS),
        ("banners", d["banners"], BANNERS),
    ):
        for i, value in enumerate(values):
            if value not in known:
                raise InputError(f"{path}: {key}[{i}]: {value!r} is not one of {', '.join(known)}")
    return LookOptions(
        palettes=tuple((a, b, p, t) for a, b, p, t in d["palettes"]),
        fonts=tuple(d["fonts"]),
        radii=tuple(d["radii"]),
        paginations=tuple(d["paginations"]),
        banners=tuple(d["banners"]),
        page_sizes=tuple(d["page_sizes"]),
    )


OPTIONS = read_options(LOOKS_FILE)


@dataclass(frozen=True)
class Look:
    """What one site is drawn with (everything but its data)."""

    family: str
    nav: str
    pagination: str
    page_size: int
    banner: str
    palette: Palette
    font: str
    radius: int


class Chooser:
    """Seeded, even choices over a world of sites: `pick(options, i)` is the i-th of a seeded permutation."""

    def __init__(self, seed: int):
        self.rng = random.Random(f"world-looks:{seed}")
        self._perms: dict[tuple[str, ...], list[str]] = {}

    def pick(self, options: tuple[str, ...], i: int) -> str:
        if options not in self._perms:
            self._perms[options] = self.rng.sample(list(options), len(options))
        perm = self._perms[options]
        return perm[i % len(perm)]

    def look(self, domain_index: int, j: int, site_index: int) -> Look:
        """Site `j` (0 or 1) of domain `domain_index`: families step by two per domain, so both differ."""
        return Look(
            family=self.pick(FAMILIES, 2 * domain_index + j),
            nav=self.pick(NAVS, site_index + domain_index),
            pagination=self.pick(OPTIONS.paginations, site_index),
            page_size=OPTIONS.page_sizes[(site_index * 7) % len(OPTIONS.page_sizes)],
            banner=self.pick(OPTIONS.banners, site_index + 2 * domain_index),
            palette=OPTIONS.palettes[(site_index * 5) % len(OPTIONS.palettes)],
            font=OPTIONS.fonts[(site_index * 3 + domain_index) % len(OPTIONS.fonts)],
            radius=OPTIONS.radii[(site_index + j) % len(OPTIONS.radii)],
        )

    def impl(self, kind: str, site_index: int, page_index: int) -> str:
        return self.pick(IMPLS[kind], site_index + page_index)

    def form(self, site_index: int, table_index: int) -> str:
        return self.pick(FORMS, site_index + table_index)


def restyle(look: Look, theme_seed: int, slug: str) -> Look:
    """`look` re-themed: another palette, font, corner radius and navigation, drawn with (theme seed, site).

    What a site shows and how its pages are built stay: its layout family, pagination and page size, banner
    and control implementations (and, outside the look, its data). Each restyled piece differs from the
    original one, so every site of a re-themed world looks different. For checking that recorded
    trajectories survive a redesign (tests/test_world_theme.py).
    """
    rng = random.Random(f"world-theme:{theme_seed}:{slug}")

    def other(options: tuple[str, ...], current: str) -> str:
        return rng.choice([o for o in options if o != current])

    palettes = [p for p in OPTIONS.palettes if p != look.palette]
    radii = [r for r in OPTIONS.radii if r != look.radius]
    return replace(
        look,
        palette=rng.choice(palettes),
        font=other(OPTIONS.fonts, look.font),
        radius=rng.choice(radii),
        nav=other(NAVS, look.nav),
    )
