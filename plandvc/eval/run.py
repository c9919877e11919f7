"""eval-planner: connect to the planner (a served model, or a reference planner served here over loopback
HTTP), then the teacher-forced and the closed-loop evaluation on the held-out chains, and the outputs.

With neither a planner URL nor a reference the evaluation is skipped, and says so in its outputs: the stage
always has its outputs, so `dvc repro` runs it only when a planner is configured and `dvc metrics show`
shows why there are no scores. A planner that does not answer is one error before anything runs. Before any
work both outputs are checked: OUT is replaced only when it is a previous eval-planner output (`is_eval_out`:
only its three files, its metrics.json the evaluation's) and METRICS only when it is a previous one.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from plandvc import io
from plandvc.eval.client import Asking, PlannerClient, planner_base
from plandvc.eval.closed import LoopConfig, closed_loop
from plandvc.eval.metrics import (
    EvalMetrics,
    SkippedMetrics,
    closed_metrics,
    episode_record,
    goal_kinds,
    reply_record,
    teacher_metrics,
)
from plandvc.eval.reference import PlannerServer, reference_planner
from plandvc.eval.specs import HeldOut, load_held_out
from plandvc.eval.teacher import teacher_forced

if TYPE_CHECKING:
    from plandvc.browser import Browser

SKIPPED = "no planner_url"
MODES = ("both", "teacher-forced", "closed-loop")
COMMAND = "eval-planner"


def is_eval_metrics(found: object) -> bool:
    """Whether a parsed metrics.json is the evaluation's: skipped, or the scores of a planner."""
    return isinstance(found, dict) and ("skipped" in found or {"planner", "chains"} <= found.keys())


is_eval_out = io.owned_folder(
    ("replies.jsonl", "episodes.jsonl", "metrics.json"), "metrics.json", is_eval_metrics
)


def check_outputs(cfg: EvalConfig) -> None:
    """Before any work: OUT and METRICS may be written (absent or the evaluation's own previous outputs)."""
    io.check_output_dir(cfg.out, is_eval_out, COMMAND)
    io.check_output_json(cfg.metrics, is_eval_metrics, COMMAND, "--metrics")


@dataclass
class EvalConfig:
    specs: Path
    out: Path  # eval/<name>
    metrics: Path  # metrics/eval.json
    loop: LoopConfig
    planner_url: str = ""
    planner_model: str = ""
    reference: str = ""
    seed: int = 0
    mode: str = "both"
    limit: int = 0
    asking: Asking = field(
        default_factory=Asking
    )  # how each reply is asked (seconds, retries, replies at once, tokens)
    timings: dict[str, float] = field(default_factory=dict)  # seconds by phase, for stderr only


@dataclass(frozen=True)
class Venue:
    """Where closed loops run: a Chromium and the sites' base URL (shared by eval-references)."""

    browser: Browser
    base: str


def planner_name(cfg: EvalConfig) -> str:
    return f"reference:{cfg.reference}" if cfg.reference else cfg.planner_model


def write_skipped(cfg: EvalConfig) -> SkippedMetrics:
    """The outputs of an evaluation with no planner configured."""
    metrics = SkippedMetrics(skipped=SKIPPED)
    tmp = io.staging(cfg.out)
    io.write_jsonl(tmp / "replies.jsonl", [])
    io.write_json(tmp / "metrics.json", metrics)
    io.publish_dir(tmp, cfg.out)
    io.write_json(cfg.metrics, metrics)
    return metrics


@contextlib.contextmanager
def planner_endpoint(cfg: EvalConfig, chains: list[HeldOut]) -> Iterator[tuple[str, str]]:
    """(base URL, model) of the planner: the configured server, or a reference planner served on loopback."""
    if not cfg.reference:
        yield cfg.planner_url, cfg.planner_model
        return
    server = PlannerServer(reference_planner(cfg.reference, chains, cfg.seed), f"reference-{cfg.reference}")
    with server:
        yield server.url, server.model


def evaluate(cfg: EvalConfig) -> EvalMetrics | SkippedMetrics:
    """Run the evaluation and write its outputs; returns the metrics (also written)."""
    if cfg.planner_url.strip() and cfg.reference:
        raise io.InputError("eval: give a planner_url or a reference planner, not both")
    if cfg.mode not in MODES:
        raise io.InputError(f"eval: unknown mode {cfg.mode!r} (known: {', '.join(MODES)})")
    if cfg.planner_url.strip():
        planner_base(cfg.planner_url)
    check_outputs(cfg)
    with io.exclusive(cfg.out, COMMAND):
        if not cfg.planner_url.strip() and not cfg.reference:
            return write_skipped(cfg)
        chains = load_held_out(cfg.specs)
        if cfg.limit:
            chains = chains[: cfg.limit]
        with planner_endpoint(cfg, chains) as (url, model):
            return asyncio.run(score_planner(cfg, chains, url, model))


async def score_planner(
    cfg: EvalConfig, chains: list[HeldOut], url: str, model: str, shared: Venue | None = None
) -> EvalMetrics:
    """Score the planner at (url, model) and write cfg's outputs. `shared`: the Chromium and the sites' base
    URL the closed loop runs in (eval-references shares them among the references), else its own."""
    from plandvc.eval.reference import PAGE_BLIND
    from plandvc.ports import free_ports
    from plandvc.sites.servers import Servers

    page_blind = cfg.reference in PAGE_BLIND
    client = await PlannerClient.connect(url, model, cfg.asking)
    metrics = EvalMetrics(planner=planner_name(cfg), chains=len(chains), images=cfg.loop.images)
    tmp = io.staging(cfg.out)
    try:
        if cfg.mode in ("both", "teacher-forced"):
            t0 = time.monotonic()
            replies = await teacher_forced(chains, client, images=cfg.loop.images)
            cfg.timings["teacher_forced_s"] = time.monotonic() - t0
            io.write_jsonl(tmp / "replies.jsonl", [reply_record(r) for r in replies])
            metrics["teacher_forced"] = teacher_metrics(replies)
        if cfg.mode in ("both", "closed-loop"):
            t0 = time.monotonic()
            if shared is not None:
                episodes = await closed_loop(
                    chains, client, cfg.loop, shared.base, shared.browser, page_blind
                )
            else:
                with Servers(free_ports(1), cfg.loop.sites) as servers:
                    episodes = await closed_loop(chains, client, cfg.loop, servers.bases[0], None, page_blind)
            cfg.timings["closed_loop_s"] = time.monotonic() - t0
            io.write_jsonl(tmp / "episodes.jsonl", [episode_record(e) for e in episodes])
            metrics["closed_loop"] = closed_metrics(episodes, goal_kinds(chains))
    finally:
        await client.close()
    metrics["response_format"] = client.format  # the structured-output form the server accepted
    metrics["traffic"] = dict(sorted(client.traffic.items()))
    if not (tmp / "replies.jsonl").exists():
        io.write_jsonl(tmp / "replies.jsonl", [])
    io.write_json(tmp / "metrics.json", metrics)
    io.publish_dir(tmp, cfg.out)
    io.write_json(cfg.metrics, metrics)
    return metrics
