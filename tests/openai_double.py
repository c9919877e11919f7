"""A real HTTP server speaking the OpenAI protocol (GET /v1/models, POST /v1/chat/completions), scripted by tests.

In a test: `with OpenAIDouble() as api: api.script("a reply", 500, HANG, DROP, Hold("late"), fn)` queues the
answers to the next chat requests, in order: a string is the reply's content, an int an HTTP error status, HANG
a request never answered (until the double stops), DROP a connection closed without an answer, `Hold(text)` a
reply held until `api.release()`, a callable `fn(body) -> reply` decides from the request. `api.requests` holds
every chat request body received. With the queue empty, the `echo-merge` mode answers (if set), else a 400.

Standalone (for end-to-end runs): `python tests/openai_double.py --port P --mode echo-merge [--model NAME]`
serves until SIGINT/SIGTERM; a merge is answered with the numbered items joined by ", then ", a final message
with "Done: <answer>", the answer taken from the conversation's last message.
"""

from __future__ import annotations

import argparse
import re
import signal
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from plandvc.eval.wire import ChatHandler, LoopbackServer, completion, error, user_text

MAX_HOLD = 120.0  # a held or hung request gives up after this long even if nobody releases it


@dataclass(frozen=True)
class Hold:
    """A reply held until the double's `release()` (or its stop)."""

    content: str


class _Hang:
    def __repr__(self) -> str:
        return "HANG"


class _Drop:
    def __repr__(self) -> str:
        return "DROP"


HANG = _Hang()
DROP = _Drop()
Reply = str | int | Hold | _Hang | _Drop | Callable[[dict[str, Any]], Any]


def last_user_text(body: dict[str, Any]) -> str:
    """The text of the request's last user message (text parts joined)."""
    return user_text(list(body.get("messages") or []), last=True)


def echo_merge(body: dict[str, Any]) -> str:
    """The echo-merge mode: a merge joins the numbered items with ", then "; a final message says
    "Done: <answer>" with the answer the prompt asks for verbatim."""
    ask = last_user_text(body)
    if ask.startswith("Rewrite these requests"):
        items = [s.strip().rstrip(".") for s in re.findall(r"^\d+\. (.+)$", ask, re.M)]
        return ", then ".join(items) + "."
    m = re.search(r"including the answer (.+?) verbatim\.", ask, re.S)
    if "final message" in ask:
        return f"Done: {m.group(1)}" if m else "Done: the task is complete."
    return "OK"


class OpenAIDouble(LoopbackServer):
    """The scripted server on 127.0.0.1 (a free port unless given); `url` is its OpenAI base URL."""

    name = "openai-double"

    def __init__(self, models: tuple[str, ...] = ("qwen35-4b",), mode: str | None = None, port: int = 0):
        if mode not in (None, "echo-merge"):
            raise ValueError(f"unknown mode {mode!r} (known: echo-merge)")
        super().__init__(port)
        self.models, self.mode = list(models), mode
        self.requests: list[dict[str, Any]] = []
        self.model_lists = 0  # GET /v1/models served
        self.in_flight = self.max_in_flight = 0
        self._queue: deque[Reply] = deque()
        self._lock = threading.Condition()
        self._release = threading.Event()

    def script(self, *replies: Reply) -> None:
        with self._lock:
            self._queue.extend(replies)

    def release(self) -> None:
        """Let every held reply go (and any held later)."""
        self._release.set()

    def wait_in_flight(self, n: int, timeout: float = 10.0) -> bool:
        """Block until `n` chat requests are being handled at once (True), or the timeout passes (False)."""
        with self._lock:
            return self._lock.wait_for(lambda: self.in_flight >= n, timeout)

    def stop(self) -> None:
        self._release.set()
        super().stop()

    def handler(self) -> type[ChatHandler]:
        return _handler(self)

    # ── used by the handler ──

    def _next(self, body: dict[str, Any]) -> Reply:
        with self._lock:
            self.requests.append(body)
            reply: Reply | None = self._queue.popleft() if self._queue else None
        if reply is None:
            return echo_merge(body) if self.mode == "echo-merge" else 400
        return reply(body) if callable(reply) else reply

    def _enter(self) -> None:
        with self._lock:
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            self._lock.notify_all()

    def _leave(self) -> None:
        with self._lock:
            self.in_flight -= 1
            self._lock.notify_all()


def _handler(api: OpenAIDouble) -> type[ChatHandler]:
    class Handler(ChatHandler):
        owned_by = "double"

        def models(self) -> list[str]:
            return api.models

        def listed(self) -> None:
            api.model_lists += 1

        def chat(self, body: dict[str, Any]) -> None:
            api._enter()
            try:
                self._answer(body)
            finally:
                api._leave()

        def _answer(self, body: dict[str, Any]) -> None:
            reply = api._next(body)
            if isinstance(reply, Hold | _Hang):
                api._release.wait(MAX_HOLD)
            if isinstance(reply, _Hang | _Drop):
                self.close_connection = True  # no answer at all: the client sees a timeout or a reset
                return
            if isinstance(reply, Hold):
                reply = reply.content
            if isinstance(reply, int):
                return self.send(reply, error(reply, f"scripted status {reply}"))
            n = len(api.requests)
            self.send(200, completion(body["model"], str(reply), f"chatcmpl-double-{n}"))

    return Handler


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description="An OpenAI-compatible test server (see the module docstring).")
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--mode", default="echo-merge", choices=["echo-merge"])
    ap.add_argument("--model", action="append", help="a served model name (repeatable; default qwen35-4b)")
    args = ap.parse_args(argv)
    done = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: done.set())
    with OpenAIDouble(models=tuple(args.model or ["qwen35-4b"]), mode=args.mode, port=args.port) as api:
        print(f"listening on {api.url}", flush=True)
        done.wait()


if __name__ == "__main__":
    main()
