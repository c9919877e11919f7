"""Closed-loop evaluation: the real planner agent runs each held-out chain in Chromium with the served model as
its model, from the chain's own start (the first part's prep and start page, as in run-chains).

Each delegation is checked against the chain's next step (a trip home before a part reached `via: home`, then
the part): when its family, values and meaning (direction, bound, widget, entry) match
(`plandvc.eval.score.delegation_problems`) and it carries no value
of another part alone (`extra_values`, the strict rule: a delegation is one step), that step's recorded
trajectory is replayed as the specialist; anything else ends the episode as off script at that turn. An
episode ends on the planner's `done`, off script, on a second bad reply in one turn, at the turn cap or at the
time-out. Then every part's gate is read on the session, as run-chains reads them; the episode succeeds when
the planner said done with success, every step was carried out, every gate passes and, when the chain asks,
the done text holds the answer verbatim.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from plandvc.agent.planner import Planner, PlannerResult
from plandvc.browser.protocol import SessionProtocol
from plandvc.eval.client import PlannerClient, PlannerModel
from plandvc.eval.score import answer_kept, delegation_problems, extra_values
from plandvc.eval.specs import HeldOut, Turn
from plandvc.pool.store import Pool
from plandvc.records import ChainSpec, Part
from plandvc.replay import ReplayModel
from plandvc.run.chain import VERSION, ScriptedTeam, SiteInfo, Step, build_steps, gate_each
from plandvc.run.recovery import plan_failure

if TYPE_CHECKING:
    from plandvc.browser import Browser

ENDS = (
    "success",
    "off_script",
    "invalid_reply",
    "turn_cap",
    "done_failed",
    "gate_failed",
    "answer_missing",
    "not_finished",
    "timeout",
    "error",
)


class OffScript(Exception):
    """A delegation that is not the chain's next step; `turn` is the planner turn (from 1) it came at."""

    def __init__(self, turn: int, why: str) -> None:
        super().__init__(f"turn {turn}: {why}")
        self.turn, self.why = turn, why


class EvalTeam(ScriptedTeam):
    """The planner's team in the closed loop: as run-chains' scripted team, but a delegation that is not the
    next step raises OffScript before a specialist runs (a matching one replays the step)."""

    def __init__(self, session: SessionProtocol, steps: list[Step], chain: HeldOut, budget: int) -> None:
        super().__init__(session, steps, budget)
        self.chain = chain
        self.turns = [t for t in chain.turns if t.kind == "delegate"]

    def specialist_model(self, family: str, instruction: str) -> ReplayModel:
        i = len(self.replayers)
        turn = len(self.reports) + 1  # every earlier turn delegated (a done ends the run)
        if i >= len(self.steps):
            raise OffScript(turn, f"a {family} delegation after every step of the chain was carried out")
        why = refusal(family, instruction, self.turns[i], self.chain)
        if why is not None:
            raise OffScript(turn, why)
        rp = self.replayer(self.steps[i])  # a replay (failing on cue), or a goal's live step
        self.replayers.append(rp)
        return ReplayModel(rp, self.session)


def refusal(family: str, instruction: str, turn: Turn, chain: HeldOut) -> str | None:
    """Why a delegation is not the chain's next step `turn` (its problems joined), or None when it is."""
    problems = delegation_problems(family, instruction, turn, chain)
    extra = extra_values(instruction, turn, chain)
    if extra:  # a delegation is one step: the strict rule, as teacher-forced step accuracy's
        problems.append("instruction carries other parts' " + ", ".join(repr(v) for v in extra))
    return "; ".join(problems) if problems else None


@dataclass
class Episode:
    """How one closed-loop episode went."""

    key: str
    end: str  # one of ENDS
    success: bool
    turns: int
    steps_done: int
    steps: int
    off_script_turn: int | None = None
    detail: str = ""
    gates: list[bool] = field(default_factory=list)
    replies: list[str | None] = field(default_factory=list)


