"""A chain's plan, made before the browser is touched: its delegations (`Step`: a trip home before each part
reached `via: home`, the part, a recovery chain's failed attempt and its recovery, a goal's live steps and its
ending), the merged request, and the turns the scripted planner says (`Plan`). `plandvc.run.chain` plays it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from plandvc.macros import FAMILY_OF, HOME_STEP
from plandvc.records import (
    Answer,
    ChainGoal,
    ChainSpec,
    ElementDescriptor,
    FailureKind,
    GoalStep,
    Part,
    Replayable,
    Trajectory,
    Turn,
    TurnRole,
)
from plandvc.replay import home_trajectory
from plandvc.run.goal import step_family, unread_goal, unread_step
from plandvc.run.recovery import FailurePlan

if TYPE_CHECKING:
    from plandvc.memory import MemoryModel


@dataclass
class SiteInfo:
    """A chain's site as the planner sees it: its name, its today, and (for an app site, whose home is not
    `/sites/<site>`) the trip home's replay; None: the generated site's home link (`home_trajectory`)."""

    name: str
    today: str
    home: Replayable | None = None


@dataclass
class Step:
    """One delegation of the chain: the family, the instruction, and the trajectory its specialist replays."""

    family: str
    instruction: str
    macro: str
    traj: Trajectory
    elements: list[ElementDescriptor]
    part: int | None = None  # the index of the part it plays; None for a trip home
    fails: FailureKind | None = None  # a recovery chain's failed attempt (its replay is `failed`'s)
    report: str | None = None  # the failing specialist's own report; None: it reports a finished step
    gated: Part | None = None  # the part the failed attempt's own gate reads, right after it
    role: TurnRole | None = None  # every turn's role in a recovery chain; None in a chain without a failure
    goal: ChainGoal | None = (
        None  # a goal chain's ending: read live (`plandvc.run.goal`), its trajectory then
    )
    live: GoalStep | None = None  # a live step of a goal that uses what is found (`plandvc.run.goal`)


def build_steps(
    chain: ChainSpec, parts: list[Part], site: SiteInfo, failure: FailurePlan | None = None
) -> list[Step]:
    """The delegations: a trip home before every part reached `via: home`, then the part itself; in a recovery
    chain the failing part's failed attempt and its recovery take the part's place (every step has a role)."""
    steps = []
    for i, (spec, part) in enumerate(zip(chain["parts"], parts, strict=True)):
        if spec["via"] == "home":
            home = site.home or home_trajectory(chain["site"])
            steps.append(
                Step(
                    "Navigation",
                    HOME_STEP.format(site=site.name),
                    "navigate_home",
                    home["trajectory"],
                    home["elements"],
                )
            )
        task, traj = part["task"], part["traj"]
        family = FAMILY_OF[traj["macro"]]
        if failure is not None and failure.part == i:
            f = failure
            steps.append(
                Step(
                    family,
                    task["instruction"],
                    traj["macro"],
                    f.failed,
                    f.failed_elements,
                    i,
                    f.kind,
                    f.report,
                )
            )
            steps[-1].gated = part
            steps.append(Step(family, f.instruction, traj["macro"], f.recovery, f.recovery_elements, i))
            steps[-1].role = "after_failure"
            continue
        steps.append(Step(family, task["instruction"], traj["macro"], traj, part["elements"], i))
    for live in chain.get("goal", {}).get("steps", []):
        traj = unread_step(live, chain["site"])
        steps.append(Step(step_family(live), live.get("say", ""), traj["macro"], traj, [], live=live))
    if (goal := chain.get("goal")) is not None and "steps" not in goal:
        unread = unread_goal(goal, chain["site"])
        steps.append(Step("Information", goal.get("say", ""), unread["macro"], unread, [], goal=goal))
    if failure is not None:
        for st in steps:
            st.role = st.role or "normal"
    return steps


def with_delegations(chain: ChainSpec, parts: list[Part]) -> list[Part]:
    """The parts with a composed chain's delegations (`say`) as their instructions: the planner delegates, the
    recovery re-delegates and the rows record those words; a joined chain's parts as they are."""
    return [
        {**p, "task": {**p["task"], "instruction": spec["say"]}} if "say" in spec else p
        for spec, p in zip(chain["parts"], parts, strict=True)
    ]


@dataclass
class Plan:
    """A chain's turns, planned before the browser is touched: the delegations, the request, the answer."""

    steps: list[Step]
    turns: list[Turn]
    request: str
    instruction_by: str
    answer: Answer


def turn_of(step: Step) -> Turn:
    """A delegation's turn; in a recovery chain also its role, and on the failed attempt its failure kind."""
    turn: Turn = {
        "kind": "delegate",
        "family": step.family,
        "instruction": step.instruction,
        "macro": step.macro,
    }
    if step.fails is not None:
        turn["fails"] = step.fails
    if step.role is not None:
        turn["role"] = step.role
    if step.live is not None and "plan" in step.live:
        turn["plan"] = step.live["plan"]
    if step.live is not None and step.live["do"] == "find":
        turn["found"] = step.live["name"]
    elif step.live is not None and step.live.get("reveals"):  # a carry goal's read: the value it narrows by
        turn["found"] = str(step.live["check"].get("expected", ""))
    return turn


async def plan_turns(
    chain: ChainSpec,
    parts: list[Part],
    site: SiteInfo,
    memory: MemoryModel | None,
    failure: FailurePlan | None = None,
) -> Plan:
    """The delegations (a trip home before each `via: home` part), the merged request and the turn list."""
    steps = build_steps(chain, parts, site, failure)
    instructions = [p["task"]["instruction"] for p in parts]
    if "request" in chain:  # composed by chain-specs; a memory model may rewrite it, its values kept
        request, how = chain["request"], chain.get("request_by", "composed")
        if memory is not None:
            request, how = await memory.rewrite(request)
    elif memory is not None:
        request, how = await memory.merge(instructions)
    else:
        from plandvc.memory import joined

        request, how = joined(instructions), "joined"
    goal = chain.get("goal")
    answer = goal["expected"] if goal is not None else parts[-1]["traj"].get("answer")
    turns: list[Turn] = [turn_of(s) for s in steps]
    turns.append({"kind": "done", "answer": answer})
    if "final" in chain:
        turns[-1]["text"] = chain["final"]
    if failure is not None:
        turns[-1]["role"] = "normal"
    return Plan(steps, turns, request, how, answer)
