"""plandvc: planner training rows for a hierarchical web agent, by construction, as a DVC pipeline."""

from __future__ import annotations

import importlib
from collections.abc import Mapping

__version__ = "0.1.0"


def lazy_attribute(package: str, lazy: Mapping[str, str], name: str) -> object:
    """The attribute `name` of `package`, imported from its module `lazy[name]` on first read (PEP 562: a
    package's module-level `__getattr__` calls this); any other name is the usual AttributeError. Why:
    `plandvc.browser` and `plandvc.memory` re-export classes whose modules import Playwright and openai (~1.5
    CPU-s together), which most commands that read the packages' plain parts never use."""
    module = lazy.get(name)
    if module is None:
        raise AttributeError(f"module {package!r} has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