def load_chain_parts(pool: Path, chain: HeldOut) -> list[Part]:
    """The chain's parts ({task, traj, elements}) from the pool, by the kept index's runs."""
    store = Pool.open(pool)
    return [store.part(pid) for pid in chain.line["parts"]]


def load_sibling(pool: Path, chain: HeldOut) -> Part | None:
    """A held-out recovery chain's wrong-value sibling from the pool, or None."""
    failure = chain.line.get("failure")
    sid = failure.get("sibling") if failure is not None else None
    if sid is None:
        return None
    return Pool.open(pool).part(sid)


def episode_steps(chain: HeldOut, parts: list[Part], site: SiteInfo, sibling: Part | None) -> list[Step]:
    """The steps an episode of `chain` carries out (trips home, parts, a recovery chain's failing attempt)."""
    line = chain.line
    spec: ChainSpec = {
        "key": line["key"],
        "site": line["site"],
        "parts": [{"id": p, "via": v} for p, v in zip(line["parts"], line["via"], strict=True)],
    }
    if "goal" in line:  # a goal chain: its ending is read live, as in run-chains
        spec["goal"] = line["goal"]
    planned, failure = line.get("failure"), None
    if planned is not None:  # the specialist fails on cue; the planner under test must re-delegate
        failure = plan_failure(planned, parts[planned["part"]], sibling, line["key"])
    return build_steps(spec, parts, site, failure)


async def run_episode(
    chain: HeldOut,
    parts: list[Part],
    session: SessionProtocol,
    site: SiteInfo,
    model: PlannerModel,
    budget: int,
    planner_turns: int,
    timeout: float,
    sibling: Part | None = None,
) -> Episode:
    """One held-out chain in the closed loop on a fresh `session`; never raises (but cancellation)."""
    from plandvc.pool.prep import prepare

    line = chain.line
    steps = episode_steps(chain, parts, site, sibling)
    team = EvalTeam(session, steps, chain, budget)
    planner = Planner(
        session,
        line["request"],
        model,
        team,
        version=VERSION,
        today=site.today,
        max_turns=planner_turns,
        dialect=chain.dialect,
        marks=chain.marks,
    )
    ep = Episode(line["key"], "", False, 0, 0, len(steps))

    async def play() -> PlannerResult:
        await prepare(session, parts[0]["task"])
        return await planner.run()

    try:
        res = await asyncio.wait_for(play(), timeout=timeout)
        ep.turns = res.turns
    except OffScript as e:
        ep.end, ep.turns, ep.off_script_turn, ep.detail = "off_script", e.turn, e.turn, e.why
    except TimeoutError:
        ep.end, ep.detail = "timeout", f"episode timed out after {timeout:.0f}s"
    except asyncio.CancelledError:
        raise
    except Exception as e:
        ep.end, ep.detail = "error", f"{type(e).__name__}: {e}"[:300]
    ep.replies = list(model.replies)
    ep.steps_done = sum(rp.finished for rp in team.replayers)
    if ep.end:  # it ended before the planner finished its run
        return ep
    state = await session.backend_state()
    ep.gates, detail = gate_each(parts, steps, team, session, state)
    _verdict(ep, res, chain, detail)
    return ep


def _verdict(ep: Episode, res: PlannerResult, chain: HeldOut, gate_detail: str) -> None:
    """How an episode the planner finished ended: `ep.end` and `ep.detail` (and `ep.success`)."""
    if res.reason and res.reason.startswith("turn ") and "no valid reply" in res.reason:
        ep.end, ep.detail = "invalid_reply", res.reason + ": " + "; ".join(res.errors[-1:])
    elif res.done_text is None:
        ep.end, ep.detail = "turn_cap", res.reason or ""
    elif not res.success:
        ep.end, ep.detail = "done_failed", "the planner finished with success false"
    elif ep.steps_done < ep.steps:
        ep.end, ep.detail = "not_finished", f"done after {ep.steps_done} of {ep.steps} steps"
    elif not all(ep.gates):
        ep.end, ep.detail = "gate_failed", gate_detail[:300]
    elif not answer_kept(res.done_text, chain.line["answer"]):
        ep.end, ep.detail = "answer_missing", f"the done text lacks the answer {chain.line['answer']!r}"
    else:
        ep.end, ep.success = "success", True


