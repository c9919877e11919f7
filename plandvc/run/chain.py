"""One chain's scripted run, as a short pipeline of named steps: plan the turns (the delegations, the merged
request), play them (prepare the first part's start, run the real planner with the scripted model and
replayed specialists), gate every part on the session, and write the episode. The rows and images stay in
memory for the caller to write; a failure is the chain's result, never an exception."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from plandvc.agent.dialects import DEFAULT as DEFAULT_DIALECT
from plandvc.agent.dialects import marks_of
from plandvc.agent.planner import Planner
from plandvc.agent.team import Report, Team
from plandvc.browser.protocol import SessionProtocol
from plandvc.checks import gate
from plandvc.records import (
    BackendState,
    ChainResult,
    ChainSpec,
    Environment,
    Episode,
    Part,
    Row,
    Task,
)
from plandvc.replay import Replayer, ReplayModel
from plandvc.run.goal import (
    READS,
    LiveSteps,
    goal_check,
    read_goal,
    read_step,
    step_gate,
)
from plandvc.run.plan import Plan, SiteInfo, Step, build_steps, plan_turns, with_delegations
from plandvc.run.recovery import (
    FailingReplayer,
    FailureSeen,
    observe_failure,
    plan_failure,
    verdict,
)
from plandvc.run.script import PlannerScript
from plandvc.run.timing import Clock, TimedSession

if TYPE_CHECKING:
    from plandvc.memory import MemoryModel

# the plan's names, read from here by the run's callers and the closed loop
__all__ = [
    "EXECUTOR", "VERSION", "ChainOutput", "Plan", "Played", "RunParams", "ScriptedTeam", "SiteInfo", "Step",
    "base_result", "build_steps", "episode_of", "gate_each", "gate_parts", "observed", "plan_turns", "play_turns",
    "run_chain", "with_delegations",
]  # fmt: skip

VERSION = "v6"
EXECUTOR = "pooled_v4"


@dataclass
class RunParams:
    """The params that change a chain's output (all of them go into its fingerprint)."""

    budget: int = 40
    planner_turns: int = 25
    timeout_base: float = 120.0
    timeout_per_turn: float = 40.0
    memory_url: str = ""
    memory_model: str = ""
    dialect: str = (
        DEFAULT_DIALECT  # the planner's input (plandvc.agent.dialects); plandvc-v1: dataset v1's rows
    )
    marks: bool = False  # the screenshot with the dialect's set-of-marks (browser-use-0.5 draws them)


@dataclass
class ChainOutput:
    result: ChainResult
    rows: list[Row] = field(default_factory=list)
    images: dict[str, bytes] = field(default_factory=dict)
    episode: Episode | None = None
    clock: Clock = field(default_factory=Clock)


class ScriptedTeam(Team):
    """The planner's own delegate action, each specialist's model replaced by the replay of its step."""

    def __init__(self, session: SessionProtocol, steps: list[Step], budget: int) -> None:
        super().__init__(session, overall_budget=budget, executor=EXECUTOR, version=VERSION)
        self.browser = session  # the session as the run has it (its backend state too)
        self.steps = steps
        self.replayers: list[Replayer] = []
        self.end_urls: list[str] = []  # the page each delegation ended on
        self.failure_seen: FailureSeen | None = None  # a recovery chain's failed attempt, gated when it ended

    async def run_step(self, family: str, instruction: str) -> Report:
        n = len(self.replayers)
        failing = self.steps[n].gated if n < len(self.steps) else None
        if n < len(self.steps) and (goal := self.steps[n].goal) is not None:
            self.steps[n].traj = await read_goal(self.browser, goal, self.steps[n].traj["site"])
        live = self.steps[n].live if n < len(self.steps) else None
        if live is not None and live["do"] in READS:
            self.steps[n].traj = await read_step(self.browser, live, self.steps[n].traj["site"])
        before = await self.browser.backend_state() if failing is not None else None
        report = await super().run_step(family, instruction)
        self.end_urls.append(self.session.url)
        if failing is not None and before is not None:
            after = await self.browser.backend_state()
            state = observed(self, self.browser, after)
            self.failure_seen = observe_failure(failing, state, dict(before), dict(after))
        return report

    def specialist_model(self, family: str, instruction: str) -> ReplayModel:
        if len(self.replayers) >= len(self.steps):
            raise RuntimeError(f"delegation beyond the script: {family}: {instruction}")
        st = self.steps[len(self.replayers)]
        if (st.family, st.instruction) != (family, instruction):
            raise RuntimeError(f"delegation out of script: {family}: {instruction}")
        rp = self.replayer(st)
        self.replayers.append(rp)
        return ReplayModel(rp, self.session)

    def replayer(self, st: Step) -> Replayer:
        """What answers a step's specialist: its replay (failing on cue), or a live step done on the page."""
        if st.live is not None and st.live["do"] not in READS:
            return LiveSteps(st.traj, self.session, st.live)
        if st.report is not None:
            return FailingReplayer(st.traj, st.elements, self.session, st.report)
        return Replayer(st.traj, st.elements, self.session)


