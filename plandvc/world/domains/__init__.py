"""The world's domains (kinds of websites), in the order sites are numbered."""

from __future__ import annotations

from plandvc.world.domains import code_search, cooking_shopping, data, learning, reading, travel
from plandvc.world.fields import Domain

DOMAINS: tuple[Domain, ...] = (
    cooking_shopping.DOMAINS
    + travel.DOMAINS
    + reading.DOMAINS
    + learning.DOMAINS
    + code_search.DOMAINS
    + data.DOMAINS
)
