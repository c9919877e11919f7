"""run-chains: workers (one browser each, a fresh context per chain), the per-chain cache that makes a rerun
resume without mixing, and the atomic publish of the stage's output."""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import socket
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from plandvc import io
from plandvc.run.chain import ChainOutput, RunParams, SiteInfo, base_result, run_chain
from plandvc.run.fingerprint import chain_fingerprint, code_hash, environment, files_hash, tree_hash
from plandvc.run.sessions import Sessions

PART_FILES = ("task.json", "trajectory.json", "elements.json")
# errors that say the machinery failed, not the chain: retried once on a fresh context, never cached.
# A bare Playwright `Error` escaped the harness (which turns what an action can do wrong into ActionError
# or StaleIndexError), and a chain timeout is a hang: both are the machine's, not the chain's.
INFRA_ERRORS = (
    "TargetClosedError",
    "BrowserCrashed",
    "ServerDownError",
    "Target page, context or browser has been closed",
)
INFRA_PREFIXES = ("Error:", "TimeoutError: chain timed out")


def is_infra(error: Any, browser_alive: bool = True) -> bool:
    """Whether a failed chain's error is the machinery's (retry it) rather than the chain's own."""
    text = str(error or "")
    return not browser_alive or text.startswith(INFRA_PREFIXES) or any(s in text for s in INFRA_ERRORS)


@dataclass
class RunConfig:
    chains: Path
    pool: Path
    sites: Path
    out: Path
    params: RunParams = field(default_factory=RunParams)
    workers: int = 1
    ports: list[int] | None = None
    limit: int = 0
    shard: tuple[int, int] | None = None
    headful: bool = False
    cache: Path = Path(".plandvc/cache/run_chains")
    log: Path | None = None
    progress: bool = True
    engine: str = "local"  # where chains run: "local" or "ray" (plandvc.run.ray_engine); never the output


def free_ports(n: int) -> list[int]:
    """n free loopback ports (the servers' ports never reach the output)."""
    socks = [socket.socket() for _ in range(n)]
    try:
        for s in socks:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def load_chains(path: Path, limit: int = 0, shard: tuple[int, int] | None = None) -> list[dict[str, Any]]:
    """The chain list (every line `{key, site, parts: [{id, via}]}`), sharded then limited."""
    chains = io.read_jsonl(path)
    for n, c in enumerate(chains, 1):
        missing = [k for k in ("key", "site", "parts") if k not in c]
        if missing or not c["parts"]:
            raise io.InputError(f"{path}:{n}: chain without {missing or ['parts']}")
    if shard:
        k, n = shard
        chains = chains[k::n]
    return chains[:limit] if limit else chains


def kept_runs(pool: Path) -> dict[str, str]:
    """task id -> run, from the pool's kept index."""
    return {r["id"]: r["run"] for r in io.read_jsonl(pool / "kept.jsonl")}


def part_dir(pool: Path, run: str, tid: str) -> Path:
    return pool / "runs" / run / "accepted" / tid


def load_parts(pool: Path, runs: dict[str, str], chain: dict[str, Any]) -> tuple[list[dict[str, Any]], str]:
    """The chain's parts ({task, traj, elements}) and the hash of their files."""
    parts, files = [], []
    for p in chain["parts"]:
        if p["id"] not in runs:
            raise io.InputError(
                f"{pool / 'kept.jsonl'}: no kept trajectory {p['id']!r} (chain {chain['key']})"
            )
        d = part_dir(pool, runs[p["id"]], p["id"])
        files += [d / f for f in PART_FILES]
        parts.append(
            {
                "id": p["id"],
                "task": io.read_json(d / "task.json"),
                "traj": io.read_json(d / "trajectory.json"),
                "elements": io.read_json(d / "elements.json"),
            }
        )
    return parts, files_hash(files)


