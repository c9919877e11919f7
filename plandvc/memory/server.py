"""An OpenAI-compatible server through the real `openai` client: the one way the memory model and the evaluated
planner connect, retry and say what went wrong.

The client's own retries are off (`max_retries=0`): `retry` retries transient errors (a connection that failed,
reset or timed out; 408, 409, 429 or a 5xx answer) with exponential backoff, so the attempts are bounded,
counted and fast to test. `connect` checks the server before any work: `GET /models` must answer (retried the
same way) and list the model, else one line of the caller's error class names the server and what it serves.
"""

from __future__ import annotations

import asyncio
import os
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar
from urllib.parse import urlsplit

from plandvc.io import InputError

if TYPE_CHECKING:  # imported where used: openai costs ~1 CPU-s, paid only by a command that asks a server
    import openai

T = TypeVar("T")
TRANSIENT_STATUS = {408, 409, 429}  # and every 5xx


def base_url(url: str) -> str | None:
    """The OpenAI base URL for `url` ("http://host:port" means "http://host:port/v1"); None when `url` is not an
    http(s) URL (also when it does not parse: an unclosed IPv6 bracket, a port not a number or out of range)."""
    u = url.strip().rstrip("/")
    try:
        parts = urlsplit(u)
        _ = parts.port  # reading it raises ValueError for a port not a number or not in 0-65535
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return None
    return u if parts.path else u + "/v1"


def transient(e: BaseException) -> bool:
    """Worth another try: a connection that failed, reset or timed out; 408, 409, 429 or a 5xx answer."""
    import openai

    if isinstance(e, openai.APIConnectionError):  # APITimeoutError is one
        return True
    return isinstance(e, openai.APIStatusError) and (
        e.status_code in TRANSIENT_STATUS or e.status_code >= 500
    )


def why(e: BaseException) -> str:
    """One line saying what went wrong with a request."""
    import openai

    if isinstance(e, openai.APITimeoutError):
        return "timed out"
    if isinstance(e, openai.APIStatusError):
        return f"HTTP {e.status_code}"
    cause = e.__cause__ or e.__context__
    if isinstance(e, openai.APIConnectionError):
        text = "connection failed" + (f" ({cause})" if cause and str(cause) else "")
    else:
        text = f"{type(e).__name__}: {e}"
    return " ".join(text.split())


async def retry(
    make: Callable[[], Awaitable[T]], *, retries: int, backoff: float, traffic: Counter[str] | None = None
) -> T:
    """`make()`, a transient error retried up to `retries` times, waiting backoff x 2^k between tries; the last
    error is raised. `traffic` counts the requests, retries, time-outs and errors."""
    import openai

    count: Counter[str] = Counter() if traffic is None else traffic
    for k in range(retries + 1):
        try:
            count["requests"] += 1
            return await make()
        except openai.OpenAIError as e:
            if isinstance(e, openai.APITimeoutError):
                count["timeouts"] += 1
            if k == retries or not transient(e):
                count["errors"] += 1
                raise
            count["retries"] += 1
        await asyncio.sleep(backoff * 2**k)
    raise AssertionError("unreachable")  # the loop returns or raises


@dataclass(frozen=True)
class Role:
    """What a server is to its caller, for the errors: the settings naming its URL and model (memory.url,
    memory.model), what it is ("memory model") and the error class raised."""

    url_key: str
    model_key: str
    who: str
    unavailable: type[InputError]


async def connect(
    url: str,
    model: str,
    role: Role,
    *,
    timeout: float,
    retries: int,
    backoff: float,
    traffic: Counter[str] | None = None,
) -> tuple[openai.AsyncOpenAI, str]:
    """(the client, its base URL) once `GET /models` answers and lists `model`, else `role.unavailable` with one
    line; `timeout` is per request (seconds)."""
    import openai

    who, unavailable = role.who, role.unavailable
    base = base_url(url)
    if base is None:
        raise unavailable(f"{role.url_key}: {url!r} is not an http(s) URL")
    if not model.strip():
        raise unavailable(f"{role.model_key} is empty but {role.url_key} is {base}")
    client = openai.AsyncOpenAI(
        base_url=base, api_key=os.environ.get("OPENAI_API_KEY") or "EMPTY", timeout=timeout, max_retries=0
    )
    try:
        page = await retry(client.models.list, retries=retries, backoff=backoff, traffic=traffic)
    except openai.OpenAIError as e:
        await client.close()
        raise unavailable(
            f"{who}: no OpenAI-compatible server answers at {base} (GET /models: {why(e)})"
        ) from None
    served = sorted(str(m.id) for m in page.data)
    if model not in served:
        await client.close()
        raise unavailable(
            f"{who}: {model!r} is not served at {base} (it serves: {', '.join(served) or 'nothing'})"
        )
    return client, base
