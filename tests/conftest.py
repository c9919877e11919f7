"""The shared fixtures of the test suite, each defined once: a real sites server on a free loopback port, one
real Chromium per test module, a fresh browser session per test, and the generated world with its pool items
made once per session, and one make-pool recording on a sample of the world (`world_sample`) made once per
run and shared read-only by the world modules that need recorded trajectories. Every test's default log directory is a temporary one and hypothesis keeps no database,
so no test writes into the checkout.

`make test` runs the suite on two pytest-xdist workers with `--dist loadfile`: each test file runs whole on one
worker, so a module fixture is made once and a session fixture once per worker (each worker is its own process
with its own temporary folders; servers take free ports).

The plain helpers the tests import live in their own modules beside this one: `bundled` (the bundled sites
and sample pool, whose items `pool_items_once` reads once per process), `sites_http` (an HTTP client and page
reader), `agent_doubles` (fakes for the agent tests), `chain_pools` (records and pools for the chains tests),
`raw_chains` (run-chains output for the rows tests), `world_sample` (the shared world recording's record) and
`openai_double` (an OpenAI-protocol server)."""

from __future__ import annotations

import fcntl
import os
import pickle
import shutil
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
    "bundled", "sites_http", "agent_doubles", "chain_pools", "raw_chains", "view_pages", "world_sample"
)

# the plain Playwright fixtures (pw_browser, and the viewer's file_page) live beside the viewer's page helpers
pytest_plugins = ["view_pages"]

from bundled import SITES_DIR  # noqa: E402
from world_sample import SAMPLE_EXTRA, SAMPLE_PER_MACRO, RecordedSample, recorded_counts  # noqa: E402

from plandvc.browser import Browser, Session  # noqa: E402
from plandvc.ports import free_ports  # noqa: E402
from plandvc.records import ItemRecord  # noqa: E402
from plandvc.sites.servers import Servers  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
T = TypeVar("T")


def run_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The run's temporary folder, shared by all its xdist workers (each worker has its own below it)."""
    root = tmp_path_factory.getbasetemp()
    return root.parent if os.environ.get("PYTEST_XDIST_WORKER") else root


def made_once(tmp_path_factory: pytest.TempPathFactory, name: str, make: Callable[[], T]) -> T:
    """`make()` made once for the whole run, however many xdist workers ask: the first to take the lock makes
    it and pickles it into the run's temporary folder (shared by the workers), the others wait and read it.
    For plain data, or paths under `run_folder` (which every worker sees)."""
    root = run_folder(tmp_path_factory)
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
    and do not leave one worker running the last of them alone. Of the files that read the run's one world
    recording (`world_sample`), the first goes first (its worker records) and the others right after the slow
    files, so the other worker runs those meanwhile instead of waiting for the recording. A plain run keeps
    pytest's order."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return
    slow = Counter(item.path for item in items if item.get_closest_marker("slow"))
    sample = sorted({item.path for item in items if "world_sample" in getattr(item, "fixturenames", ())})

    def rank(item: pytest.Item) -> tuple[int, int]:
        if item.path in sample:
            return (0 if item.path == sample[0] else 2), -slow[item.path]
        return (1 if slow[item.path] else 3), -slow[item.path]

    items.sort(key=rank)  # a stable sort: a file's tests stay in their order


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


@pytest.fixture(scope="session")
def world_sample(tmp_path_factory: pytest.TempPathFactory, world0: Path) -> RecordedSample:
    """make-pool recorded once per run (`made_once`, in the run's shared folder) on the world sample that
    test_world_pool, test_world_macros, test_world_go_to_page and test_world_theme read: each picks its sites
    from it by what they show, instead of recording a pool of its own (those recordings were most of the
    world modules' time)."""
    from click.testing import CliRunner

    from plandvc.cli import cli
    from plandvc.io import write_json
    from plandvc.pool.coverage import covering_sample
    from plandvc.sites.spec import load_sites

    root = run_folder(tmp_path_factory) / "world-sample"
    covering = tuple(covering_sample(load_sites(world0)))

    def record() -> tuple[int, str]:
        shutil.rmtree(root, ignore_errors=True)  # what a failed attempt of another worker left
        names = sorted({*covering, *SAMPLE_EXTRA})
        for name in names:
            shutil.copytree(world0 / name, root / "sites" / name)
        write_json(root / "sites" / "site_split.json", {"train": names, "test": []})
        ports = ",".join(str(p) for p in free_ports(2))
        r = CliRunner().invoke(
            cli,
            ["make-pool", "--sites", str(root / "sites"), "--out", str(root / "pool"),
             "--per-macro", str(SAMPLE_PER_MACRO), "--workers", "2", "--ports", ports],
            catch_exceptions=False,
        )  # fmt: skip
        for f in (root / "pool").rglob("*"):  # read-only to the tests: an edit in place fails loudly
            if f.is_file():
                f.chmod(0o444)
        return r.exit_code, r.output

    exit_code, output = made_once(tmp_path_factory, "world_sample", record)
    pool = root / "pool"
    return RecordedSample(
        sites=root / "sites",
        pool=pool,
        exit_code=exit_code,
        output=output,
        covering=covering,
        per_macro=SAMPLE_PER_MACRO,
        accepted=recorded_counts(pool, "accepted"),
        rejected=recorded_counts(pool, "rejected"),
    )
