"""The planner agent (v6), its team's delegate action, and the specialist loop."""

from __future__ import annotations

from plandvc.agent.model import Model, OpenAIModel
from plandvc.agent.planner import Planner, PlannerResult
from plandvc.agent.prompts import VERSIONS
from plandvc.agent.specialist import Specialist, SpecialistResult
from plandvc.agent.team import Report, Team

__all__ = [
    "VERSIONS",
    "Model",
    "OpenAIModel",
    "Planner",
    "PlannerResult",
    "Report",
    "Specialist",
    "SpecialistResult",
    "Team",
]
