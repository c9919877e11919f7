"""The browser harness: `Browser` (one Chromium per worker), `Session` (a context per chain), the snapshot
of a page's interactive elements, actions by index, and the per-session clipboard."""

from __future__ import annotations

from plandvc.browser.chromium import Browser, chromium_path
from plandvc.browser.errors import (
    ActionError,
    BrowserError,
    ChromiumMissingError,
    ServerDownError,
    StaleIndexError,
)
from plandvc.browser.session import Session
from plandvc.browser.snapshot import Element, Snapshot, relative_url

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
