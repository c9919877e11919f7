"""An app's recorded tasks as held-out chains: the records the chain walk reads, the chains walked and run with
the scripted planner on a fresh app session each, and the held-out folder the evaluation reads (docs/APPS.md,
"Held out in eval"). Every app of `plandvc.apps.REGISTRY` is held out by the same code; what differs is its
adapter's table (`plandvc.apps.app.App`).

- `app_items(app, pool, seed, size)`: one `ItemRecord` per kept task of a `record-apps` folder, with the facts
  the request composer reads (the adapter's `facts`: `Ask`, control, scope). The walk's fields are read off the
  task as pool-items reads them off a generated site's. A task starting fresh on the app's `home` is a home
  start, and a chain's trip home is a click on the adapter's `home_link` (`home_trip`, run-chains'
  `SiteInfo.home`).
- `app_pool(folder, app)`: the app's pool through the pool's one reader (`Pool`, the contract's app branch);
  its `.part(id)` is a kept part as run-chains and the closed loop take it (`plandvc.records.Part`).
- `AppSession`: a browser session whose backend state is the app's own database (the adapter's `state`), so
  `plandvc.run.chain.run_chain` and `plandvc.eval.closed.run_episode` gate every part on it unchanged.
- `app_specs(cfg)`: the walk (`plandvc.chains.make.make_chains`, requests composed), each chain run by
  `run_chain` on its own fresh app session, the rows checked by filter-rows' checks; the folder has eval-specs'
  layout (`items.jsonl`, `chains.jsonl`, `raw/<key>/`, `specs.jsonl`, `summary.json`), so
  `plandvc.eval.specs.load_held_out` and the teacher-forced evaluation read it as they read eval-specs'.

Nothing here writes a training row: the folder is the evaluation's only.
"""

from __future__ import annotations

import asyncio
import importlib
import importlib.util
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from plandvc import io
from plandvc.apps import REGISTRY as APPS
from plandvc.apps.app import App, Facts, Served, on_fresh_session
from plandvc.apps.script import AppTask
from plandvc.chains.goal_kinds import V3_KINDS, AppKinds, parse_kinds
from plandvc.chains.make import ChainParams, make_chains
from plandvc.errors import InputError
from plandvc.macros import REGISTRY
from plandvc.macros.home import CHAIN_HOME_DONE, HOME_MEMORY
from plandvc.memory.text import answer_text
from plandvc.pool.store import Pool
from plandvc.records import (
    BackendState,
    ChainSpec,
    ElementDescriptor,
    ItemRecord,
    KeptLine,
    Part,
    Replayable,
    Trajectory,
)
from plandvc.run.chain import ChainOutput, RunParams, SiteInfo, run_chain
from plandvc.run.timing import Clock, TimedSession
from plandvc.urls import url_path

if TYPE_CHECKING:
    from plandvc.browser import Session


def known_app(name: str) -> App:
    """The registry's app of that name; an InputError naming the known ones otherwise."""
    if name not in APPS:
        raise InputError(f"--app: unknown app {name!r} (known: {', '.join(sorted(APPS))})")
    return APPS[name]


# ── records ──────────────────────────────────────────────────────────────────


def app_record(store: Pool, kept: KeptLine, facts: Callable[[AppTask], Facts], home: str) -> ItemRecord:
    """The walk's record of one kept app task (`kept`: a kept.jsonl line; `home`: the app's start page)."""
    part = store.part(kept["id"])
    task, traj = cast(AppTask, part["task"]), part["traj"]
    start = url_path(task["start"]["url"])
    known = facts(task)
    return {
        "id": task["task_id"],
        "run": kept["run"],
        "dir": part["dir"],
        "site": task["site"],
        "macro": task["macro"],
        "family": REGISTRY[task["macro"]].family,
        "start": start,
        "control": known.control,
        "scope": known.scope,
        "answers": traj.get("answer") not in (None, "") or task["check"]["kind"] == "answer",
        "fresh": task["start"]["kind"] == "fresh",
        "stays": url_path(traj.get("end") or "") == start,
        "home_start": task["start"]["kind"] == "fresh" and start == url_path(home),  # "/catalogue/" too
        "instruction": task["instruction"],
        "ask": known.ask,
    }


def app_pool(folder: Path, app: App) -> Pool:
    """An app's pool, read and checked by the pool's one reader (`Pool`, the contract's app branch: a task is
    the app's task.json, with no spec control); an InputError unless it is `app`'s."""
    store = Pool.open(folder)
    if store.site_kind != "app" or store.site != app.name:
        raise InputError(f"{folder}/pool.json: not {app.name}'s pool (site_kind: app, site: {app.name})")
    return store