class Progress:
    """A live line on stderr: done/total, ok/failed, rate, ETA."""

    def __init__(self, total: int, enabled: bool) -> None:
        self.total, self.enabled, self.t0 = total, enabled, time.monotonic()
        self.tally: Counter[str] = Counter()
        self.tty = sys.stderr.isatty()
        self.last = 0.0

    def add(self, ok: bool, reused: bool) -> None:
        self.tally["ok" if ok else "failed"] += 1
        self.tally["reused"] += reused
        now = time.monotonic()
        done = self.tally["ok"] + self.tally["failed"]
        if not self.enabled or (not self.tty and now - self.last < 5 and done < self.total):
            return
        self.last = now
        rate = done / max(now - self.t0, 1e-6) * 60
        eta = (self.total - done) / rate * 60 if rate else 0
        line = (
            f"[{done}/{self.total}] ok {self.tally['ok']} failed {self.tally['failed']} "
            f"(reused {self.tally['reused']}) {rate:.1f} chains/min ETA {eta:.0f}s"
        )
        print(("\r" + line) if self.tty else line, end="" if self.tty else "\n", file=sys.stderr, flush=True)

    def close(self) -> None:
        if self.enabled and self.tty:
            print(file=sys.stderr)


def _first_line(e: BaseException) -> str:
    lines = [ln for ln in str(e).splitlines() if ln.strip()]
    return lines[0] if lines else ""


