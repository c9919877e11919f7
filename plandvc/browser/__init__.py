"""The browser harness: `Browser` (one Chromium per worker), `Session` (a context per chain), the snapshot
of a page's interactive elements, actions by index, and the per-session clipboard.

`Browser`, `chromium_path` and `Session` are imported on first use (`plandvc.lazy_attribute`): their modules import
Playwright, which a command that only reads a snapshot's `Element` or an action's schema does not need."""

from __future__ import annotations

from typing import TYPE_CHECKING

from plandvc import lazy_attribute
from plandvc.browser.errors import (
    ActionError,
    BrowserError,
    ChromiumMissingError,
    ServerDownError,
    StaleIndexError,
)
from plandvc.browser.snapshot import Element, Snapshot, relative_url

if TYPE_CHECKING:
    from plandvc.browser.chromium import Browser, chromium_path
    from plandvc.browser.session import Session

# the names whose modules import Playwright, read on first use
_LAZY = {
    "Browser": "plandvc.browser.chromium",
    "chromium_path": "plandvc.browser.chromium",
    "Session": "plandvc.browser.session",
}


def __getattr__(name: str) -> object:
    return lazy_attribute(__name__, _LAZY, name)


__all__ = [
    "ActionError",
    "Browser",
    "BrowserError",
    "ChromiumMissingError",
    "Element",
    "ServerDownError",
    "Session",
    "Snapshot",
    "StaleIndexError",
    "chromium_path",
    "relative_url",
]
