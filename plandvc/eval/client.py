"""The planner under evaluation: any OpenAI-compatible server, through the real `openai` client.

`PlannerClient.connect` lists `GET /models` first: a server that does not answer, or does not serve the model,
is one `PlannerUnavailable` error before any chain runs. Afterwards a reply that times out or fails
transiently (connection, 408, 409, 429, 5xx) is retried `retries` times with backoff; one that never comes is
`None` (scored invalid), never an exception. Every request has a deadline for the whole reply (`timeout`
seconds, not per read: a server that trickles one byte a second is timed out like a silent one), and a reply
that is not a well-formed chat completion (not JSON, `choices` not a list of messages with string content)
is no reply, with its reason: the turn is scored invalid and the evaluation goes on. A `GET /models` that
does not answer in time or is not a model list is one `PlannerUnavailable` line.

Structured output is asked for in the most exact form the server accepts, from a ladder (`FORMATS`): OpenAI's
`json_schema` (vLLM, llama.cpp's llama-server, hosted APIs), then `json_object` carrying the schema
(llama-cpp-python's server, which answers `json_schema` with a 500), then none. A request in one form that is
refused (400/422 at once, or any other error status that outlasts the retries) is tried once in each lesser
form; the first form answered is kept from then on (`format`). Until a first reply is answered, replies go one
at a time, so the one reply that finds the form pays for it and no other is sent in a refused form. When no
form is answered the request itself failed and the form stays. Every try, retry, time-out and error is counted in
`traffic`.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import orjson
from jsonschema import Draft202012Validator

from plandvc.agent.schema import RESPONSE_FORMAT, schema_of
from plandvc.io import InputError
from plandvc.memory import server
from plandvc.memory.server import transient, why
from plandvc.rows.shape import shape_error

if TYPE_CHECKING:  # imported where used: openai costs ~1 CPU-s, paid only by a command that asks a planner
    import openai

REFUSED = (400, 422)

# the structured-output forms, most exact first (see the module docstring)
FORMATS: tuple[str, ...] = ("json_schema", "json_object", "none")


def response_format(form: str) -> dict[str, object] | None:
    """The `response_format` body of a form of `FORMATS` (None: the form that sends none)."""
    if form == "json_schema":
        return RESPONSE_FORMAT
    if form == "json_object":
        return {"type": "json_object", "schema": schema_of(RESPONSE_FORMAT)}
    return None


class PlannerUnavailable(InputError):
    """The planner server does not answer, or does not serve the model (one line naming both)."""


ROLE = server.Role("eval.planner_url", "eval.planner_model", "planner", PlannerUnavailable)


class ReplyTimeout(Exception):
    """The whole reply did not come within the deadline (however fast its bytes trickled)."""


class NotACompletion(Exception):
    """A 200 reply whose body is not a chat completion; the message says what it is instead."""


def planner_base(url: str) -> str:
    """The planner's OpenAI base URL; a URL that is not http(s) or does not parse is PlannerUnavailable."""
    base = server.base_url(url)
    if base is None:
        raise PlannerUnavailable(f"{ROLE.url_key}: {url!r} is not an http(s) URL")
    return base


COMPLETION: dict[str, object] = {  # what is read of a chat completion: the first choice's message content
    "type": "object",
    "required": ["choices"],
    "properties": {
        "choices": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["message"],
                "properties": {
                    "message": {"type": "object", "properties": {"content": {"type": ["string", "null"]}}}
                },
            },
        }
    },
}
_COMPLETIONS = Draft202012Validator(COMPLETION)


def completion_text(body: bytes) -> str:
    """The first choice's message content of a chat completion body ("" when there is no choice)."""
    try:
        reply = orjson.loads(body)
    except orjson.JSONDecodeError:
        raise NotACompletion(f"not a chat completion (not JSON: {body[:40]!r})") from None
    problem = shape_error(COMPLETION, _COMPLETIONS, reply)
    if problem is not None:
        raise NotACompletion(f"not a chat completion ({problem})")
    choices = reply["choices"]
    return (choices[0]["message"].get("content") or "") if choices else ""


@dataclass(frozen=True)
class Asking:
    """How the planner is asked: seconds a reply may take, retries after a transient error (waiting `backoff`
    x 1, 2, 4, ... seconds), replies asked at once, and the reply's token cap."""

    timeout: float = 120.0
    retries: int = 2
    backoff: float = 0.5
    concurrency: int = 2
    max_tokens: int = 512


