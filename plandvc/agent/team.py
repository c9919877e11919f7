"""The team and its delegate action: `Team.run_step(family, instruction)` runs the family's specialist in the
planner's own session within one overall specialist step budget, and words the report the planner reads next.

The report is worded as in evaluation, so rows made with a replayed specialist read exactly as a served
executor's would: the family, the executor's name, the steps used and left, the specialist's own done text,
the answer, and where the page is now.
"""

from __future__ import annotations

from dataclasses import dataclass

from plandvc.agent.model import Model
from plandvc.agent.specialist import SessionLike, Specialist, SpecialistResult, where
from plandvc.records import ParamValue

# the overall specialist step budget of a planner run, as in evaluation (run-chains' --budget default)
SPECIALIST_BUDGET = 40


@dataclass(frozen=True)
class Report:
    """What one delegation did, and `text`, the report the planner sees next turn."""

    family: str
    instruction: str
    executor: str
    status: str  # "done" | "failed" | "out_of_steps" | "budget_exhausted"
    steps: int
    steps_left: int
    budget: int
    done_text: str | None
    answer: ParamValue
    error: str | None
    url: str
    title: str

    @property
    def ok(self) -> bool:
        return self.status == "done"

    @property
    def text(self) -> str:
        return report_text(self)


def _steps(n: int) -> str:
    return f"{n} step" if n == 1 else f"{n} steps"


def report_text(r: Report) -> str:
    """The report's wording (one sentence per fact, in a fixed order)."""
    who = f"The {r.family} specialist ({r.executor})"
    left = f"{r.steps_left} of {r.budget} specialist steps left"
    if r.status == "budget_exhausted":
        head = f"{who} was not run: the specialist step budget is used up ({left})."
    elif r.status == "out_of_steps":
        head = f"{who} ran out of steps after {_steps(r.steps)} without finishing ({left})."
    elif r.status == "failed":
        head = f"{who} failed after {_steps(r.steps)} ({left}). Error: {r.error}"
    else:
        head = f"{who} finished in {_steps(r.steps)} ({left})."
    lines = [head]
    if r.done_text:
        lines.append(f"Its report: {r.done_text}")
    if r.answer is not None:
        lines.append(f"Answer: {r.answer}")
    lines.append(f"Page now: {r.url} ({r.title})" if r.url else "Page now: unknown")
    return "\n".join(lines)


class Team:
    """The planner's specialists, one per family, sharing `session` and an overall step budget.

    The specialist's model comes from `specialist_model(family, instruction)`: by default the served executor
    model given as `model`; the scripted run overrides it to return the part's replay.
    """

    def __init__(
        self,
        session: SessionLike,
        overall_budget: int = SPECIALIST_BUDGET,
        executor: str = "pooled_v4",
        version: str = "v6",
        model: Model | None = None,
    ) -> None:
        if overall_budget < 0:
            raise ValueError(f"overall_budget must be >= 0, got {overall_budget}")
        self.session, self.budget, self.executor, self.version = session, overall_budget, executor, version
        self.model = model
        self.steps_used = 0
        self.reports: list[Report] = []
        self.results: list[SpecialistResult] = []

    @property
    def steps_left(self) -> int:
        return self.budget - self.steps_used

    def specialist_model(self, family: str, instruction: str) -> Model:
        """The model that drives this delegation's specialist."""
        if self.model is None:
            raise RuntimeError("Team has no specialist model: pass model= or override specialist_model")
        return self.model

    async def run_step(self, family: str, instruction: str) -> Report:
        """The delegate action: run `family`'s specialist on `instruction`, then word and keep its report."""
        if self.steps_left <= 0:
            return await self._keep_unrun(family, instruction)
        model = self.specialist_model(family, instruction)  # out-of-script delegations raise here
        specialist = Specialist(self.session, model, family, instruction, self.steps_left, self.version)
        res = await specialist.run()
        self.steps_used += res.steps
        self.results.append(res)
        status = "done" if res.ok else "out_of_steps" if res.out_of_steps else "failed"
        report = Report(
            family=family,
            instruction=instruction,
            executor=self.executor,
            status=status,
            steps=res.steps,
            steps_left=self.steps_left,
            budget=self.budget,
            done_text=res.done_text,
            answer=res.answer,
            error=res.error,
            url=res.url,
            title=res.title,
        )
        return self._keep(report)

    async def _keep_unrun(self, family: str, instruction: str) -> Report:
        """The report of a delegation the budget no longer allows (the page is where it was)."""
        url, title = await where(self.session)
        report = Report(
            family=family,
            instruction=instruction,
            executor=self.executor,
            status="budget_exhausted",
            steps=0,
            steps_left=self.steps_left,
            budget=self.budget,
            done_text=None,
            answer=None,
            error="specialist step budget used up",
            url=url,
            title=title,
        )
        return self._keep(report)

    def _keep(self, report: Report) -> Report:
        self.reports.append(report)
        return report
