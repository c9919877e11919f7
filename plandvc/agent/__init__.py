"""The planner agent (v6), its team's delegate action, and the specialist loop."""
