"""The optional memory model (any OpenAI-compatible server): the merged request and the final message.

`text` holds the pure rules (prompts, `joined`, `values`, `plain`), `model` the client (`MemoryModel`). The
client's names are imported on first use (`plandvc.lazy_attribute`), so the text rules do not pay for openai's import.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from plandvc import lazy_attribute
from plandvc.memory.text import FINAL_ASK, MERGE_ASK, fallback_final, joined, plain, values

if TYPE_CHECKING:
    from plandvc.memory.model import MemoryModel, MemoryUnavailable, connect_or_none

# the names whose module imports openai, read on first use
_LAZY = dict.fromkeys(("MemoryModel", "MemoryUnavailable", "connect_or_none"), "plandvc.memory.model")


def __getattr__(name: str) -> object:
    return lazy_attribute(__name__, _LAZY, name)


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
