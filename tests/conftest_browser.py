"""Fixtures for the browser-harness tests (imported by tests/test_browser*.py): the real sites server on a
free loopback port, one real Chromium per test module, and a fresh session per test."""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import pytest_asyncio

from plandvc.browser import Browser, Session
from plandvc.sites.spec import Spec, load_sites

SITES_DIR = Path(__file__).resolve().parents[1] / "data" / "sites"
SPECS: dict[str, Spec] = load_sites(SITES_DIR)
# every list page of every site, for parametrised tests
LIST_PAGES = [(site, page.page) for site, spec in sorted(SPECS.items()) for page in spec.pages]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def spec_with(predicate) -> tuple[Spec, object]:
    """The first (spec, page) of the bundled sites for which `predicate(spec, page)` holds."""
    for _, spec in sorted(SPECS.items()):
        for page in spec.pages:
            if predicate(spec, page):
                return spec, page
    raise LookupError("no bundled site has such a page")


def control_of(kind: str):
    """(spec, page, control) of the first control of `kind` in the bundled sites."""
    spec, page = spec_with(lambda s, p: any(c.kind == kind for c in p.controls))
    return spec, page, next(c for c in page.controls if c.kind == kind)


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    """The base URL of a real sites server (one process) serving data/sites."""
    from plandvc.sites.servers import Servers

    with Servers([free_port()], SITES_DIR) as servers:
        yield servers.bases[0]


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def browser() -> AsyncIterator[Browser]:
    async with Browser() as b:
        yield b


@pytest_asyncio.fixture(loop_scope="module")
async def session(browser: Browser, base: str) -> AsyncIterator[Session]:
    s = await browser.new_session(base)
    yield s
    await s.close()
