"""The optional memory model (any OpenAI-compatible server): the merged request and the final message.

`text` holds the pure rules (prompts, `joined`, `values`, `plain`), `model` the client (`MemoryModel`).
"""

from __future__ import annotations

from plandvc.memory.model import MemoryModel, MemoryUnavailable, connect_or_none
from plandvc.memory.text import FINAL_ASK, MERGE_ASK, fallback_final, joined, plain, values

__all__ = [
    "FINAL_ASK",
    "MERGE_ASK",
    "MemoryModel",
    "MemoryUnavailable",
    "connect_or_none",
    "fallback_final",
    "joined",
    "plain",
    "values",
]
