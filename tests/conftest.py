"""The shared fixtures of the test suite, each defined once: a real sites server on a free loopback port, one
real Chromium per test module, a fresh browser session per test, and the generated world with its pool items
made once per session. Every test's default log directory is a temporary one and hypothesis keeps no database,
so no test writes into the checkout.

`make test` runs the suite on two pytest-xdist workers with `--dist loadfile`: each test file runs whole on one
worker, so a module fixture is made once and a session fixture once per worker (each worker is its own process
with its own temporary folders; servers take free ports).

The plain helpers the tests import live in their own modules beside this one: `bundled` (the bundled sites
and sample pool, whose items `pool_items_once` reads once per process), `sites_http` (an HTTP client and page
reader), `agent_doubles` (fakes for the agent tests), `chain_pools` (records and pools for the chains tests),
`raw_chains` (run-chains output for the rows tests) and `openai_double` (an OpenAI-protocol server)."""

from __future__ import annotations

import fcntl
import os
import pickle
import tempfile
from collections import Counter
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import TypeVar

import pytest
import pytest_asyncio
from hypothesis import settings
from hypothesis.configuration import set_hypothesis_home_dir

# hypothesis keeps no example database and its caches in a temporary directory (its default, .hypothesis/,
# is in the checkout); the property tests are derandomized, so a failure reproduces from the test alone
settings.register_profile("plandvc", database=None)
settings.load_profile("plandvc")
set_hypothesis_home_dir(tempfile.mkdtemp(prefix="plandvc-hypothesis-"))

# the helper modules' asserts read like the tests' own when they fail
pytest.register_assert_rewrite(
    "bundled", "sites_http", "agent_doubles", "chain_pools", "raw_chains", "view_pages"
)

# the plain Playwright fixtures (pw_browser, and the viewer's file_page) live beside the viewer's page helpers
pytest_plugins = ["view_pages"]

from bundled import SITES_DIR  # noqa: E402

from plandvc.browser import Browser, Session  # noqa: E402
from plandvc.ports import free_ports  # noqa: E402
from plandvc.records import ItemRecord  # noqa: E402
from plandvc.sites.servers import Servers  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
T = TypeVar("T")


def made_once(tmp_path_factory: pytest.TempPathFactory, name: str, make: Callable[[], T]) -> T:
    """`make()` made once for the whole run, however many xdist workers ask: the first to take the lock makes
    it and pickles it into the run's temporary folder (shared by the workers), the others wait and read it.
    For plain data only (no paths of one worker's folders)."""
    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent  # the run's folder, above each worker's own
    done = root / f"{name}.pickle"
    with open(root / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, or its process ends
        if done.exists():
            value: T = pickle.loads(done.read_bytes())
            return value
        value = make()
        aside = done.with_suffix(".tmp")
        aside.write_bytes(pickle.dumps(value))
        aside.replace(done)
        return value


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """On an xdist worker, the files with the most end-to-end (`slow`) tests go first, each file's tests kept
    together and in their order: `--dist loadfile` hands out files in this order, so the long ones start early
    and do not leave one worker running the last of them alone. A plain run keeps pytest's order."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return
    slow = Counter(item.path for item in items if item.get_closest_marker("slow"))
    items.sort(key=lambda item: -slow[item.path])  # a stable sort: a file's tests stay in their order


@pytest.fixture(scope="session", autouse=True)
def _logs_outside_the_checkout(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """run-chains writes its run log under PLANDVC_LOGS (default .plandvc/logs of the working directory): point
    it at a temporary directory for every command a test runs."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PLANDVC_LOGS", str(tmp_path_factory.mktemp("logs")))
        yield


@pytest.fixture(scope="module")
def sites_server() -> Iterator[Servers]:
    """One real sites server process serving data/sites on a free loopback port."""
    with Servers(free_ports(1), SITES_DIR) as servers:
        yield servers


@pytest.fixture(scope="module")
def base(sites_server: Servers) -> str:
    """The base URL of the module's sites server, e.g. http://127.0.0.1:PORT."""
    return sites_server.bases[0]


@pytest.fixture(scope="module")
def ports(sites_server: Servers) -> list[int]:
    """The ports of the module's sites server."""
    return sites_server.ports


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def browser() -> AsyncIterator[Browser]:
    """One real Chromium for the test module."""
    async with Browser() as b:
        yield b


@pytest_asyncio.fixture(loop_scope="module")
async def session(browser: Browser, base: str) -> AsyncIterator[Session]:
    """A fresh browser session (its own context and page) on the module's sites server."""
    s = await browser.new_session(base)
    yield s
    await s.close()


@pytest.fixture(scope="session")
def world0(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The generated world of `make-sites --seed 0` (all domains), made once per session, read-only."""
    from plandvc.world.make import make_world

    out = tmp_path_factory.mktemp("world0") / "world"
    make_world(out, seed=0)
    return out


@pytest.fixture(scope="session")
def world_items(tmp_path_factory: pytest.TempPathFactory, world0: Path) -> list[ItemRecord]:
    """pool-items of the committed world pool on `world0`: every record with its `ask` (read-only). Read once
    for the run (`made_once`): it validates every part of the pool, tens of seconds."""
    from plandvc.chains.items import pool_items

    def read() -> list[ItemRecord]:
        pool = ROOT / "data" / "world-pool"
        return pool_items(pool, world0, pool / "pool_ids.txt")[0]

    return made_once(tmp_path_factory, "world_items", read)
