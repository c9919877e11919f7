"""plandvc: planner training rows for a hierarchical web agent, by construction, as a DVC pipeline."""

from __future__ import annotations

__version__ = "0.1.0"
