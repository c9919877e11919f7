"""Fakes for the agent tests (imported by tests/test_agent*.py): a tiny site of linked pages behind the
Session action methods, a Snapshot with `render()`, scripted models, and PNG helpers (stdlib only)."""

from __future__ import annotations

import json
import re
import struct
import zlib
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

PAGES: dict[str, tuple[str, list[tuple[str, str]]]] = {
    "/sites/shop": ("Northwind Shop", [("Northwind Shop", "/sites/shop"), ("Orders", "/sites/shop/orders")]),
    "/sites/shop/orders": (
        "Orders",
        [
            ("Northwind Shop", "/sites/shop"),
            ("Customers", "/sites/shop/customers"),
            ("Order 1001", "/sites/shop/orders/1001"),
        ],
    ),
    "/sites/shop/customers": (
        "Customers",
        [("Northwind Shop", "/sites/shop"), ("Orders", "/sites/shop/orders")],
    ),
    "/sites/shop/orders/1001": (
        "Order 1001",
        [("Northwind Shop", "/sites/shop"), ("Orders", "/sites/shop/orders")],
    ),
}


def png(width: int = 4, height: int = 3) -> bytes:
    """A valid, tiny RGB PNG."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    rows = b"".join(b"\x00" + b"\x80\x80\x80" * width for _ in range(height))
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", ihdr)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


def png_size(data: bytes) -> tuple[int, int]:
    """(width, height) of a PNG; AssertionError when it is not one (signature, IHDR, CRCs, IEND)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG signature"
    pos, kinds = 8, []
    while pos < len(data):
        (n,) = struct.unpack(">I", data[pos : pos + 4])
        kind, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + n]
        (crc,) = struct.unpack(">I", data[pos + 8 + n : pos + 12 + n])
        assert crc == zlib.crc32(kind + body), f"bad CRC in {kind!r}"
        kinds.append(kind)
        pos += 12 + n
    assert kinds[0] == b"IHDR" and kinds[-1] == b"IEND", kinds
    return struct.unpack(">II", data[16:24])


@dataclass
class FakeSnapshot:
    url: str
    title: str
    links: list[tuple[str, str]]
    scroll_y: float = 0
    page_height: float = 1600

    def render(self) -> str:
        return "\n".join(f"[{i}]<a href={href}>{text}</a>" for i, (text, href) in enumerate(self.links))


class StaleIndexError(Exception):
    pass


@dataclass
class FakeSession:
    """A session over PAGES: click follows a link of the current snapshot; other actions are recorded."""

    path: str = "/sites/shop"
    base: str = "http://127.0.0.1:8320"
    fail_on: str | None = None  # an action name that raises
    calls: Counter = field(default_factory=Counter)
    events: list[dict[str, Any]] = field(default_factory=list)
    last_snapshot: FakeSnapshot | None = None

    async def snapshot(self) -> FakeSnapshot:
        self.calls["snapshot"] += 1
        title, links = PAGES[self.path]
        self.last_snapshot = FakeSnapshot(self.base + self.path, title, links)
        return self.last_snapshot

    async def screenshot(self) -> bytes:
        self.calls["screenshot"] += 1
        return png()

    def _act(self, name: str, **params: Any) -> None:
        self.calls[name] += 1
        if name == self.fail_on:
            raise StaleIndexError(f"index {params.get('index')} is from an old snapshot")
        self.events.append({"action": name, **params})

    async def click(self, index: int) -> None:
        self._act("click", index=index)
        assert self.last_snapshot is not None
        self.path = self.last_snapshot.links[index][1]

    async def input(self, index: int, text: str) -> None:
        self._act("input", index=index, text=text)

    async def select(self, index: int, value: str) -> None:
        self._act("select", index=index, value=value)

    async def set_range(self, index: int, value: float) -> None:
        self._act("set_range", index=index, value=value)

    async def scroll(self, dy: float) -> None:
        self._act("scroll", dy=dy)

    async def go_to(self, url: str) -> None:
        self._act("go_to", url=url)
        self.path = url

    async def back(self) -> None:
        self._act("back")


def user_text(messages: list[dict[str, Any]]) -> str:
    """The text part of the (first) user message."""
    content = next(m for m in messages if m["role"] == "user")["content"]
    return next(p["text"] for p in content if p["type"] == "text")


def images(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        p
        for m in messages
        if isinstance(m["content"], list)
        for p in m["content"]
        if p["type"] == "image_url"
    ]


class LinkClicker:
    """A tiny specialist model: find the link named `link` in the browser state, click it, then say done."""

    def __init__(self, link: str, wants_screenshot: bool = False, answer: Any = None) -> None:
        self.link, self.wants_screenshot, self.answer = link, wants_screenshot, answer
        self.seen: list[list[dict[str, Any]]] = []

    async def respond(self, messages: list[dict[str, Any]], response_format: dict[str, Any]) -> str:
        self.seen.append(messages)
        text = user_text(messages)
        if "<step_1>" in text:  # it clicked already
            done = {"text": f"I opened the {self.link} page.", "success": True, "answer": self.answer}
            return json.dumps({"memory": "Clicked it.", "action": [{"done": done}]})
        found = re.search(r"^\[(\d+)\]<a\b[^\n]*>\s*" + re.escape(self.link) + r"\s*</a>", text, re.M)
        assert found, f"no link {self.link!r} in the browser state:\n{text}"
        return json.dumps(
            {"memory": f"Clicking {self.link}.", "action": [{"click": {"index": int(found[1])}}]}
        )


class Scripted:
    """A model answering each call with the next reply of a list (a str is sent as is, a dict as JSON)."""

    def __init__(self, replies: list[Any], wants_screenshot: bool = True) -> None:
        self.replies, self.wants_screenshot = list(replies), wants_screenshot
        self.seen: list[list[dict[str, Any]]] = []
        self.formats: list[dict[str, Any]] = []

    async def respond(self, messages: list[dict[str, Any]], response_format: dict[str, Any]) -> str:
        self.seen.append(messages)
        self.formats.append(response_format)
        if not self.replies:
            raise RuntimeError("script exhausted")
        r = self.replies.pop(0)
        return r if isinstance(r, str) else json.dumps(r)


def delegate(family: str, instruction: str, memory: str = "m") -> dict[str, Any]:
    return {"memory": memory, "action": [{"delegate": {"family": family, "instruction": instruction}}]}


def done(text: str = "The task is done.", success: bool = True) -> dict[str, Any]:
    return {"memory": "All done.", "action": [{"done": {"text": text, "success": success}}]}
