"""eval-references: every reference planner scored on the same held-out chains in one process, as
`eval-planner --reference <name>` scores each alone, with the same outputs byte for byte (OUT and METRICS
are path templates with `{name}`: eval/reference-{name}, metrics/eval-reference-{name}.json).

What is shared: the held-out chains are read once, one loopback server serves every reference (each under its
model name `reference-<name>`), and the closed loops run in one Chromium against one set of site servers. Each
reference is scored teacher-forced first, then in the closed loop, where a page-blind reference's episode
that its first reply already ends off script is not played (`plandvc.eval.closed.refused_at_once`).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from dataclasses import dataclass, field
from pathlib import Path

from plandvc import io
from plandvc.eval.client import Asking
from plandvc.eval.closed import LoopConfig
from plandvc.eval.metrics import EvalMetrics
from plandvc.eval.reference import REFERENCES, PlannerServer, reference_planner
from plandvc.eval.run import MODES, EvalConfig, Venue, check_outputs, score_planner
from plandvc.eval.specs import HeldOut, load_held_out

NAME = "{name}"  # the placeholder OUT and METRICS name the reference by


@dataclass
class ReferencesConfig:
    specs: Path
    out: str  # eval/reference-{name}
    metrics: str  # metrics/eval-reference-{name}.json
    loop: LoopConfig
    references: tuple[str, ...] = REFERENCES
    seed: int = 0
    mode: str = "both"
    limit: int = 0
    asking: Asking = field(default_factory=Asking)
    timings: dict[str, float] = field(default_factory=dict)  # seconds by reference and phase, for stderr only


def parse_references(text: str) -> tuple[str, ...]:
    """A comma list of reference names, each known and named once."""
    names = tuple(n.strip() for n in text.split(",") if n.strip())
    unknown = [n for n in names if n not in REFERENCES]
    if unknown or not names:
        raise io.InputError(
            f"--references: unknown {', '.join(map(repr, unknown)) or 'none given'} (known: {', '.join(REFERENCES)})"
        )
    if len(set(names)) != len(names):
        raise io.InputError(f"--references: a name given twice in {text!r}")
    return names


def per_reference(cfg: ReferencesConfig) -> list[EvalConfig]:
    """Each reference's eval-planner configuration (its OUT and METRICS from the templates)."""
    for option, template in (("--out", cfg.out), ("--metrics", cfg.metrics)):
        if NAME not in template:
            raise io.InputError(f"{option}: {template!r} does not name the reference by {NAME}")
    if cfg.mode not in MODES:
        raise io.InputError(f"eval: unknown mode {cfg.mode!r} (known: {', '.join(MODES)})")
    return [
        EvalConfig(
            specs=cfg.specs,
            out=Path(cfg.out.replace(NAME, name)),
            metrics=Path(cfg.metrics.replace(NAME, name)),
            loop=cfg.loop,
            reference=name,
            seed=cfg.seed,
            mode=cfg.mode,
            limit=cfg.limit,
            asking=cfg.asking,
        )
        for name in cfg.references
    ]


def eval_references(cfg: ReferencesConfig) -> dict[str, EvalMetrics]:
    """Score every reference and write its outputs; {name: metrics}. Every OUT and METRICS is checked before
    any work and claimed for the whole run."""
    configs = per_reference(cfg)
    for c in configs:
        check_outputs(c)
    with contextlib.ExitStack() as claims:
        for c in configs:
            claims.enter_context(io.exclusive(c.out, "eval-references"))
        chains = load_held_out(cfg.specs)
        if cfg.limit:
            chains = chains[: cfg.limit]
        planners = {
            f"reference-{c.reference}": reference_planner(c.reference, chains, c.seed) for c in configs
        }
        with PlannerServer.serving(planners) as server:
            return asyncio.run(_score_all(cfg, configs, chains, server.url))


async def _score_all(
    cfg: ReferencesConfig, configs: list[EvalConfig], chains: list[HeldOut], url: str
) -> dict[str, EvalMetrics]:
    from plandvc.browser import Browser
    from plandvc.ports import free_ports
    from plandvc.sites.servers import Servers

    out: dict[str, EvalMetrics] = {}
    async with contextlib.AsyncExitStack() as stack:
        shared = None
        if cfg.mode != "teacher-forced":  # one Chromium and one set of site servers for every closed loop
            servers = stack.enter_context(Servers(free_ports(1), cfg.loop.sites))
            shared = Venue(await stack.enter_async_context(Browser()), servers.bases[0])
        for c in configs:
            t0 = time.monotonic()
            out[c.reference] = await score_planner(c, chains, url, f"reference-{c.reference}", shared)
            cfg.timings[c.reference] = time.monotonic() - t0
    return out
