"""The harness's errors: each says in one line what went wrong and what to do about it."""

from __future__ import annotations

from plandvc.errors import SetupError


class BrowserError(SetupError):
    """Base of the harness's errors (one that reaches the command line is its first line, exit 1)."""


class ChromiumMissingError(BrowserError):
    """The Chromium executable is not where PLANDVC_CHROMIUM (or the default) says."""

    def __init__(self, path: str) -> None:
        super().__init__(
            f"chromium not found at {path}: install Debian's chromium: apt-get install "
            f"{'chromium-headless-shell' if path.endswith('headless-shell') else 'chromium'}, "
            "or set PLANDVC_CHROMIUM"
        )
        self.path = path


class ServerDownError(BrowserError):
    """The sites server does not answer at the URL the session was asked to load."""

    def __init__(self, url: str, reason: str = "") -> None:
        extra = f" ({reason})" if reason else ""
        super().__init__(f"sites server is not up: cannot load {url}{extra}; start it with `plandvc serve`")
        self.url = url


class StaleIndexError(BrowserError):
    """An action named an index of a snapshot that is no longer current."""


class ActionError(BrowserError):
    """An action cannot be done on the element it names (wrong kind of element, unknown option, ...)."""
