"""Fixtures for the pool and replay tests: the bundled sites, the committed sample pool, a real sites server
on a free loopback port and one real Chromium per test module."""

from __future__ import annotations

import hashlib
import socket
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from plandvc.browser import Browser
from plandvc.io import read_jsonl
from plandvc.sites.spec import Spec, load_sites, site_name

ROOT = Path(__file__).resolve().parents[1]
SITES_DIR = ROOT / "data" / "sites"
POOL_DIR = ROOT / "data" / "pool"
SPECS: dict[str, Spec] = load_sites(SITES_DIR)
NAMES = {s: site_name(SITES_DIR, s) for s in SPECS}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def kept() -> list[dict[str, Any]]:
    return read_jsonl(POOL_DIR / "kept.jsonl")


def sample(per_macro: int = 2) -> list[dict[str, Any]]:
    """A fixed, stratified sample of the committed pool: `per_macro` kept parts of each macro, spread over
    sites by a hash of the id (the same every run)."""
    by_macro: dict[str, list[dict[str, Any]]] = {}
    for r in kept():
        by_macro.setdefault(r["macro"], []).append(r)
    out = []
    for macro in sorted(by_macro):
        rows = sorted(by_macro[macro], key=lambda r: hashlib.sha1(r["id"].encode()).hexdigest())
        out += rows[:per_macro]
    return out


@pytest.fixture(scope="module")
def ports() -> Iterator[list[int]]:
    """Ports of one real sites server serving data/sites."""
    from plandvc.sites.servers import Servers

    with Servers([free_port()], SITES_DIR) as servers:
        yield servers.ports


@pytest.fixture(scope="module")
def base(ports: list[int]) -> str:
    return f"http://127.0.0.1:{ports[0]}"


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def browser() -> AsyncIterator[Browser]:
    async with Browser() as b:
        yield b
