"""The server side of the OpenAI chat protocol over real HTTP on 127.0.0.1: the wire format of a completion, a
model list and an error, the two routes (`GET /v1/models`, `POST /v1/chat/completions`) and the server's life
(start on a free port unless given, stop). The reference planners are served with it, and the tests' scripted
double of a served model speaks the same protocol through it.

A route the protocol does not have is a 404, a body that is not JSON a 400 and a model the server does not list
a 404, each an error object as OpenAI sends it (`{"error": {message, type, param, code}}`).
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Mapping, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Literal, Self, TypedDict


class CompletionMessage(TypedDict):
    role: Literal["assistant"]
    content: str


class Choice(TypedDict):
    index: int
    message: CompletionMessage
    finish_reason: Literal["stop"]
    logprobs: None


class Usage(TypedDict):
    prompt_tokens: int
    completion_tokens: int
    total_tokens: int


class ChatCompletion(TypedDict):
    """A chat completion as the wire carries it (the fields a served model sends)."""

    id: str
    object: Literal["chat.completion"]
    created: int
    model: str
    choices: list[Choice]
    usage: Usage


class ErrorDetail(TypedDict):
    message: str
    type: Literal["server_error", "invalid_request_error"]
    param: None
    code: None


class ErrorReply(TypedDict):
    """An error object as OpenAI sends it."""

    error: ErrorDetail


def user_text(messages: Sequence[Mapping[str, object]], last: bool = False) -> str:
    """The text of the first (or `last`) user message of a chat request, its text parts joined by newlines."""
    for m in reversed(messages) if last else messages:
        if m.get("role") == "user":
            content = m.get("content")
            if isinstance(content, list):
                return "\n".join(str(p.get("text") or "") for p in content if p.get("type") == "text")
            return str(content or "")
    return ""


def completion(model: str, content: str, completion_id: str) -> ChatCompletion:
    """A chat completion in the wire format: one choice, the assistant's `content`."""
    return {
        "id": completion_id,
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
                "logprobs": None,
            }
        ],
        "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
    }


def error(status: int, message: str) -> ErrorReply:
    """An error object in the wire format (a 5xx is a server error, anything else a bad request)."""
    kind: Literal["server_error", "invalid_request_error"] = (
        "server_error" if status >= 500 else "invalid_request_error"
    )
    return {"error": {"message": message, "type": kind, "param": None, "code": None}}


class ChatHandler(BaseHTTPRequestHandler):
    """The two routes; a subclass says which models are served (`models`) and answers a chat request of one of
    them (`chat`, which ends in `send`)."""

    protocol_version = "HTTP/1.1"
    owned_by = "plandvc"

    def log_message(self, format: str, *args: object) -> None:  # quiet
        pass

    def models(self) -> list[str]:
        raise NotImplementedError

    def listed(self) -> None:
        """Called as a model list is sent (a double counts them)."""

    def chat(self, body: Mapping[str, object]) -> None:
        raise NotImplementedError

    def send(self, status: int, payload: Mapping[str, object]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        try:
            self.wfile.write(data)
        except OSError:
            pass  # the client gave up (timed out) meanwhile

    def do_GET(self) -> None:
        if self.path.rstrip("/") != "/v1/models":
            return self.send(404, error(404, f"no route GET {self.path}"))
        data = [{"id": m, "object": "model", "created": 0, "owned_by": self.owned_by} for m in self.models()]
        self.listed()
        self.send(200, {"object": "list", "data": data})

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.path.rstrip("/") != "/v1/chat/completions":
            return self.send(404, error(404, f"no route POST {self.path}"))
        try:
            body = json.loads(raw)
        except ValueError:
            return self.send(400, error(400, "the body is not JSON"))
        if body.get("model") not in self.models():
            return self.send(404, error(404, f"The model `{body.get('model')}` does not exist."))
        self.chat(body)


class LoopbackServer:
    """A threaded HTTP server on 127.0.0.1 (a free port unless `port` is given) with the handler class
    `handler()` returns; `url` is its OpenAI base URL. A context manager: started on entry, stopped on exit."""

    name = "openai-server"

    def __init__(self, port: int = 0) -> None:
        self.port = port
        self._server: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def handler(self) -> type[BaseHTTPRequestHandler]:
        raise NotImplementedError

    def start(self) -> Self:
        self._server = ThreadingHTTPServer(("127.0.0.1", self.port), self.handler())
        self._server.daemon_threads = True
        self.port = self._server.server_address[1]
        threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, name=self.name, daemon=True
        ).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


# ── a planner turn's messages, as the reference planners read them ──

_REQUEST = re.compile(r"<user_request>\n(.*?)\n</user_request>", re.S)
# every dialect's step info (plandvc.agent.dialects): "Step N of M" (plandvc-v1, browser-use-0.5 "... max
# possible steps") and "StepN maximum:M" (browser-use-0.13)
_STEP = re.compile(r"<step_info>\n?Step ?(\d+)(?: of | maximum:)\d+")

Messages = Sequence[Mapping[str, object]]  # a chat request's messages, as the wire carries them


def first_user_text(messages: Messages) -> str:
    """The text of the first user message (the turn's input; a retry appends feedback after it)."""
    return user_text(messages)


def request_and_turn(messages: Messages) -> tuple[str, int]:
    """(the user request, the turn counted from 0) the planner's messages are about."""
    text = first_user_text(messages)
    req, step = _REQUEST.search(text), _STEP.search(text)
    if req is None or step is None:
        raise ValueError("not a planner turn: no <user_request> or <step_info>")
    return req.group(1), int(step.group(1)) - 1


def reply(memory: str, action: Mapping[str, Mapping[str, str | bool]]) -> str:
    return json.dumps({"memory": memory, "action": [action]})
