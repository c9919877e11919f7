"""The world's domains (kinds of websites): one TOML file each in this folder, in the order sites are numbered.

A domain is data: its site names, tagline and two tables of columns, each column saying how its values are
drawn (plandvc/world/domains/load.py has the keys). Adding a domain is one `<key>.toml` here and its key in
`ORDER`; `tests/test_world_domains.py` checks that every file is listed and every listed key has its file.
"""

from __future__ import annotations

from pathlib import Path

from plandvc.world.domains.load import load_domain
from plandvc.world.fields import Domain

HERE = Path(__file__).parent
# the order sites are numbered in (two sites a domain)
ORDER = (
    "recipes",
    "store",
    "maker",
    "hotels",
    "flights",
    "places",
    "papers",
    "news",
    "dictionary",
    "courses",
    "sports",
    "code",
    "search",
    "hub",
    "knowledge",
)
DOMAINS: tuple[Domain, ...] = tuple(load_domain(HERE / f"{key}.toml") for key in ORDER)