class PlannerClient:
    """A connected planner; make one with `await PlannerClient.connect(url, model)`."""

    def __init__(self, client: openai.AsyncOpenAI, model: str, asking: Asking = Asking()) -> None:
        self.client, self.model, self.timeout = client, model, asking.timeout
        self.retries, self.backoff, self.max_tokens = asking.retries, asking.backoff, asking.max_tokens
        self.format = FORMATS[0]
        self._settled = False  # a reply has been answered, so the form is known
        self._first = asyncio.Lock()
        self.traffic: Counter[str] = Counter()
        self._slots = asyncio.Semaphore(asking.concurrency)

    @classmethod
    async def connect(cls, url: str, model: str, asking: Asking = Asking()) -> PlannerClient:
        """Connect and check that the server lists `model`, else PlannerUnavailable (each try of `GET /models`
        has `asking.timeout` seconds for its whole reply)."""
        base = planner_base(url)
        timeout, retries, backoff = asking.timeout, asking.retries, asking.backoff
        whole = timeout * (retries + 1) + backoff * (2 ** (retries + 1))
        try:
            client, _ = await asyncio.wait_for(
                server.connect(url, model, ROLE, timeout=timeout, retries=retries, backoff=backoff), whole
            )
        except TimeoutError:
            raise PlannerUnavailable(
                f"planner: no OpenAI-compatible server answers at {base} (GET /models: timed out)"
            ) from None
        except (ValueError, TypeError, AttributeError, KeyError):  # the body was parsed as a model list
            raise PlannerUnavailable(
                f"planner: no OpenAI-compatible server answers at {base} (GET /models: not a model list)"
            ) from None
        return cls(client, model, asking)

    async def close(self) -> None:
        await self.client.close()

    async def reply(self, messages: Sequence[Mapping[str, object]]) -> tuple[str | None, str | None]:
        """(the reply's text, None) or (None, why no reply came after the retries)."""
        self.traffic["replies"] += 1
        if not self._settled:
            async with self._first:  # until one reply is answered, one at a time: that one finds the form
                if not self._settled:
                    return await self._reply(messages)
        return await self._reply(messages)

    async def _reply(self, messages: Sequence[Mapping[str, object]]) -> tuple[str | None, str | None]:
        import openai

        k = 0
        while True:
            form = self.format
            try:
                text = await self._once(messages, form)
                self._settled = True
                return text, None
            except NotACompletion as e:
                self.traffic["not_completions"] += 1
                return None, str(e)
            except (openai.OpenAIError, ReplyTimeout) as e:
                error = e
            timed_out = isinstance(error, openai.APITimeoutError | ReplyTimeout)
            if timed_out:
                self.traffic["timeouts"] += 1
            if form != self.format:  # another reply found the server's form meanwhile: ask again in it
                continue
            status = error.status_code if isinstance(error, openai.APIStatusError) else None
            last = k == self.retries or not (timed_out or transient(error))
            if status is not None and (status in REFUSED or last) and form != FORMATS[-1]:
                found = await self._lesser_format(messages, form)
                if found is not None:
                    return found, None
            if last:
                self.traffic["failed"] += 1
                return None, "timed out" if timed_out else why(error)
            self.traffic["retries"] += 1
            await asyncio.sleep(self.backoff * 2**k)
            k += 1

    async def _lesser_format(self, messages: Sequence[Mapping[str, object]], refused_form: str) -> str | None:
        """The request once in each form below `refused_form`; the first answered becomes the form from now on
        (the server refused the ones above it). None when none is answered: the request itself failed."""
        import openai

        refused = [refused_form]
        for form in FORMATS[FORMATS.index(refused_form) + 1 :]:
            try:
                text = await self._once(messages, form)
            except (openai.OpenAIError, NotACompletion, ReplyTimeout):
                refused.append(form)
                continue
            if FORMATS.index(form) > FORMATS.index(self.format):
                self.traffic.update(f"format_refused_{f}" for f in refused)
                self.format = form
            self._settled = True
            return text
        return None

    async def _once(self, messages: Sequence[Mapping[str, object]], form: str) -> str:
        body = response_format(form)
        extra: dict[str, Any] = {"response_format": body} if body is not None else {}
        async with self._slots:
            self.traffic["requests"] += 1
            ask = self.client.chat.completions.with_raw_response.create(
                model=self.model,
                messages=messages,  # type: ignore[arg-type]
                temperature=0,
                max_tokens=self.max_tokens,
                **extra,
            )
            try:  # the deadline of the whole reply, headers and body
                raw = await asyncio.wait_for(ask, self.timeout)
            except TimeoutError:
                raise ReplyTimeout from None
        return completion_text(raw.http_response.content)


class PlannerModel:
    """The served planner as the agent's model (`plandvc.agent.model.Model`): a reply that never came is the
    empty string, which the planner scores as a bad reply and retries once with feedback. `first`: the first
    reply, already asked (a page-blind planner's, `plandvc.eval.closed.first_reply`), given without asking."""

    def __init__(self, client: PlannerClient, images: bool = True, first: str | None = None) -> None:
        self.client, self.images = client, images
        self.wants_screenshot = True  # the screenshot is taken either way: the page must be the same
        self.replies: list[str | None] = []
        self.first = first

    async def respond(
        self, messages: Sequence[Mapping[str, object]], response_format: Mapping[str, object]
    ) -> str:
        if self.first is not None and not self.replies:
            text: str | None = self.first
        else:
            text, _ = await self.client.reply(messages if self.images else text_only(messages))
        self.replies.append(text)
        return text or ""


def text_only(messages: Sequence[Mapping[str, object]]) -> list[dict[str, object]]:
    """The messages without image parts, each content of text parts one string (for a model that takes no
    images: every OpenAI-compatible server accepts this)."""
    out: list[dict[str, object]] = []
    for m in messages:
        content = m.get("content")
        if isinstance(content, list):
            content = "\n\n".join(str(p.get("text") or "") for p in content if p.get("type") == "text")
        out.append({**m, "content": content})
    return out
