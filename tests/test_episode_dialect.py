"""Every episode records its dialect, the code's default (plandvc-v1) too: an episode never leaves the reader to
guess which dialect's page text its rows hold (issue 48, "one source for every default")."""

from __future__ import annotations

from types import SimpleNamespace
from typing import cast

import pytest

from plandvc.agent.dialects import DEFAULT, DIALECTS
from plandvc.records import ChainSpec, Part
from plandvc.run.chain import Played, RunParams, episode_of
from plandvc.run.plan import Plan

CHAIN = cast(ChainSpec, {"key": "k", "site": "s", "parts": [{"id": "t1", "via": None}]})
PARTS = cast(list[Part], [{"task": {"start": {"url": "/sites/s"}}, "traj": {"macro": "open_entry"}}])
PLAN = Plan(steps=[], turns=[], request="r", instruction_by="joined", answer=None)
PLAYED = cast(Played, SimpleNamespace(script=SimpleNamespace(response_format="json")))


@pytest.mark.parametrize("dialect", sorted(DIALECTS))
def test_every_episode_says_its_dialect(dialect: str) -> None:
    episode = episode_of(CHAIN, PARTS, PLAN, PLAYED, RunParams(dialect=dialect), None)
    assert episode["dialect"] == dialect


def test_the_default_dialect_is_said_too() -> None:
    assert RunParams().dialect == DEFAULT
    assert episode_of(CHAIN, PARTS, PLAN, PLAYED, RunParams(), None)["dialect"] == DEFAULT
