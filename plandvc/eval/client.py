"""The planner under evaluation: any OpenAI-compatible server, through the real `openai` client.

`PlannerClient.connect` lists `GET /models` first: a server that does not answer, or does not serve the model,
is one `PlannerUnavailable` error before any chain runs. Afterwards a reply that times out or fails
transiently (connection, 408, 409, 429, 5xx) is retried `retries` times with backoff; one that never comes is
`None` (scored invalid), never an exception. `response_format` (the planner's JSON schema) is sent while the
server accepts it: a 400/422 answer to a request that carried it is retried once without, and from then on it
is left out (`response_format_refused`). Every try, retry, time-out and error is counted in `traffic`.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any

import openai

from plandvc.agent.schema import RESPONSE_FORMAT
from plandvc.io import InputError
from plandvc.memory import server
from plandvc.memory.server import transient, why

REFUSED = (400, 422)


class PlannerUnavailable(InputError):
    """The planner server does not answer, or does not serve the model (one line naming both)."""


ROLE = server.Role("eval.planner_url", "eval.planner_model", "planner", PlannerUnavailable)


class PlannerClient:
    """A connected planner; make one with `await PlannerClient.connect(url, model)`."""

    def __init__(
        self,
        client: openai.AsyncOpenAI,
        model: str,
        *,
        retries: int = 2,
        backoff: float = 0.5,
        concurrency: int = 2,
        max_tokens: int = 512,
    ) -> None:
        self.client, self.model = client, model
        self.retries, self.backoff, self.max_tokens = retries, backoff, max_tokens
        self.send_format = True
        self.traffic: Counter[str] = Counter()
        self._slots = asyncio.Semaphore(concurrency)

    @classmethod
    async def connect(
        cls,
        url: str,
        model: str,
        *,
        timeout: float = 120.0,
        retries: int = 2,
        backoff: float = 0.5,
        concurrency: int = 2,
        max_tokens: int = 512,
    ) -> PlannerClient:
        """Connect and check that the server lists `model`, else PlannerUnavailable."""
        client, _ = await server.connect(url, model, ROLE, timeout=timeout, retries=retries, backoff=backoff)
        return cls(
            client, model, retries=retries, backoff=backoff, concurrency=concurrency, max_tokens=max_tokens
        )

    async def close(self) -> None:
        await self.client.close()

    @property
    def response_format_refused(self) -> bool:
        return not self.send_format

    async def reply(self, messages: list[dict[str, Any]]) -> tuple[str | None, str | None]:
        """(the reply's text, None) or (None, why no reply came after the retries)."""
        self.traffic["replies"] += 1
        for k in range(self.retries + 1):
            try:
                return await self._once(messages, self.send_format), None
            except openai.OpenAIError as e:
                if isinstance(e, openai.APITimeoutError):
                    self.traffic["timeouts"] += 1
                if isinstance(e, openai.APIStatusError) and e.status_code in REFUSED and self.send_format:
                    return await self._without_format(messages, e)
                if k == self.retries or not transient(e):
                    self.traffic["failed"] += 1
                    return None, why(e)
                self.traffic["retries"] += 1
            await asyncio.sleep(self.backoff * 2**k)
        raise AssertionError("unreachable")  # the loop returns

    async def _without_format(
        self, messages: list[dict[str, Any]], refusal: openai.APIStatusError
    ) -> tuple[str | None, str | None]:
        """The request again without `response_format`: when that is answered, the server refused the
        format, which is left out from now on; when it is refused too, the request itself was bad."""
        try:
            text = await self._once(messages, False)
        except openai.OpenAIError as e:
            self.traffic["failed"] += 1
            return None, why(e if not isinstance(e, openai.APIStatusError) else refusal)
        self.send_format = False
        self.traffic["response_format_refused"] = 1
        return text, None

    async def _once(self, messages: list[dict[str, Any]], send_format: bool) -> str:
        extra: dict[str, Any] = {"response_format": RESPONSE_FORMAT} if send_format else {}
        async with self._slots:
            self.traffic["requests"] += 1
            r = await self.client.chat.completions.create(
                model=self.model,
                messages=messages,  # type: ignore[arg-type]
                temperature=0,
                max_tokens=self.max_tokens,
                **extra,
            )
        return (r.choices[0].message.content or "") if r.choices else ""


class PlannerModel:
    """The served planner as the agent's model (`plandvc.agent.model.Model`): a reply that never came is the
    empty string, which the planner scores as a bad reply and retries once with feedback."""

    def __init__(self, client: PlannerClient, images: bool = True) -> None:
        self.client, self.images = client, images
        self.wants_screenshot = True  # the screenshot is taken either way: the page must be the same
        self.replies: list[str | None] = []

    async def respond(self, messages: list[dict[str, Any]], response_format: dict[str, Any]) -> str:
        text, _ = await self.client.reply(messages if self.images else text_only(messages))
        self.replies.append(text)
        return text or ""


def text_only(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The messages without image parts, each content of text parts one string (for a model that takes no
    images: every OpenAI-compatible server accepts this)."""
    out = []
    for m in messages:
        content = m.get("content")
        if isinstance(content, list):
            content = "\n\n".join(str(p.get("text") or "") for p in content if p.get("type") == "text")
        out.append({**m, "content": content})
    return out