def app_items(app: App, pool: Path, seed: int, size: int) -> list[ItemRecord]:
    """Every kept task of an app pool as a walk record, sorted by id (the question macros included)."""
    facts = app.facts(seed, size)
    store = app_pool(pool, app)
    return sorted((app_record(store, k, facts, app.home) for k in store.kept), key=lambda r: r["id"])


def app_kinds(app: App) -> Callable[[int, int], AppKinds] | None:
    """The app's goal kinds that use what is found: its package's `goals.kinds(seed, size)` (Trac:
    `plandvc.apps.trac.goals`), or None when it has no `goals` module. Imported here, by the evaluation, so
    recording an app's tasks (record-apps) imports no chain code."""
    name = f"plandvc.apps.{app.name}.goals"
    if importlib.util.find_spec(name) is None:
        return None
    return cast(Callable[[int, int], AppKinds], importlib.import_module(name).kinds)


# ── sessions ─────────────────────────────────────────────────────────────────


class AppSession(TimedSession):
    """A browser session on an app: the session's calls passed through, its backend state read from the app's
    own database by `state` (the adapter's), with the session's clipboard; a screenshot waits for the page's
    network to be idle."""

    def __init__(self, session: Any, state: Callable[[], Mapping[str, Any]]) -> None:
        super().__init__(session, Clock())
        self._state = state

    async def screenshot(self) -> bytes:
        """The viewport once the page's network is idle: an app's own scripts change the page after it loads
        (Trac's folding arrows on a ticket), so a screenshot taken at once would show either state."""
        page = getattr(self._session, "page", None)
        if page is not None:
            await page.wait_for_load_state("networkidle")
        return await super().screenshot()

    async def backend_state(self, site: str | None = None) -> BackendState:
        s = self._state()
        return {"entries": s["entries"], "changes": s["changes"], "clipboard": list(self.clipboard)}


# ── the held-out chains ──────────────────────────────────────────────────────


@dataclass
class AppSpecsConfig:
    """eval-apps' walk and run: the app, its pool, its seed and size (as recorded), the output folder and the
    walk's params."""

    app: str
    pool: Path
    out: Path
    seed: int = 0
    size: int = 40
    n: int = 30
    sizes: tuple[int, ...] = ChainParams.sizes
    tries: int = ChainParams.tries
    answer_share: float = ChainParams.answer_share
    goal_share: float = 0.4  # goal chains (constraints on the list, then a question), where the app has goals
    goal_kinds: str = ChainParams.goal_kinds  # their mix (chains.goal_kinds); v3's count,top: every app's
    hygiene: bool = ChainParams.hygiene  # refuse the chains with a hygiene problem (chains.hygiene)
    params: RunParams | None = None
    reuse_specs: bool = False  # an existing held-out folder is kept (its summary returned): no walk, no run


def home_trip(app: App) -> Replayable:
    """A chain's trip home on an app, in the pool's format: one click on the adapter's `home_link`."""
    text, href = app.home_link
    element: ElementDescriptor = {
        "tag": "a",
        "role": "link",
        "text": text,
        "label": "",
        "attrs": {"href": href},
        "box": [0, 0, 0, 0],
    }
    traj: Trajectory = {
        "task_id": f"{app.name}-home",
        "site": app.name,
        "macro": "navigate_home",
        "start_kind": "mid_chain",
        "history_macro": None,
        "steps": [{"action": "click", "element": 0, "value": None, "memory": HOME_MEMORY}],
        "done": CHAIN_HOME_DONE,
        "answer": None,
        "end": app.home,
    }
    return {"trajectory": traj, "elements": [element]}


def site_info(app: App) -> SiteInfo:
    """The app as the planner sees it: its name, its today, its trip home."""
    return SiteInfo(app.site, app.today, home_trip(app))


async def _run_all(
    app: App, chains: list[ChainSpec], cfg: AppSpecsConfig, params: RunParams, raw: Path
) -> list[dict[str, Any]]:
    """Every chain by run_chain on its own fresh app session in one Chromium; ok chains' files in raw/."""
    from plandvc.browser import Browser

    results = []
    store = app_pool(cfg.pool, app)
    async with Browser() as browser:
        for chain in chains:
            parts = [store.part(p["id"]) for p in chain["parts"]]

            async def work(
                session: Session, s: Served, chain: ChainSpec = chain, parts: list[Part] = parts
            ) -> ChainOutput:
                return await run_chain(
                    chain, parts, AppSession(session, s.state), site_info(app), params, None
                )

            out = await on_fresh_session(app, (cfg.seed, cfg.size), browser, f"chain {chain['key']}", work)
            res = dict(out.result)
            results.append(res)
            if res["ok"] and out.episode is not None:
                folder = raw / chain["key"]
                io.write_jsonl(folder / "rows.jsonl", out.rows)
                for name, data in sorted(out.images.items()):
                    io.write_bytes(folder / name, data)
                io.write_json(folder / "episode.json", out.episode, sort_keys=False)
    return sorted(results, key=lambda r: r["key"])


