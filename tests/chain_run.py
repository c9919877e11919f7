"""Running chains in tests as run-chains does: a server over the sites, one Chromium, a session per chain, the
scripted planner with replayed specialists, every part gated."""

from __future__ import annotations

from pathlib import Path

from plandvc.records import ChainSpec
from plandvc.sites.spec import load_sites


async def run_chains(chains: list[ChainSpec], pool: Path, sites: Path) -> list[tuple[bool, str]]:
    """Run each chain as run-chains does (scripted planner, replayed specialists, every part gated)."""
    from plandvc.browser import Browser
    from plandvc.pool.store import Pool
    from plandvc.ports import free_ports
    from plandvc.run.chain import RunParams, SiteInfo, run_chain
    from plandvc.run.runner import load_parts
    from plandvc.sites.servers import Servers
    from plandvc.sites.spec import site_name

    specs = load_sites(sites)
    out = []
    with Servers(free_ports(1), sites) as servers:
        async with Browser() as browser:
            for chain in chains:
                info = SiteInfo(site_name(sites, chain["site"]), specs[chain["site"]].today)
                parts, _ = load_parts(Pool.open(pool), chain)
                session = await browser.new_session(servers.bases[0])
                try:
                    res = (await run_chain(chain, parts, session, info, RunParams(), None)).result
                finally:
                    await session.close()
                out.append((res["ok"], res.get("error") or res["detail"]))
    return out