@dataclass
class LoopConfig:
    pool: Path
    sites: Path
    budget: int = 40
    planner_turns: int = 25
    timeout_base: float = 120.0
    timeout_per_turn: float = 40.0
    images: bool = True


async def first_reply(chain: HeldOut, client: PlannerClient, cfg: LoopConfig) -> str | None:
    """A page-blind planner's first reply in the loop (its reply a function of the request and the turn
    alone, as `plandvc.eval.reference.PAGE_BLIND`'s), asked once with the chain's first recorded input (its
    training row's: the same request and turn as the live first page's, which such a planner never reads);
    None when no reply came."""
    from plandvc.eval.teacher import turn_inputs

    text, _ = await client.reply(turn_inputs(chain, cfg.images)[0])
    return text


def refused_at_once(chain: HeldOut, steps: list[Step], text: str, cfg: LoopConfig) -> Episode | None:
    """The episode when the first reply `text` is a valid delegation that is not the chain's first step: the
    loop ends at turn 1 as off script before any specialist runs or any gate is read, so the episode is what
    the loop records (one turn, no step carried out, no gate, that one reply). Any other reply (done, invalid,
    the right step) is None: the loop runs."""
    from plandvc.agent.messages import parse_reply, read_reply
    from plandvc.agent.schema import RESPONSE_FORMAT, schema_of

    firsts = [t for t in chain.turns if t.kind == "delegate"]
    if cfg.budget <= 0 or cfg.planner_turns < 1 or not firsts or not steps:
        return None  # the loop's first turn would not reach the delegation check
    parsed, problems = parse_reply(text, schema_of(RESPONSE_FORMAT))
    if problems:
        return None
    reply = read_reply(parsed)
    if reply.name != "delegate":
        return None
    why = refusal(reply.text("family"), reply.text("instruction"), firsts[0], chain)
    if why is None:
        return None
    return Episode(chain.line["key"], "off_script", False, 1, 0, len(steps), 1, why, [], [text])


async def closed_loop(
    chains: list[HeldOut],
    client: PlannerClient,
    cfg: LoopConfig,
    base: str,
    browser: Browser | None = None,
    page_blind: bool = False,
) -> list[Episode]:
    """Every held-out chain in the closed loop, one at a time on one Chromium (`browser`, else one of its own);
    episodes in key order. With `page_blind`, each first reply is asked once ahead (`first_reply`): an episode
    it ends off script (`refused_at_once`) is not played, any other is played with that first reply."""
    from plandvc.browser import Browser
    from plandvc.sites.spec import load_sites, site_name

    if browser is None:
        async with Browser() as own:
            return await closed_loop(chains, client, cfg, base, own, page_blind)
    specs = load_sites(cfg.sites)
    out = []
    for chain in chains:
        name = chain.line["site"]
        site = SiteInfo(site_name(cfg.sites, name), specs[name].today)
        parts = load_chain_parts(cfg.pool, chain)
        sibling = load_sibling(cfg.pool, chain)
        first = await first_reply(chain, client, cfg) if page_blind else None
        if first is not None:
            known = refused_at_once(chain, episode_steps(chain, parts, site, sibling), first, cfg)
            if known is not None:
                out.append(known)
                continue
        session = await browser.new_session(base)
        try:
            model = PlannerModel(client, images=cfg.images, first=first)
            timeout = cfg.timeout_base + cfg.timeout_per_turn * len(chain.turns)
            out.append(
                await run_episode(
                    chain, parts, session, site, model, cfg.budget, cfg.planner_turns, timeout, sibling
                )
            )
        finally:
            await session.close()
    return out