COMMAND = "eval-apps"
is_app_specs_out = io.owned_folder(
    ("items.jsonl", "chains.jsonl", "raw", "results.jsonl", "specs.jsonl", "summary.json"),
    "summary.json",
    lambda found: isinstance(found, dict) and {"held_out", "chains", "app"} <= found.keys(),
)


def check_dialect(held: Path, dialect: str) -> None:
    """An InputError unless every chain of the held-out folder was written in `dialect` (--reuse-specs with
    another --dialect would score the planner on the old dialect's rows, under the new one's name)."""
    from plandvc.eval.specs import load_held_out

    found = sorted({chain.dialect for chain in load_held_out(held)})
    if found != [dialect]:
        raise InputError(
            f"--reuse-specs: {held} holds chains in dialect {', '.join(found)}, not --dialect {dialect}; "
            "give another --specs folder (or drop --reuse-specs to walk them again)"
        )


def app_specs(cfg: AppSpecsConfig) -> dict[str, Any]:
    """Walk, run and check an app's held-out chains into `cfg.out` (eval-specs' layout) while holding its lock;
    the summary. With `reuse_specs`, a held-out folder of the same app already there is kept."""
    app = known_app(cfg.app)
    if cfg.goal_share and parse_kinds(cfg.goal_kinds) is not None and app_kinds(app) is None:
        raise InputError(
            f"--goal-kinds: {app.name}'s goal chains are count and top only (--goal-kinds {V3_KINDS})"
        )
    with io.exclusive(cfg.out, COMMAND):
        if cfg.reuse_specs and cfg.out.is_dir() and is_app_specs_out(cfg.out):
            found = cast(dict[str, Any], io.read_json(cfg.out / "summary.json"))
            if found["app"] != app.name:
                raise InputError(f"{cfg.out}: held-out chains of {found['app']}, not {app.name}")
            check_dialect(cfg.out, (cfg.params or RunParams()).dialect)
            return found
        io.check_output_dir(cfg.out, is_app_specs_out, COMMAND)
        return _app_specs(app, cfg)


def _app_specs(app: App, cfg: AppSpecsConfig) -> dict[str, Any]:
    from plandvc.eval.specs import held_lines

    records = app_items(app, cfg.pool, cfg.seed, cfg.size)
    goals = app.goal(cfg.seed, cfg.size) if app.goal is not None and cfg.goal_share else None
    made = app_kinds(app) if cfg.goal_share and parse_kinds(cfg.goal_kinds) is not None else None
    mixed = made is not None  # app_specs refused a mix on an app with no goal kinds
    kinds = {app.name: made(cfg.seed, cfg.size)} if made is not None else None
    walk = ChainParams(
        n=cfg.n,
        sizes=cfg.sizes,
        seed=cfg.seed,
        tries=cfg.tries,
        answer_share=cfg.answer_share,
        request="composed",
        goal_share=cfg.goal_share if goals is not None or mixed else 0.0,
        goal_kinds=cfg.goal_kinds if mixed else V3_KINDS,
        hygiene=cfg.hygiene,
    )
    answers = {app.name: goals} if goals is not None else {} if mixed else None  # {}: no count or top
    chains = make_chains(records, walk, answers=answers, kinds=kinds)
    tmp = io.staging(cfg.out)
    io.write_jsonl(tmp / "items.jsonl", records)
    io.write_jsonl(tmp / "chains.jsonl", chains)
    results = asyncio.run(_run_all(app, chains, cfg, cfg.params or RunParams(), tmp / "raw"))
    io.write_jsonl(tmp / "results.jsonl", results, sort_keys=True)
    lines, dropped = held_lines(tmp / "raw", results)
    io.write_jsonl(tmp / "specs.jsonl", lines)
    turns = [t for x in lines for t in x["turns"]]
    summary = {
        "app": app.name,
        "records": len(records),
        "records_by_macro": dict(sorted(Counter(r["macro"] for r in records).items())),
        "chains": len(chains),
        "held_out": len(lines),
        "dropped": dropped,
        "by_size": dict(sorted(Counter(str(len(x["parts"])) for x in lines).items())),
        "by_macro": dict(
            sorted(Counter(t["macro"] for x in lines for t in x["turns"] if t["macro"]).items())
        ),
        "asking": sum(bool(answer_text(x["answer"])) for x in lines),
        "turns": len(turns),
        "turns_by_kind": dict(sorted(Counter(t["kind"] for t in turns).items())),
        "seed": cfg.seed,
        "size": cfg.size,
    }
    io.write_json(tmp / "summary.json", summary)
    io.publish_dir(tmp, cfg.out)
    return summary
