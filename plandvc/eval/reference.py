"""The reference planners, each served over real HTTP as an OpenAI-compatible server, so the evaluation reaches
them by exactly the path a served model takes (the `openai` client, `GET /v1/models`,
`POST /v1/chat/completions`).

- `oracle` answers the known step: the training row's own target for the chain (found by the request in
  `<user_request>`) at the turn (`Step N of M`, or `StepN maximum:M`, in `<step_info>`: every dialect's). It must score 1.0 teacher-forced and
  closed-loop: anything less is a bug in the evaluation.
- `always-done` answers `done` with no answer ("The task is done.") at every turn: its teacher-forced step
  accuracy is exactly the share of turns that are the `done` of a chain asking no question, its closed-loop
  success 0.
- `random-family` picks one of the four families or `done` at random (seeded by the seed, the request and
  the turn, so a reply does not depend on the order requests come in), delegating the whole request: the
  floor a planner that only guesses would reach.
"""

from __future__ import annotations

import json
import random
import re
import threading
from collections.abc import Callable, Mapping, Sequence

from plandvc.eval.specs import HeldOut
from plandvc.eval.wire import (
    ChatCompletion,
    ChatHandler,
    ErrorReply,
    LoopbackServer,
    completion,
    error,
    user_text,
)
from plandvc.io import InputError, read_jsonl
from plandvc.macros import FAMILIES
from plandvc.memory.text import DONE_TEXT

REFERENCES = ("oracle", "always-done", "random-family")
_REQUEST = re.compile(r"<user_request>\n(.*?)\n</user_request>", re.S)
# every dialect's step info (plandvc.agent.dialects): "Step N of M" (plandvc-v1, browser-use-0.5 "... max
# possible steps") and "StepN maximum:M" (browser-use-0.13)
_STEP = re.compile(r"<step_info>\n?Step ?(\d+)(?: of | maximum:)\d+")

Messages = Sequence[Mapping[str, object]]  # a chat request's messages, as the wire carries them
Planner = Callable[[Messages], str]


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


def _reply(memory: str, action: Mapping[str, Mapping[str, str | bool]]) -> str:
    return json.dumps({"memory": memory, "action": [action]})


class Oracle:
    """The known step of every held-out chain: the training row's target by (request, turn)."""

    def __init__(self, chains: list[HeldOut]) -> None:
        self.targets: dict[tuple[str, int], str] = {}
        for c in chains:
            for row in read_jsonl(c.dir / "rows.jsonl"):
                at = (c.line["request"], int(row["step"]))
                if self.targets.setdefault(at, row["target"]) != row["target"]:
                    raise InputError(f"{c.dir}: two held-out chains share the request but not turn {at[1]}")

    def __call__(self, messages: Messages) -> str:
        request, turn = request_and_turn(messages)
        target = self.targets.get((request, turn))
        if target is None:  # off the chains it knows: a reply it cannot give
            return _reply("I do not know this step.", {"done": {"text": DONE_TEXT, "success": False}})
        return target


def always_done(messages: Messages) -> str:
    return _reply("", {"done": {"text": DONE_TEXT, "success": True}})


class RandomFamily:
    """One of the four families or done, uniformly, seeded by (seed, request, turn)."""

    def __init__(self, seed: int) -> None:
        self.seed = seed

    def __call__(self, messages: Messages) -> str:
        request, turn = request_and_turn(messages)
        pick = random.Random(f"{self.seed}|{request}|{turn}").choice([*FAMILIES, "done"])
        if pick == "done":
            return _reply("", {"done": {"text": DONE_TEXT, "success": True}})
        return _reply("", {"delegate": {"family": pick, "instruction": request}})


def reference_planner(name: str, chains: list[HeldOut], seed: int = 0) -> Planner:
    if name == "oracle":
        return Oracle(chains)
    if name == "always-done":
        return always_done
    if name == "random-family":
        return RandomFamily(seed)
    raise InputError(f"--reference: unknown reference planner {name!r} (known: {', '.join(REFERENCES)})")


class PlannerServer(LoopbackServer):
    """An OpenAI-compatible server on 127.0.0.1 answering every chat completion with `planner(messages)`;
    `url` is its base URL, `model` the one model it lists. A request that is not a planner turn is a 400."""

    name = "planner-server"

    def __init__(self, planner: Planner, model: str, port: int = 0) -> None:
        super().__init__(port)
        self.planner, self.model = planner, model
        self.requests = 0
        self._lock = threading.Lock()

    def complete(self, body: Mapping[str, object]) -> tuple[int, ChatCompletion | ErrorReply]:
        """(status, payload) for one chat completion request of the served model."""
        with self._lock:
            self.requests += 1
            n = self.requests
        try:
            messages = body.get("messages") or []
            content = self.planner(list(messages) if isinstance(messages, list) else [])
        except ValueError as e:
            return 400, error(400, str(e))
        return 200, completion(self.model, content, f"chatcmpl-{self.model}-{n}")

    def handler(self) -> type[ChatHandler]:
        server = self

        class Handler(ChatHandler):
            def models(self) -> list[str]:
                return [server.model]

            def chat(self, body: Mapping[str, object]) -> None:
                self.send(*server.complete(body))

        return Handler
