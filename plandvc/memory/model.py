"""The memory model: a small model behind any OpenAI-compatible server (vLLM, ...) that merges a chain's parts
into one request and writes the planner's final message.

Talks through the real `openai.AsyncOpenAI` client, connected and retried by `plandvc.memory.server` (shared
with the evaluated planner): the client's own retries are off, transient errors (429, 5xx, connection reset or
timeout) are retried with exponential backoff, so the attempts are bounded, counted and fast to test. Every request holds one of `concurrency` slots; the first try
is at temperature 0, so a deterministic server gives deterministic rows.

A server that does not answer at `connect` (or does not serve the model) is a `MemoryUnavailable` error before
any chain runs; one that fails later is a counted fallback (`stats`), never a crash.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TypeVar

import openai
from openai.types.chat import ChatCompletion

from plandvc.io import InputError
from plandvc.memory import server
from plandvc.memory.text import (
    answer_text,
    fallback_final,
    final_prompt,
    joined,
    length_bound,
    merge_prompt,
    missing_values,
    plain,
    rewrite_prompt,
)
from plandvc.records import Answer

T = TypeVar("T")
MERGE_TOKENS = 300  # max_completion_tokens of a merge
FINAL_TOKENS = 320  # and for a final message
FINAL_TRIES = 3  # tries for a final message: temperature 0, then 0.7
RETRY_TEMPERATURE = 0.7


class MemoryUnavailable(InputError):
    """The configured memory server does not answer, or does not serve the model (one line, naming both)."""


class MemoryModel:
    """A connected memory model; make one with `await MemoryModel.connect(url, model)`."""

    def __init__(
        self,
        client: openai.AsyncOpenAI,
        url: str,
        model: str,
        *,
        concurrency: int = 4,
        retries: int = 3,
        backoff: float = 0.5,
        images: bool = False,
    ) -> None:
        if concurrency < 1 or retries < 0 or backoff < 0:
            raise InputError(
                f"memory: concurrency must be >= 1, retries and backoff >= 0 "
                f"(got {concurrency}, {retries}, {backoff})"
            )
        self.client, self.url, self.model = client, url, model
        self.retries, self.backoff, self.images = retries, backoff, images
        self.stats: Counter[str] = Counter()  # fallbacks by reason
        self.traffic: Counter[str] = Counter()  # requests, retries, timeouts (for logs and metrics)
        self._slots = asyncio.Semaphore(concurrency)

    @classmethod
    async def connect(
        cls,
        url: str,
        model: str,
        *,
        timeout: float = 30.0,
        concurrency: int = 4,
        retries: int = 3,
        backoff: float = 0.5,
        images: bool = False,
    ) -> MemoryModel:
        """Connect and check that GET /models answers and lists `model`, else MemoryUnavailable.

        `timeout` is per request (seconds); `retries` the extra tries after a transient error, waiting
        `backoff` x 1, 2, 4, ... seconds between them; `images`: the model takes image parts (else the
        planner's screenshots are left out of the final-message request)."""
        traffic: Counter[str] = Counter()
        client, base = await server.connect(
            url, model, ROLE, timeout=timeout, retries=retries, backoff=backoff, traffic=traffic
        )
        self = cls(
            client, base, model, concurrency=concurrency, retries=retries, backoff=backoff, images=images
        )
        self.traffic.update(traffic)
        return self

    async def close(self) -> None:
        await self.client.close()

    async def __aenter__(self) -> MemoryModel:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # ── the two things it writes ──

    async def merge(self, instructions: list[str]) -> tuple[str, str]:
        """(one request asking for every part in order, "merged" | "joined"): the model's rewrite when it keeps
        every value of every part and is not much longer, else the parts joined (the reason counted). A single
        part is never sent: there is nothing to merge."""
        parts = [s.strip() for s in instructions if s and s.strip()]
        fallback = joined(parts)
        if len(parts) < 2:
            return fallback, "joined"
        return await self._rewritten(merge_prompt(parts), parts, (fallback, "joined"), "merged", "merge")

    async def rewrite(self, request: str) -> tuple[str, str]:
        """(a composed request in the model's own words, "rewritten" | "composed"): kept when it keeps every
        value of the request and is not much longer, else the composed request (the reason counted)."""
        request = request.strip()
        return await self._rewritten(
            rewrite_prompt(request), [request], (request, "composed"), "rewritten", "rewrite"
        )

    async def _rewritten(
        self, prompt: str, parts: list[str], fallback: tuple[str, str], how: str, what: str
    ) -> tuple[str, str]:
        """The model's answer to `prompt` when it keeps every value of `parts` and is not much longer, else
        `fallback` (the reason counted as `<what>_error|empty|dropped_value|too_long`)."""
        try:
            reply = await self._chat(
                [{"role": "user", "content": prompt}], temperature=0, max_tokens=MERGE_TOKENS
            )
        except openai.OpenAIError:
            return self._fallback(f"{what}_error", *fallback)
        text = plain(reply, "request")
        if not text:
            return self._fallback(f"{what}_empty", *fallback)
        if missing_values(text, parts):
            return self._fallback(f"{what}_dropped_value", *fallback)
        if len(text) > length_bound(parts):
            return self._fallback(f"{what}_too_long", *fallback)
        return text, how

    async def final(self, messages: Sequence[Mapping[str, object]], answer: Answer) -> tuple[str, str]:
        """(the planner's final message, "model" | "fallback"): asked in the planner's own conversation with
        FINAL_ASK, accepted when it contains the answer verbatim (case-insensitive); tried at
        temperature 0, then 0.7, three tries in all; else `fallback_final(answer)`, the reason counted."""
        need = answer_text(answer).lower()
        convo: list[Mapping[str, object]] = [
            *self.conversation(messages),
            {"role": "user", "content": final_prompt(answer)},
        ]
        reason = "final_empty"
        for k in range(FINAL_TRIES):
            try:
                reply = await self._chat(
                    convo, temperature=0 if k == 0 else RETRY_TEMPERATURE, max_tokens=FINAL_TOKENS
                )
            except openai.OpenAIError:
                return self._fallback("final_error", fallback_final(answer), "fallback")
            text = plain(reply, "final")
            if text and need in text.lower():
                return text, "model"
            reason = "final_missing_answer" if text else "final_empty"
        return self._fallback(reason, fallback_final(answer), "fallback")

    def conversation(self, messages: Sequence[Mapping[str, object]]) -> list[dict[str, object]]:
        """The planner's messages as sent to the memory model: role and content only; image parts dropped
        unless the model takes images (`images=True`, and then only data: or http(s) URLs, never a row's
        file name); a content of text parts only becomes one string, which every server accepts."""
        out: list[dict[str, object]] = []
        for msg in messages:
            content = msg.get("content")
            if isinstance(content, list):
                kept = [p for p in content if isinstance(p, dict) and self._keep_part(p)]
                if all(p.get("type") == "text" for p in kept):
                    content = "\n\n".join(str(p.get("text") or "") for p in kept)
                else:
                    content = kept
            out.append({"role": msg.get("role", "user"), "content": content if content is not None else ""})
        return out

    def _keep_part(self, part: Mapping[str, object]) -> bool:
        if part.get("type") == "text":
            return True
        if part.get("type") == "image_url" and self.images:
            image = part.get("image_url") or {}
            url = str(image.get("url") or "") if isinstance(image, Mapping) else ""
            return url.startswith(("data:", "http://", "https://"))
        return False

    def summary(self) -> dict[str, dict[str, int]]:
        """Fallbacks by reason and the request counts, sorted, for the run summary and metrics."""
        return {"fallbacks": dict(sorted(self.stats.items())), "traffic": dict(sorted(self.traffic.items()))}

    # ── requests ──

    def _fallback(self, reason: str, text: str, how: str) -> tuple[str, str]:
        self.stats[reason] += 1
        return text, how

    async def _chat(
        self, messages: Sequence[Mapping[str, object]], *, temperature: float, max_tokens: int
    ) -> str:
        async def once() -> ChatCompletion:
            return await self.client.chat.completions.create(
                model=self.model,
                messages=messages,  # type: ignore[arg-type]
                temperature=temperature,
                max_completion_tokens=max_tokens,
            )

        r = await self._request(once)
        return (r.choices[0].message.content or "") if r.choices else ""

    async def _request(self, make: Callable[[], Awaitable[T]]) -> T:
        """`make()` in a slot, retried by `server.retry` (the waits between tries are outside the slot)."""

        async def in_slot() -> T:
            async with self._slots:
                return await make()

        return await server.retry(in_slot, retries=self.retries, backoff=self.backoff, traffic=self.traffic)


ROLE = server.Role("memory.url", "memory.model", "memory model", MemoryUnavailable)


async def connect_or_none(url: str | None, model: str) -> MemoryModel | None:
    """The CLI's helper: None when no memory URL is configured (the parts are joined, the final message is the
    answer), else a connected MemoryModel (or MemoryUnavailable)."""
    if not (url or "").strip():
        return None
    return await MemoryModel.connect(str(url), model)
