"""run-chains: each chain's planner run in Chromium with a scripted planner and replayed specialists."""
