"""Provider-neutral chat types and the ``LLMClient`` protocol every client implements."""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, Field

Role = Literal["system", "user", "assistant", "tool"]


class ToolCall(BaseModel):
    """A tool call made by the model. ``arguments`` is the raw JSON text the model sent."""

    id: str
    name: str
    arguments: str


class ImagePart(BaseModel):
    """A picture sent with a user message (a rendered document page, an image document's
    page): PNG or JPEG bytes in base64, and its size in pixels (what the image costs in
    tokens is reckoned from it)."""

    data: str
    """The picture's bytes, base64-encoded (as both providers' wire formats carry them)."""
    width: int
    height: int
    media_type: Literal["image/png", "image/jpeg"] = "image/png"

    @property
    def sha256(self) -> str:
        """The hash of the picture's bytes (what a cached answer about it is filed under)."""
        return hashlib.sha256(base64.b64decode(self.data)).hexdigest()


class ChatMessage(BaseModel):
    """One message of a conversation.

    ``assistant`` messages may carry ``tool_calls``; a ``tool`` message answers the
    call named by ``tool_call_id``; a ``user`` message may carry ``images``, sent before
    its text (only to a model that takes images: see ``models.accepts_images``).
    """

    role: Role
    content: str = ""
    tool_calls: list[ToolCall] = Field(default_factory=list)
    tool_call_id: str | None = None
    images: list[ImagePart] = Field(default_factory=list)


class ToolDefinition(BaseModel):
    name: str
    description: str
    parameters: dict[str, Any]


ToolChoice = Literal["auto", "required", "none"] | str
"""``auto``/``required``/``none``, or the name of the one tool the model must call."""


def sendable_tool_choice(choice: ToolChoice, tools: list[ToolDefinition]) -> ToolChoice:
    """``required`` with exactly one tool offered becomes that tool's name: it means the same,
    and servers that reject ``required`` (llama.cpp's) accept a named tool."""
    if choice == "required" and len(tools) == 1:
        return tools[0].name
    return choice


class Usage(BaseModel):
    input_tokens: int = 0
    """Every input token, cached or not."""
    output_tokens: int = 0
    cache_read_tokens: int | None = None
    """Input tokens read from the provider's prompt cache (``None``: the provider did not
    say, which is not zero)."""
    cache_write_tokens: int | None = None
    """Input tokens written to the prompt cache (Anthropic reports them)."""
    estimated: bool = False
    """The server reported no usage for this call (or 0 input tokens for a prompt that was
    not empty): the figures it left out were counted here by a tokenizer
    (``ralph_tui.llm.tokens``), an estimate rather than what the provider bills."""


class Completion(BaseModel):
    text: str = ""
    tool_calls: list[ToolCall] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)
    stop_reason: str = ""
    model: str = ""
    provider: str = ""
    latency_ms: float = 0.0
    cost_usd: float | None = None


class Embedded(BaseModel):
    """Embedding vectors, in the order of the texts, and what the requests used."""

    vectors: list[list[float]]
    record: Completion


@dataclass(frozen=True)
class PartialTurn:
    """A model turn so far: its text, and the tool call being written (the newest one)."""

    text: str
    tool: str
    """The name of the tool being called ('' before any call)."""
    arguments: str
    """That call's JSON arguments so far: usually incomplete JSON."""
    first_token_s: float
    """Seconds from sending the request to the first piece of the turn."""


OnPartial = Callable[[PartialTurn], None]
"""Receives partial turns while a streamed request is answered (at a bounded rate)."""


@runtime_checkable
class LLMClient(Protocol):
    """An async chat model. Implementations: Anthropic, OpenAI(-compatible), offline."""

    provider: str
    model: str
    context_window_tokens: int

    async def chat(
        self,
        messages: list[ChatMessage],
        *,
        tools: list[ToolDefinition] | None = None,
        tool_choice: ToolChoice | None = None,
        temperature: float | None = None,
        max_tokens: int = 4096,
        on_partial: OnPartial | None = None,
    ) -> Completion:
        """The model's turn. A client that streams passes the turn so far to ``on_partial``
        while it arrives (at a bounded rate); one that does not never calls it."""
        ...
