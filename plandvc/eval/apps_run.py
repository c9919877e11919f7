"""The evaluation on an app's held-out chains: every reference planner (`plandvc.eval.reference`), served over
loopback HTTP as a model is, scored teacher-forced on the chains' rows (`plandvc.eval.teacher`) and in the
closed loop (`plandvc.eval.closed.run_episode`), each episode on its own fresh app session, gated on the app's
database (`plandvc.eval.apps.AppSession`).

OUT holds `<reference>/{replies.jsonl, episodes.jsonl, metrics.json}` and `metrics.json`: every reference's
metrics by its name, and a served planner's (`--planner-url`) by `--name`, as `make eval` reports them
beside the generated held-out domains' (`plandvc.eval.table`). Scores are a function of the held-out folder, the pool and the seed; times go to stderr only.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from plandvc import io
from plandvc.agent.dialects import DEFAULT as DEFAULT_DIALECT
from plandvc.apps.app import App, Served, on_fresh_session
from plandvc.eval.apps import AppSession, app_pool, known_app, site_info
from plandvc.eval.client import Asking, PlannerClient, PlannerModel
from plandvc.eval.closed import Episode, run_episode
from plandvc.eval.metrics import (
    EvalMetrics,
    closed_metrics,
    episode_record,
    goal_kinds,
    reply_record,
    teacher_metrics,
)
from plandvc.eval.reference import REFERENCES, PlannerServer, reference_planner
from plandvc.eval.specs import HeldOut, load_held_out
from plandvc.eval.teacher import teacher_forced
from plandvc.records import Part

if TYPE_CHECKING:
    from plandvc.browser import Session


@dataclass
class AppEvalConfig:
    specs: Path  # an eval-apps held-out folder
    pool: Path  # the record-apps folder its chains were walked on
    out: Path
    references: Sequence[str] = REFERENCES
    seed: int = 0  # the reference planners' seed (random-family)
    budget: int = 40
    planner_turns: int = 25
    timeout_base: float = 120.0
    timeout_per_turn: float = 40.0
    images: bool = True
    planner_url: str = ""  # a served planner scored beside the references (empty: none)
    planner_model: str = ""
    name: str = "planner"  # its folder under OUT and its key in the metrics
    metrics: Path | None = None  # a copy of OUT/metrics.json for dvc (metrics/eval-apps-<app>.json)
    timings: dict[str, float] = field(default_factory=dict)  # seconds by reference and phase (stderr only)


async def app_closed_loop(
    app: App, chains: list[HeldOut], client: PlannerClient, cfg: AppEvalConfig, seed: int, size: int
) -> list[Episode]:
    """Every chain in the closed loop on its own fresh app session, one at a time in one Chromium; in key
    order."""
    from plandvc.browser import Browser

    out = []
    store = app_pool(cfg.pool, app)
    async with Browser() as browser:
        for chain in chains:
            parts = [store.part(pid) for pid in chain.line["parts"]]

            async def work(
                session: Session, s: Served, chain: HeldOut = chain, parts: list[Part] = parts
            ) -> Episode:
                model = PlannerModel(client, images=cfg.images)
                timeout = cfg.timeout_base + cfg.timeout_per_turn * len(chain.turns)
                return await run_episode(
                    chain, parts, AppSession(session, s.state), site_info(app), model, cfg.budget,
                    cfg.planner_turns, timeout,
                )  # fmt: skip

            what = f"chain {chain.line['key']}"
            out.append(await on_fresh_session(app, (seed, size), browser, what, work))
    return out


async def _one(
    cfg: AppEvalConfig,
    name: str,
    chains: list[HeldOut],
    url: str,
    model: str,
    app: App,
    seeded: tuple[int, int],
) -> EvalMetrics:
    client = await PlannerClient.connect(url, model, Asking())
    planner = f"reference:{name}" if name in cfg.references else f"{name}:{model}"
    metrics = EvalMetrics(planner=planner, chains=len(chains), images=cfg.images)
    dialects = sorted({chain.dialect for chain in chains})
    if dialects != [DEFAULT_DIALECT]:  # said where it is not the default, so the default's bytes stay
        metrics["dialect"] = ",".join(dialects)
    folder = cfg.out / name
    try:
        t0 = time.monotonic()
        replies = await teacher_forced(chains, client, images=cfg.images)
        cfg.timings[f"{name}.teacher_forced_s"] = time.monotonic() - t0
        io.write_jsonl(folder / "replies.jsonl", [reply_record(r) for r in replies])
        metrics["teacher_forced"] = teacher_metrics(replies)
        t0 = time.monotonic()
        episodes = await app_closed_loop(app, chains, client, cfg, *seeded)
        cfg.timings[f"{name}.closed_loop_s"] = time.monotonic() - t0
        io.write_jsonl(folder / "episodes.jsonl", [episode_record(e) for e in episodes])
        metrics["closed_loop"] = closed_metrics(episodes, goal_kinds(chains))
    finally:
        await client.close()
    io.write_json(folder / "metrics.json", metrics)
    return metrics


COMMAND = "eval-apps"


def is_eval_metrics(found: object) -> bool:
    """Whether a JSON value is eval-apps' metrics.json: every planner's metrics by its name."""
    return isinstance(found, dict) and all(isinstance(m, dict) and "planner" in m for m in found.values())


def is_eval_out(folder: Path) -> bool:
    """Whether `folder` is a previous eval-apps OUT: its metrics.json, and one folder per planner it names."""
    try:
        found = io.read_json(folder / "metrics.json")
    except io.InputError:
        return False
    if not is_eval_metrics(found):
        return False
    names = {"metrics.json", io.DVC_IGNORE, *found}
    return all(p.name in names for p in folder.iterdir())


def claim_out(cfg: AppEvalConfig) -> contextlib.AbstractContextManager[None]:
    """OUT (and --metrics) claimed as every command claims its output (`io.claimed`): one writer, never a
    foreign folder or file, writable; the command takes it before any work (the held-out chains included)."""
    files = [(cfg.metrics, is_eval_metrics, "--metrics")] if cfg.metrics is not None else []
    return io.claimed(cfg.out, is_eval_out, COMMAND, files)


def eval_apps(cfg: AppEvalConfig) -> dict[str, Any]:
    """Every reference planner on the app's held-out chains; {reference: metrics} (also OUT/metrics.json),
    with OUT claimed (`claim_out`)."""
    with claim_out(cfg):
        return evaluate(cfg)


def evaluate(cfg: AppEvalConfig) -> dict[str, Any]:
    """`eval_apps` in a block that has claimed OUT already."""
    summary = io.read_json(cfg.specs / "summary.json")
    app = known_app(str(summary["app"]))
    seeded = (int(summary["seed"]), int(summary["size"]))
    chains = load_held_out(cfg.specs)
    unknown = sorted(set(cfg.references) - set(REFERENCES))
    if unknown:
        raise io.InputError(f"--references: unknown {', '.join(unknown)} (known: {', '.join(REFERENCES)})")
    return _eval_all(cfg, app, seeded, chains)


def _eval_all(cfg: AppEvalConfig, app: App, seeded: tuple[int, int], chains: list[HeldOut]) -> dict[str, Any]:
    cfg.out.mkdir(parents=True, exist_ok=True)
    out: dict[str, Any] = {}
    for name in cfg.references:
        server = PlannerServer(reference_planner(name, chains, cfg.seed), f"reference-{name}")
        with server:
            out[name] = asyncio.run(_one(cfg, name, chains, server.url, server.model, app, seeded))
    if cfg.planner_url:
        if cfg.name in REFERENCES:
            raise io.InputError(f"--name: {cfg.name!r} is a reference planner's name")
        out[cfg.name] = asyncio.run(
            _one(cfg, cfg.name, chains, cfg.planner_url, cfg.planner_model, app, seeded)
        )
    io.write_json(cfg.out / "metrics.json", out)
    if cfg.metrics is not None:
        io.write_json(cfg.metrics, out)
    return out