def base_result(chain: ChainSpec, error: str | None = None) -> ChainResult:
    """A chain's result before it ran: not ok until every gate passes."""
    return {
        "key": chain["key"],
        "site": chain["site"],
        "parts": [p["id"] for p in chain["parts"]],
        "via": [p["via"] for p in chain["parts"]],
        "ok": False,
        "error": error,
    }


@dataclass
class Played:
    """What playing the turns left: the team and script that ran, and the session's backend state."""

    team: ScriptedTeam
    script: PlannerScript
    state: BackendState


async def play_turns(
    key: str,
    plan: Plan,
    first: Task,
    session: SessionProtocol,
    site: SiteInfo,
    params: RunParams,
    memory: MemoryModel | None,
) -> Played:
    """Prepare the first part's start, run the real planner with the scripted model and replayed specialists,
    and read the backend state; one timeout bounds all of it (a hang anywhere is this chain's failure)."""
    from plandvc.pool.prep import prepare

    team = ScriptedTeam(session, plan.steps, params.budget)
    script = PlannerScript(key, plan.turns, memory)
    planner = Planner(
        session,
        plan.request,
        script,
        team,
        version=VERSION,
        today=site.today,
        max_turns=params.planner_turns,
        dialect=params.dialect,
        marks=params.marks,
    )

    async def play() -> BackendState:
        await prepare(session, first)
        await planner.run()
        return await session.backend_state()

    timeout = params.timeout_base + params.timeout_per_turn * len(plan.turns)
    try:
        state = await asyncio.wait_for(play(), timeout=timeout)
    except TimeoutError:
        raise TimeoutError(f"chain timed out after {timeout:.0f}s at turn {script.t}") from None
    return Played(team, script, state)


def observed(team: ScriptedTeam, session: SessionProtocol, backend: BackendState) -> dict[str, object]:
    """The state the gates read: the session's pages and events, the backend state, the last answer given."""
    got = next((rp.answer for rp in reversed(team.replayers) if rp.answer is not None), None)
    return {
        "url": session.seen[-1] if session.seen else "",
        "seen": list(session.seen),
        "entries": backend["entries"],
        "changes": backend["changes"],
        "clipboard": backend["clipboard"],
        "events": list(session.events),
        "answer": got,
    }


def gate_each(
    parts: list[Part],
    steps: list[Step],
    team: ScriptedTeam,
    session: SessionProtocol,
    backend: BackendState,
) -> tuple[list[bool], str]:
    """Gate every part on what the session did and the backend state after it, and a goal chain's answer
    last: (each verdict, the details joined by " | "). The run and the closed-loop evaluation gate the same
    way."""
    gate_state = observed(team, session, backend)
    # a part's own end page, for the checks of where a part leaves the browser (`visited` with `last`);
    # a query check reads the chain's last page, so a later part that undid it fails the chain
    ends = {s.part: u for s, u in zip(steps, team.end_urls, strict=False) if s.part is not None}
    # a goal that opens what its constraints found leaves their list: their queries are read where they left it
    live = any(s.live is not None for s in steps)
    left = ends.get(len(parts) - 1) if live else None
    oks, details = [], []
    for i, p in enumerate(parts):
        check = p["task"]["check"]
        state = gate_state
        if check.get("kind") == "visited" and i in ends:
            state = {**gate_state, "url": ends[i]}
        elif check.get("kind") == "query" and left is not None:
            state = {**gate_state, "url": left}
        ok_p, detail_p = gate(check, p["task"].get("verifier") or {}, state)
        oks.append(bool(ok_p))
        details.append(str(detail_p))
    goal = next((s.goal for s in steps if s.goal is not None), None)
    if goal is not None:  # the answer read live, against the one the site's query semantics give
        ok_g, detail_g = gate(goal_check(goal), {}, gate_state)
        oks.append(bool(ok_g))
        details.append(str(detail_g))
    for i, st in enumerate(
        steps
    ):  # a live step: its own answer and the page it left, against the site's data
        if st.live is None:
            continue
        rp = team.replayers[i] if i < len(team.replayers) else None
        state = {**gate_state, "answer": rp.answer if rp is not None else None}
        if i < len(team.end_urls):
            state["url"] = team.end_urls[i]
        check, verifier = step_gate(st.live)
        ok_s, detail_s = gate(check, verifier, state)
        oks.append(bool(ok_s))
        details.append(f"{st.live['do']}: {detail_s}")
    if live:  # a goal with live steps: its failed gates first, so the kept detail names them
        order = sorted(range(len(oks)), key=lambda i: oks[i])
        oks, details = [oks[i] for i in order], [details[i] for i in order]
    return oks, " | ".join(details)


