"""`make bench` on the generated world: its own small world pool, recorded and chained, beside the hand-written
sites.

The bench writes the world (`make_world`, seed `--world-seed`) under bench/out/world/, keeps a few training
sites (the first of each layout family, then more in world order, `--world-sites`), records their tasks with
`plandvc make-pool` (`--world-per-macro` tasks per site and macro) at each worker count, then runs pool-items,
chain-specs and `plandvc run-chains` on the pool the largest worker count recorded. Every command is measured
like the rest of the bench (plandvc/bench/accounting.py: by cgroup, Chromium's processes included).

`page_weight` says what a page of each world costs to draw: its HTML bytes and the bytes of its screenshot.
"""

from __future__ import annotations

import asyncio
import re
import shutil
import sys
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from plandvc import io
from plandvc.chains.items import pool_items, site_specs
from plandvc.chains.make import ChainParams, make_chains
from plandvc.ports import free_ports
from plandvc.sites.model import FAMILIES
from plandvc.world.make import make_world, sub_world


@dataclass(frozen=True)
class WorldBench:
    """Where the bench's world lives and how big its pool is."""

    root: Path  # bench/out/world_bench
    seed: int
    sites: int
    per_macro: int

    @property
    def world(self) -> Path:
        return self.root / "world"

    @property
    def subset(self) -> Path:
        return self.root / "sites"

    def pool(self, workers: int) -> Path:
        return self.root / f"pool_w{workers}"


def choose_sites(world: Path, n: int) -> list[str]:
    """`n` training sites: the first of each layout family in world order, then the next ones."""
    manifest = io.read_json(world / "world.json")
    train = [s for s in manifest["sites"] if s["domain"] not in manifest["test_domains"]]
    first = [next(s["site"] for s in train if s["family"] == f) for f in FAMILIES]
    rest = [s["site"] for s in train if s["site"] not in first]
    return (first + rest)[:n]


def prepare(wb: WorldBench) -> list[str]:
    """Write the world and its bench subset; the subset's site names."""
    make_world(wb.world, wb.seed)
    names = choose_sites(wb.world, wb.sites)
    sub_world(wb.world, names, wb.subset)
    return names


def make_pool_cmd(wb: WorldBench, workers: int) -> list[str]:
    """The make-pool command recording the subset at `workers` browsers into a fresh pool folder."""
    shutil.rmtree(wb.pool(workers), ignore_errors=True)
    return [
        sys.executable, "-m", "plandvc", "make-pool", "--sites", str(wb.subset.resolve()),
        "--out", str(wb.pool(workers).resolve()), "--workers", str(workers),
        "--per-macro", str(wb.per_macro), "--ports", str(free_ports(1)[0]),
    ]  # fmt: skip


def pool_result(wb: WorldBench, workers: int, wall_s: float, cpu_s: float, method: str) -> dict[str, Any]:
    """Kept trajectories per minute and CPU-s per kept trajectory of one recording."""
    kept = len(io.read_jsonl(wb.pool(workers) / "kept.jsonl"))
    rejected = sum(1 for _ in (wb.pool(workers) / "runs" / "r1" / "rejected").glob("*/reason.txt"))
    return {
        "workers": workers, "kept": kept, "rejected": rejected, "method": method, "wall_s": wall_s,
        "cpu_s": cpu_s, "kept_per_min": round(kept / wall_s * 60, 1),
        "cpu_s_per_kept": round(cpu_s / max(kept, 1), 3),
    }  # fmt: skip


def world_chains(wb: WorldBench, workers: int, params: ChainParams, out: Path) -> Path:
    """pool-items and chain-specs on the pool recorded at `workers`, with the pipeline's chain params
    (`plandvc.bench.pipeline`): `params.n` chains written to `out`."""
    records, _ = pool_items(wb.pool(workers), wb.subset)
    io.write_jsonl(out, make_chains(records, params, site_specs(wb.subset)))
    return out


def same_pool(a: Path, b: Path) -> bool:
    """Whether two recordings of one subset wrote the same runs (make-pool's promise across worker counts)."""
    files = sorted(p.relative_to(a) for p in (a / "runs").rglob("*") if p.is_file())
    other = sorted(p.relative_to(b) for p in (b / "runs").rglob("*") if p.is_file())
    return files == other and all((a / f).read_bytes() == (b / f).read_bytes() for f in files)


# ── what a page weighs ────────────────────────────────────────────────────────


def _pages(sites: Path) -> list[str]:
    """The home and every list page of each site of a folder (paths)."""
    from plandvc.sites.spec import load_sites

    paths = []
    for name, spec in sorted(load_sites(sites).items()):
        paths.append(f"/sites/{name}")
        paths += [f"/sites/{name}/{p.page}" for p in spec.pages]
    return paths


async def _shots(base: str, paths: list[str]) -> list[tuple[int, int]]:
    """(screenshot bytes, page height) of each path, captured by the harness's session as run-chains does."""
    from plandvc.browser import Browser

    out = []
    async with Browser() as browser:
        session = await browser.new_session(base)
        try:
            for p in paths:
                for attempt in range(3):  # a loaded machine sometimes answers "Unable to capture screenshot"
                    try:
                        await session.goto(p)
                        shot = await session.screenshot()
                        break
                    except Exception:
                        if attempt == 2:
                            raise
                height = await session.page.evaluate("document.documentElement.scrollHeight")
                out.append((len(shot), int(height)))
        finally:
            await session.close()
    return out


def page_weight(sites: Path) -> dict[str, Any]:
    """Mean HTML bytes, elements, screenshot bytes and page height over the home and list pages of `sites`."""
    from plandvc.sites.servers import Servers

    paths = _pages(sites)
    with Servers(free_ports(1), sites) as servers:
        base = servers.bases[0]
        html = [urllib.request.urlopen(base + p, timeout=30).read() for p in paths]
        shots = asyncio.run(_shots(base, paths))
    n = len(paths)
    return {
        "pages": n,
        "html_kb": round(sum(len(h) for h in html) / n / 1024, 1),
        "tags": round(sum(h.count(b"<") for h in html) / n),
        "svg_kb": round(
            sum(len(s) for h in html for s in re.findall(rb"<svg.*?</svg>", h, re.S)) / n / 1024, 1
        ),
        "screenshot_kb": round(sum(s for s, _ in shots) / n / 1024, 1),
        "page_height_px": round(sum(h for _, h in shots) / n),
    }
