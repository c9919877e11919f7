"""Looks and pieces a generated site is drawn with: colour palettes, fonts, and which layout family, navigation,
pagination, banner and control implementations it gets.

Choices are made so a world covers every piece evenly (site `i` takes the `i`-th of a seeded permutation,
cycling), and the two sites of one domain never share a layout family.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace

from plandvc.sites.model import FAMILIES, FORMS, IMPLS, NAVS

# (accent, background, panel, text): muted, readable, distinct
PALETTES: tuple[tuple[str, str, str, str], ...] = (
    ("#c2410c", "#fff7ed", "#ffffff", "#1c1917"),
    ("#1d4ed8", "#f5f7fb", "#ffffff", "#111827"),
    ("#047857", "#f2f8f5", "#ffffff", "#102a22"),
    ("#7c3aed", "#f7f5ff", "#ffffff", "#1e1b2e"),
    ("#b91c1c", "#fbf6f4", "#ffffff", "#1f1515"),
    ("#0e7490", "#f0f8fa", "#ffffff", "#0f2329"),
    ("#a16207", "#fbf8ef", "#fffdf7", "#241d0c"),
    ("#be185d", "#fdf4f8", "#ffffff", "#2a1020"),
    ("#334155", "#f3f4f6", "#ffffff", "#0f172a"),
    ("#15803d", "#f6faf3", "#ffffff", "#132313"),
    ("#4338ca", "#f4f4fb", "#ffffff", "#17173a"),
    ("#9a3412", "#f7f3ef", "#fffcf9", "#2b1b12"),
)
FONTS = ("DejaVu Sans", "Liberation Sans", "DejaVu Serif", "Liberation Serif", "DejaVu Sans Condensed")
WORLD_PAGINATIONS = ("numbered", "nextprev", "loadmore")
WORLD_BANNERS = ("none", "cookie", "newsletter")
PAGE_SIZES = (10, 12, 15)


@dataclass(frozen=True)
class Look:
    """What one site is drawn with (everything but its data)."""

    family: str
    nav: str
    pagination: str
    page_size: int
    banner: str
    palette: tuple[str, str, str, str]
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
            pagination=self.pick(WORLD_PAGINATIONS, site_index),
            page_size=PAGE_SIZES[(site_index * 7) % len(PAGE_SIZES)],
            banner=self.pick(WORLD_BANNERS, site_index + 2 * domain_index),
            palette=PALETTES[(site_index * 5) % len(PALETTES)],
            font=FONTS[(site_index * 3 + domain_index) % len(FONTS)],
            radius=(0, 4, 8, 14)[(site_index + j) % 4],
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

    palettes = [p for p in PALETTES if p != look.palette]
    radii = [r for r in (0, 4, 8, 14) if r != look.radius]
    return replace(
        look,
        palette=rng.choice(palettes),
        font=other(FONTS, look.font),
        radius=rng.choice(radii),
        nav=other(NAVS, look.nav),
    )