def gate_parts(
    parts: list[Part], plan: Plan, played: Played, session: SessionProtocol, clock: Clock
) -> tuple[bool, str]:
    """Gate every part on what the session did: (all passed, the details joined by " | ")."""
    with clock.phase("gates"):
        oks, detail = gate_each(parts, plan.steps, played.team, session, played.state)
    return all(oks), detail


def episode_of(
    chain: ChainSpec,
    parts: list[Part],
    plan: Plan,
    played: Played,
    params: RunParams,
    env: Environment | None,
    part_instructions: list[str] | None = None,
) -> Episode:
    """The chain's episode.json (key order is part of the bytes: written unsorted, `env` last); a composed
    chain's also has the executor's own instructions of its parts, beside the delegations; every episode says
    its `dialect`, and `marks` only when the screenshots carry marks, so an episode without them keeps its
    bytes."""
    episode: Episode = {
        "task_id": chain["key"],
        "site": chain["site"],
        "instruction": plan.request,
        "instruction_by": plan.instruction_by,
        "start_url": parts[0]["task"]["start"]["url"],
        "parts": [p["id"] for p in chain["parts"]],
        "via": [p["via"] for p in chain["parts"]],
        "macros": [p["traj"]["macro"] for p in parts],
        "turns": plan.turns,
        "answer": plan.answer,
        "version": VERSION,
        "executor": EXECUTOR,
        "budget": params.budget,
        "planner_turns": params.planner_turns,
        "response_format": played.script.response_format,
    }
    episode["dialect"] = params.dialect  # every episode says its dialect (v3's, not plandvc-v1, always did)
    if marks_of(params.dialect, params.marks):
        episode["marks"] = True
    if "failure" in chain:
        episode["failure"] = chain["failure"]
    if "goal" in chain:
        episode["goal"] = chain["goal"]
    if part_instructions is not None:
        episode["part_instructions"] = part_instructions
    if env is not None:
        episode["env"] = env
    return episode


async def run_chain(
    chain: ChainSpec,
    parts: list[Part],
    session: SessionProtocol,
    site: SiteInfo,
    params: RunParams,
    memory: MemoryModel | None,
    env: Environment | None = None,
    sibling: Part | None = None,
) -> ChainOutput:
    """Run one chain on a fresh `session`: plan the turns, play them, gate the parts, write the episode.
    A failure is the result, never an exception (but cancellation); `env` is recorded in the episode. A
    recovery chain (`failure` in its line; `sibling` the wrong value's trajectory) is kept only when its
    failed attempt failed its own gate and left nothing behind (`plandvc.run.recovery`)."""
    out = ChainOutput(base_result(chain))
    res = out.result
    session = TimedSession(session, out.clock)
    try:
        failure = None
        if "failure" in chain:
            res["failure"] = chain["failure"]["kind"]
            failure = plan_failure(chain["failure"], parts[chain["failure"]["part"]], sibling, chain["key"])
            chain = {**chain, "failure": failure.line}  # the episode records the failure as made (its cut)
        own = [p["task"]["instruction"] for p in parts] if "request" in chain else None
        parts = with_delegations(chain, parts)
        plan = await plan_turns(chain, parts, site, memory, failure)
        res["turns"], res["steps"], res["instruction_by"] = (
            len(plan.turns),
            len(plan.steps),
            plan.instruction_by,
        )
        played = await play_turns(chain["key"], plan, parts[0]["task"], session, site, params, memory)
        passed, detail = gate_parts(parts, plan, played, session, out.clock)
        team, script = played.team, played.script
        ran = (
            script.finished
            and len(team.replayers) == len(plan.steps)
            and all(rp.finished for rp in team.replayers)
        )
        res["ok"], res["detail"], res["final_by"] = bool(passed and ran), detail[:300], script.final_by
        if not res["ok"]:
            res["error"] = ("script not finished" if not ran else "check failed: " + res["detail"])[:300]
        if failure is not None:
            seen = team.failure_seen
            res["failed_gate"] = seen.gate_detail[:300] if seen is not None else ""
            why = verdict(seen)
            if why is not None:  # the first reason: without a failure there is no recovery to keep
                res["ok"], res["error"] = False, why[:300]
        out.rows, out.images = script.rows, script.images
        out.episode = episode_of(chain, parts, plan, played, params, env, own)
    except asyncio.CancelledError:
        raise
    except Exception as e:
        res["error"] = f"{type(e).__name__}: {e}"[:300]
    return out
