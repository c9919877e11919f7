"""The one interface every model behind the agent has: `respond(messages, response_format) -> str`.

The planner and the specialist ask a model for one JSON reply per step. In evaluation the model is a served LLM
(`OpenAIModel`, any OpenAI-compatible server); in the scripted run it is a script or a replay. A model that does
not read images says so with `wants_screenshot = False`, and then no screenshot is taken for it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, Protocol, TypedDict, runtime_checkable

if TYPE_CHECKING:
    import openai

# the chat as OpenAI's messages: `{"role", "content"}`, a content one string or a list of the parts below
Messages = list[dict[str, object]]


class TextPart(TypedDict):
    """A text part of a message's content."""

    type: Literal["text"]
    text: str


class ImageURL(TypedDict):
    url: str  # a data: URL (the screenshot as base64 PNG)


class ImagePart(TypedDict):
    """An image part of a message's content (OpenAI's `image_url` part)."""

    type: Literal["image_url"]
    image_url: ImageURL


@runtime_checkable
class Model(Protocol):
    """A chat model as the agent uses it."""

    wants_screenshot: bool

    async def respond(self, messages: Messages, response_format: dict[str, object]) -> str:
        """The model's reply (a JSON string) to `messages`, constrained by `response_format`."""
        ...


class OpenAIModel:
    """A served model through the `openai` AsyncOpenAI client; `response_format` is passed through as is."""

    def __init__(
        self,
        client: openai.AsyncOpenAI,
        model: str,
        *,
        wants_screenshot: bool = True,
        temperature: float = 0.0,
        max_tokens: int = 1024,
    ) -> None:
        self.client, self.model = client, model
        self.wants_screenshot = wants_screenshot
        self.temperature, self.max_tokens = temperature, max_tokens

    async def respond(self, messages: Messages, response_format: dict[str, object]) -> str:
        # the messages and the format are OpenAI's shapes as plain dicts, not the client's TypedDicts
        reply = await self.client.chat.completions.create(  # type: ignore[call-overload]
            model=self.model,
            messages=messages,
            response_format=response_format,
            temperature=self.temperature,
            max_tokens=self.max_tokens,
        )
        return reply.choices[0].message.content or ""
