"""What the rest of the project uses of a browser session, as typing Protocols.

`plandvc.browser.Session` is the one implementation; the timing proxy of run-chains and the agent tests' fake
session satisfy the same protocols, so code that drives a session names these instead of `Any`.
`ActionSession` is the part the specialist actions need (`plandvc.browser.actions`); `SessionProtocol` adds
what a planner turn, a replay and a gate read.
"""

from __future__ import annotations

from typing import Any, Protocol

from plandvc.browser.snapshot import Snapshot


class ActionSession(Protocol):
    """The specialist actions, by element index of the current snapshot (docs/ARCHITECTURE.md, "Actions")."""

    async def click(self, index: int) -> object: ...
    async def input(self, index: int, text: str) -> object: ...
    async def select(self, index: int, value: str) -> object: ...
    async def set_range(self, index: int, value: float | int | str) -> object: ...
    async def scroll(self, dy: int) -> object: ...
    async def go_to(self, url: str) -> object: ...
    async def back(self) -> object: ...


class SessionProtocol(ActionSession, Protocol):
    """A browser session: the actions, the page as a snapshot or a screenshot, loading a page, and what the
    gates read (the backend state, and the session's own record of events, pages seen and clipboard)."""

    last_snapshot: Snapshot | None
    events: list[dict[str, Any]]
    seen: list[str]
    clipboard: list[str]

    @property
    def url(self) -> str: ...

    async def snapshot(self) -> Snapshot: ...
    async def screenshot(self) -> bytes: ...
    async def goto(self, path_or_url: str) -> int | None: ...
    async def backend_state(self, site: str | None = None) -> dict[str, Any]: ...
    async def close(self) -> None: ...
