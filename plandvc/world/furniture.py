"""The world's furniture versions (`make-sites --furniture`): `v2` is the world as it was, `v3` adds the
applications' furniture (issue 40, item 5).

Under v3 every site gets a home page structure (`theme.home`: one of `HOMES`, today's `classic` among them), a
way its list filters apply (`theme.filters`: a facet sidebar with counts, one Apply for the whole filter form,
or filters that apply on change) and per-row actions (`theme.row_actions`: Edit and Delete on each row of a
table that has them). The choices come from their own seeded stream (`random.Random(f"{seed}:furniture")`),
never from the streams the rest of the world draws from, so a v2 world keeps its bytes and a v3 world keeps
every site's data, look and controls. Like the looks (`themes.Chooser`), each choice cycles through a seeded
permutation by the site's position, so any three consecutive domains show every home structure and any three
consecutive sites every filter form: a small `--domains` world covers them all.
"""

from __future__ import annotations

import random
from typing import Any

from plandvc.sites.model import FILTER_FORMS, HOMES

FURNITURES = ("v2", "v3")
V3_FILTERS = FILTER_FORMS[1:]  # v3 lists never keep today's one Apply per control


class Furnisher:
    """Seeded v3 choices over a world's sites, by the site's position in the world."""

    def __init__(self, seed: int):
        rng = random.Random(f"{seed}:furniture")
        self.homes = rng.sample(list(HOMES), len(HOMES))
        self.filters = rng.sample(list(V3_FILTERS), len(V3_FILTERS))

    def furnish(self, theme: dict[str, Any], site_index: int, domain_index: int) -> None:
        """Add the v3 keys to a site's theme object (in place). The home steps by one more per domain, so it
        does not follow the layout family (which steps by the site's position)."""
        theme["home"] = self.homes[(site_index + domain_index) % len(self.homes)]
        theme["filters"] = self.filters[site_index % len(self.filters)]
        theme["row_actions"] = True
