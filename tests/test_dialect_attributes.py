"""Rows made in each browser-use dialect show the planner only the attributes that agent version shows: over a
small real run-chains on the generated world (4 chains, real Chromium), every attribute on an element line of
the page is in the dialect's list (`Dialect.attributes`), so no plandvc hook (href, data-control-id, data-home,
label=) reaches the planner. The same check over the plandvc-v1 rows of the same chains fails, naming them."""

from __future__ import annotations

import re
from pathlib import Path

import orjson
import pytest
from run_helpers import ROOT, plandvc

from plandvc import io
from plandvc.agent.dialects import dialect
from plandvc.chains.walk import chain_specs
from plandvc.records import ItemRecord

pytestmark = pytest.mark.slow

WORLD_POOL = ROOT / "data" / "world-pool"
# an element line, with 0.13's `|SHADOW(open)|` before a shadow host's
ELEMENT = re.compile(r"^\t*(?:\|SHADOW\((?:open|closed)\)\|)?\*?\[\d+\]<[a-z0-9]+ ?([^>]*)")
NAME = re.compile(r"(?:^| )([A-Za-z_][-A-Za-z0-9_.:]*)=")


def page_of(row: dict[str, object]) -> str:
    """The `<browser_state>` block of a row's user message."""
    content = row["messages"][1]["content"]  # type: ignore[index]
    text = content if isinstance(content, str) else next(p["text"] for p in content if p["type"] == "text")
    return text.split("<browser_state>", 1)[1].split("</browser_state>", 1)[0]


def attribute_names(page: str) -> list[str]:
    """The attribute names on the page's element lines (`[i]<tag name=value ...`, up to the tag's `>`)."""
    return [n for line in page.splitlines() if (m := ELEMENT.match(line)) for n in NAME.findall(m.group(1))]


def foreign(raw: Path, allowed: tuple[str, ...]) -> dict[str, int]:
    """Each attribute name on the element lines of `raw`'s rows that is not in `allowed`, with its count."""
    out: dict[str, int] = {}
    rows = [
        orjson.loads(line) for f in sorted(raw.glob("*/rows.jsonl")) for line in f.read_bytes().splitlines()
    ]
    assert rows, f"no rows in {raw}"
    for row in rows:
        for name in attribute_names(page_of(row)):
            if name not in allowed:
                out[name] = out.get(name, 0) + 1
    return out


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory, world0: Path, world_items: list[ItemRecord]) -> Path:
    """4 chains of the generated world (the session's `world0` and its pool items) run in each dialect:
    <dir>/raw-<dialect>."""
    d = tmp_path_factory.mktemp("dialects")
    io.write_jsonl(d / "chains.jsonl", chain_specs(world_items, 4, seed=3))
    for name in ("plandvc-v1", "browser-use-0.5", "browser-use-0.13"):
        p = plandvc(
            "run-chains", "--dialect", name, "--chains", d / "chains.jsonl", "--pool", WORLD_POOL,
            "--sites", world0, "--out", d / f"raw-{name}", "--cache", d / f"cache-{name}",
            "--workers", "2", "--no-progress", timeout=900,
        )  # fmt: skip
        assert p.returncode == 0, f"run-chains --dialect {name}: {p.stderr[-2000:]}"
    return d


def test_the_attribute_names_of_an_element_line() -> None:
    page = "[0]<a href=/x?y=1 data-home>F Forgehub</a>\n\t*[12]<input type=search placeholder=Search reposito... />"
    assert attribute_names(page) == ["href", "type", "placeholder"]


@pytest.mark.parametrize("name", ["browser-use-0.5", "browser-use-0.13"])
def test_every_attribute_of_a_browser_use_row_is_in_its_dialect(runs: Path, name: str) -> None:
    assert foreign(runs / f"raw-{name}", dialect(name).attributes) == {}


def test_the_check_fails_on_plandvc_v1_rows(runs: Path) -> None:
    """plandvc-v1 rows show plandvc's hooks: against browser-use 0.5.0's list they are named."""
    found = foreign(runs / "raw-plandvc-v1", dialect("browser-use-0.5").attributes)
    assert {"href", "data-control-id", "label"} <= set(found), found