def _write_cache(entry: Path, out: ChainOutput) -> None:
    """Write one finished chain into the cache: aside, then renamed, so an entry is whole or absent."""
    tmp = entry.with_name(entry.name + f".tmp{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    if out.episode is not None:
        io.write_jsonl(tmp / "rows.jsonl", out.rows)
        for name, data in sorted(out.images.items()):
            (tmp / name).write_bytes(data)
        io.write_json(tmp / "episode.json", out.episode, sort_keys=False)  # the schema keeps its order
    io.write_json(tmp / "result.json", out.result)
    shutil.rmtree(entry, ignore_errors=True)
    os.replace(tmp, entry)


def _cached(entry: Path) -> dict[str, Any] | None:
    try:
        return io.read_json(entry / "result.json")
    except io.InputError:
        return None


def publish(out: Path, chains: list[dict[str, Any]], entries: dict[str, Path]) -> list[dict[str, Any]]:
    """Assemble the stage's output from the cache beside `out`, then swap it in with renames."""
    tmp = out.with_name(f".{out.name}.tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    results = []
    for c in sorted(chains, key=lambda c: c["key"]):
        entry = entries[c["key"]]
        res = io.read_json(entry / "result.json")
        results.append(res)
        dest = tmp / (c["key"] if res["ok"] else f"_failed/{c['key']}")
        dest.mkdir(parents=True)
        for f in sorted(entry.iterdir()):
            if f.name != "result.json":
                shutil.copyfile(f, dest / f.name)
        if not res["ok"]:
            (dest / "error.txt").write_text(str(res.get("error")) + "\n")
    io.write_jsonl(tmp / "results.jsonl", results, sort_keys=True)
    io.publish_dir(tmp, out)
    return results


async def attempt_chain(
    c: dict[str, Any],
    parts: list[dict[str, Any]],
    browser: Any,
    sessions: Sessions,
    site: SiteInfo,
    params: RunParams,
    memory: Any,
    servers: Any,
    more: Callable[[], bool],
) -> tuple[ChainOutput, bool, float]:
    """One chain on a worker's browser, a machinery failure retried once in a fresh context: the output,
    whether its failure is the machinery's, and the seconds its session took to open. `more()` says whether
    another chain follows on this browser (its context then opens while this one runs)."""
    from plandvc.pool.prep import prepare

    for attempt in range(2):
        if servers is not None:
            servers.ensure_alive()
        t_open = time.perf_counter()
        try:
            session = await sessions.take()
        except Exception as e:  # a browser that cannot start fails this chain, not the run
            out = ChainOutput(base_result(c, f"BrowserCrashed: {type(e).__name__}: {_first_line(e)}"[:300]))
            session = None
        t_open = time.perf_counter() - t_open
        if session is not None:
            if more():
                sessions.open_ahead()  # the next chain's context opens while this one runs
            try:
                out = await run_chain(c, parts, session, site, params, memory, prepare)
            finally:
                sessions.release(session)
        infra = not out.result["ok"] and is_infra(out.result.get("error"), browser.alive)
        if not infra or attempt == 1:
            break
    return out, infra, t_open


async def _run(
    cfg: RunConfig, chains: list[dict[str, Any]], bases: list[str], servers: Any
) -> dict[str, Any]:
    from plandvc.browser import Browser
    from plandvc.memory import connect_or_none
    from plandvc.sites.spec import load_sites, site_name

    t_start = time.monotonic()
    specs = load_sites(cfg.sites)
    sites = {s: SiteInfo(site_name(cfg.sites, s), specs[s].today) for s in specs}
    for c in chains:
        if c["site"] not in sites:
            raise io.InputError(f"{cfg.chains}: chain {c['key']} names unknown site {c['site']!r}")
    memory = await connect_or_none(cfg.params.memory_url, cfg.params.memory_model)
    runs = kept_runs(cfg.pool)
    workers = max(1, min(cfg.workers, len(chains) or 1))
    # --- engine seam: the Ray engine runs the chains on a cluster; the driver below is the same for both ---
    engine: Any = None
    if cfg.engine == "ray":
        from plandvc.run.ray_engine import RayEngine

        engine = RayEngine(cfg, workers, sites)
        browsers: list[Any] = []
        env_of_run = await engine.start()  # the environment every browser actor reported (all the same)
    else:
        browsers = [Browser(headless=not cfg.headful) for _ in range(workers)]
        await browsers[0].start()
        env_of_run = environment(browsers[0].version)
    run_inputs = {
        "params": asdict(cfg.params),
        "code": code_hash(),
        "sites": tree_hash(cfg.sites),
        "env": env_of_run,
    }
    env = run_inputs["env"]
    entries: dict[str, Path] = {}
    todo: asyncio.Queue[tuple[dict[str, Any], list[dict[str, Any]], Path]] = asyncio.Queue()
    progress = Progress(len(chains), cfg.progress)
    timings: list[dict[str, Any]] = []
    for c in chains:
        parts, phash = load_parts(cfg.pool, runs, c)
        entry = cfg.cache / chain_fingerprint(c, phash, run_inputs)
        entries[c["key"]] = entry
        if _cached(entry) is not None:
            progress.add(bool(_cached(entry)["ok"]), reused=True)
        else:
            todo.put_nowait((c, parts, entry))

    async def worker(w: int) -> None:
        browser = browsers[w]
        sessions = Sessions(browser, bases[w % len(bases)])
        try:
            while not todo.empty():
                await one_chain(w, browser, sessions, *todo.get_nowait())
        finally:
            await sessions.aclose()

    async def one_chain(
        w: int, browser: Any, sessions: Sessions, c: dict[str, Any], parts: Any, entry: Path
    ) -> None:
        t0 = time.monotonic()
        site = sites[c["site"]]
        out, infra, t_open = await attempt_chain(
            c, parts, browser, sessions, site, cfg.params, memory, servers, lambda: not todo.empty()
        )
        deliver(w, c, entry, out, infra, t0, t_open)

    def deliver(
        w: int, c: dict[str, Any], entry: Path, out: ChainOutput, infra: bool, t0: float, t_open: float
    ) -> None:
        """A finished chain, from either engine: stamped, cached (or kept aside when the machinery failed),
        timed and counted."""
        if out.episode is not None:
            out.episode["env"] = env
        if infra:  # a machinery failure is published but never cached: the next run tries again
            out.result["error"] = f"infrastructure: {out.result['error']}"
            entry = cfg.cache / "_infra" / c["key"]
            entries[c["key"]] = entry
        t_write = time.perf_counter()
        _write_cache(entry, out)
        phases = {
            **out.clock.rounded(),
            "session_open": round(t_open, 4),
            "row_writing": round(time.perf_counter() - t_write, 4),
        }
        timing = {
            "key": c["key"],
            "seconds": round(time.monotonic() - t0, 3),
            "worker": w,
            "phases": phases,
            "turns": out.result.get("turns"),
        }
        timings.append(timing)
        progress.add(bool(out.result["ok"]), reused=False)

    t0 = time.monotonic()
    try:
        await asyncio.gather(*(b.start() for b in browsers[1:]))
        startup = time.monotonic() - t_start
        if engine is not None:
            await engine.run(todo, deliver)
        else:
            await asyncio.gather(*(worker(w) for w in range(workers)))
    finally:
        progress.close()
        await asyncio.gather(*(b.close() for b in browsers), return_exceptions=True)
        if engine is not None:
            await engine.aclose()
        if memory is not None:
            await memory.close()
    results = publish(cfg.out, chains, entries)
    shutil.rmtree(cfg.cache / "_infra", ignore_errors=True)
    if cfg.shard is None and not cfg.limit:  # keep the cache to what this chain list uses
        keep = {e.name for e in entries.values()}
        for stale in cfg.cache.iterdir():
            if stale.name not in keep and stale.is_dir():
                shutil.rmtree(stale, ignore_errors=True)
    wall = time.monotonic() - t0
    summary = {
        "chains": len(chains),
        "ok": sum(r["ok"] for r in results),
        "failed": sum(not r["ok"] for r in results),
        "reused": progress.tally["reused"],
        "workers": workers,
        "wall_s": round(wall, 2),
        "startup_s": round(startup, 2),
        "memory": dict(memory.stats) if memory is not None else None,
        "errors": dict(Counter(str(r.get("error")).split(":")[0] for r in results if not r["ok"])),
    }
    if cfg.log:
        io.write_json(cfg.log, {"summary": summary, "chains": sorted(timings, key=lambda t: t["key"])})
    return summary


def run_chains(cfg: RunConfig) -> dict[str, Any]:
    """Run every chain of `cfg.chains` (resuming from the cache) and publish `cfg.out`; returns a summary."""
    from plandvc.sites.servers import Servers

    chains = load_chains(cfg.chains, cfg.limit, cfg.shard)
    cfg.cache.mkdir(parents=True, exist_ok=True)
    if cfg.engine == "ray":  # each browser actor serves the sites on its own node's loopback
        return _run_in_loop(cfg, chains, [], None)
    ports = cfg.ports or free_ports(max(1, min(cfg.workers, 2)))
    with Servers(ports, cfg.sites) as servers:
        return _run_in_loop(cfg, chains, servers.bases, servers)


def _dump_tasks() -> None:
    """SIGUSR1: print where every task of the run is waiting (for a run that seems stuck)."""
    for t in asyncio.all_tasks():
        print(f"--- task {t.get_name()}", file=sys.stderr)
        coro: Any = t.get_coro()
        while coro is not None:
            frame = getattr(coro, "cr_frame", None) or getattr(coro, "ag_frame", None)
            if frame is not None:
                print(
                    f"  {frame.f_code.co_filename}:{frame.f_lineno} {frame.f_code.co_name}", file=sys.stderr
                )
            coro = getattr(coro, "cr_await", None) or getattr(coro, "ag_await", None)
    sys.stderr.flush()


def _run_in_loop(
    cfg: RunConfig, chains: list[dict[str, Any]], bases: list[str], servers: Any
) -> dict[str, Any]:
    """asyncio.run with SIGTERM turned into a cancellation, so browsers and servers are stopped cleanly."""

    async def main() -> dict[str, Any]:
        task = asyncio.current_task()
        loop = asyncio.get_running_loop()
        assert task is not None
        loop.add_signal_handler(signal.SIGTERM, task.cancel)
        loop.add_signal_handler(signal.SIGUSR1, _dump_tasks)
        try:
            return await _run(cfg, chains, bases, servers)
        finally:
            loop.remove_signal_handler(signal.SIGTERM)
            loop.remove_signal_handler(signal.SIGUSR1)

    return asyncio.run(main())
