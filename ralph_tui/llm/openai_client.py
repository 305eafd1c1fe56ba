"""``OpenAIClient``: the ``LLMClient`` on OpenAI Chat Completions (``openai`` SDK).

Also serves any OpenAI-compatible server (Ollama, vLLM, llama.cpp) through
``OPENAI_BASE_URL``. Messages map one to one (system inline, assistant ``tool_calls``
with JSON-string ``arguments``, ``role: tool`` results). Stop reasons are reported in
the same words as the other providers (``end_turn``, ``tool_use``, ``max_tokens``,
``refusal``). The SDK is imported when a client is built, not at module import.
"""

from __future__ import annotations

import re
import time
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from ralph_tui.llm.errors import BadRequestError
from ralph_tui.llm.models import context_window_tokens
from ralph_tui.llm.openai_wire import openai_completion, openai_usage
from ralph_tui.llm.pricing import cost_usd
from ralph_tui.llm.sdk_client import OnNotice, SDKClient
from ralph_tui.llm.sdk_errors import translate_sdk_error
from ralph_tui.llm.streaming import FirstToken, TurnAssembler
from ralph_tui.llm.types import (
    ChatMessage,
    Completion,
    Embedded,
    ToolCall,
    ToolChoice,
    ToolDefinition,
    Usage,
    sendable_tool_choice,
)

if TYPE_CHECKING:
    import httpx2
    from openai import AsyncOpenAI
    from openai.types.chat import ChatCompletion

DEFAULT_EMBED_MODEL = "text-embedding-3-small"
EMBED_BATCH = 2048
"""Inputs per embeddings request: the API's limit per call."""

OPENAI_HOST = "api.openai.com"
_NEWER_FAMILY = re.compile(r"^(o\d|gpt-([5-9]|\d{2,}))")


def uses_max_completion_tokens(model: str) -> bool:
    """Whether ``model`` is of the families (gpt-5 and later, o-series) that reject
    ``max_tokens`` and a custom temperature. Other models and local servers keep
    ``max_tokens``, which is what OpenAI-compatible servers understand."""
    return bool(_NEWER_FAMILY.match(model.lower()))


def to_openai_messages(messages: list[ChatMessage]) -> list[dict[str, Any]]:
    """Chat Completions ``messages`` for our messages."""
    wire: list[dict[str, Any]] = []
    for message in messages:
        if message.role == "tool":
            wire.append(
                {
                    "role": "tool",
                    "tool_call_id": message.tool_call_id or "",
                    "content": message.content,
                }
            )
        elif message.role == "assistant" and message.tool_calls:
            wire.append(
                {
                    "role": "assistant",
                    # A string, never null: llama.cpp's server answers a null content with 500.
                    "content": message.content,
                    "tool_calls": [
                        {
                            "id": call.id,
                            "type": "function",
                            "function": {"name": call.name, "arguments": call.arguments},
                        }
                        for call in message.tool_calls
                    ],
                }
            )
        elif message.images:
            wire.append({"role": message.role, "content": _parts_of(message)})
        else:
            wire.append({"role": message.role, "content": message.content})
    return wire


def _parts_of(message: ChatMessage) -> list[dict[str, Any]]:
    """A message with images as content parts: each image a ``data:`` URL (sent at
    ``high`` detail: a page's table is unreadable at ``low``), then the text."""
    parts: list[dict[str, Any]] = [
        {
            "type": "image_url",
            "image_url": {"url": f"data:{image.media_type};base64,{image.data}", "detail": "high"},
        }
        for image in message.images
    ]
    if message.content:
        parts.append({"type": "text", "text": message.content})
    return parts


def to_openai_tools(tools: list[ToolDefinition]) -> list[dict[str, Any]]:
    return [
        {
            "type": "function",
            "function": {
                "name": tool.name,
                "description": tool.description,
                "parameters": tool.parameters,
            },
        }
        for tool in tools
    ]


def to_openai_tool_choice(choice: ToolChoice) -> str | dict[str, Any]:
    """``auto``/``required``/``none`` as they are; a tool name as a named function."""
    if choice in ("auto", "required", "none"):
        return choice
    return {"type": "function", "function": {"name": choice}}


def completion_from_openai(
    response: ChatCompletion, *, requested_model: str, latency_ms: float
) -> Completion:
    """Our ``Completion`` from a Chat Completions response (its first choice)."""
    text, calls, finish = "", [], ""
    if response.choices:
        choice = response.choices[0]
        text = choice.message.content or choice.message.refusal or ""
        calls = [
            ToolCall(id=call.id, name=call.function.name, arguments=call.function.arguments)
            for call in choice.message.tool_calls or []
            if call.type == "function"
        ]
        finish = choice.finish_reason or ""
    return openai_completion(
        text,
        calls,
        openai_usage(response.usage),
        finish_reason=finish,
        model=response.model,
        requested_model=requested_model,
        latency_ms=latency_ms,
    )


class OpenAIClient(SDKClient):
    """An ``LLMClient`` for one OpenAI(-compatible) model, plus ``embed``. The SDK's own
    retries are off: ``MeteredClient`` retries instead."""

    provider = "openai"

    def __init__(
        self,
        model: str,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        timeout_s: float = 120.0,
        http_client: httpx2.AsyncClient | None = None,
        context_window: int | None = None,
        embed_model: str = DEFAULT_EMBED_MODEL,
        stream: bool = True,
        on_notice: OnNotice | None = None,
    ) -> None:
        import openai

        self._sdk = openai
        self.model = model
        self._set_up_requests(timeout_s=timeout_s, stream=stream, on_notice=on_notice)
        self.embed_model = embed_model
        self.context_window_tokens = context_window or context_window_tokens("openai", model)
        self.honours_required = base_url is None or urlsplit(base_url).hostname == OPENAI_HOST
        """Whether the server takes ``tool_choice="required"`` with several tools (OpenAI's
        does; llama.cpp's rejects it): elsewhere such a turn asks with ``auto``, and the
        agent reminds a model that answers without a call."""
        try:
            self._client: AsyncOpenAI = openai.AsyncOpenAI(
                api_key=api_key,
                base_url=base_url,
                timeout=timeout_s,
                max_retries=0,
                http_client=http_client,
            )
        except openai.OpenAIError as exc:
            raise self._no_key() from exc

    def request_params(
        self,
        messages: list[ChatMessage],
        *,
        tools: list[ToolDefinition] | None = None,
        tool_choice: ToolChoice | None = None,
        temperature: float | None = None,
        max_tokens: int = 4096,
    ) -> dict[str, Any]:
        """The keyword arguments of ``chat.completions.create`` for one chat call."""
        params: dict[str, Any] = {"model": self.model, "messages": to_openai_messages(messages)}
        if uses_max_completion_tokens(self.model):
            params["max_completion_tokens"] = max_tokens
        else:
            params["max_tokens"] = max_tokens
            if temperature is not None:
                params["temperature"] = temperature
        if tools:
            params["tools"] = to_openai_tools(tools)
            if tool_choice is not None:
                choice = sendable_tool_choice(tool_choice, tools)
                if choice == "required" and not self.honours_required:
                    choice = "auto"
                params["tool_choice"] = to_openai_tool_choice(choice)
        return params

    async def _create(self, params: dict[str, Any]) -> Any:
        return await self._client.chat.completions.create(**params)

    async def _open_stream(self, params: dict[str, Any]) -> Any:
        # Usage comes in a last chunk, only when asked for.
        return await self._client.chat.completions.create(
            **params, stream=True, stream_options={"include_usage": True}
        )

    def _assembler(self, first_token: FirstToken) -> TurnAssembler:
        from ralph_tui.llm.openai_stream import OpenAITurn

        return OpenAITurn(self.model, first_token)

    def _whole_response(self, data: Any) -> Any:
        return self._sdk.types.chat.ChatCompletion.model_validate(data)

    def _completion(self, response: Any, latency_ms: float) -> Completion:
        return completion_from_openai(response, requested_model=self.model, latency_ms=latency_ms)

    @property
    def _sdk_error(self) -> type[Exception]:
        error: type[Exception] = self._sdk.OpenAIError
        return error

    async def embed(self, texts: list[str]) -> Embedded:
        """One embedding vector per text, in order, with ``embed_model``, and the usage of
        the requests (one per ``EMBED_BATCH`` texts)."""
        vectors: list[list[float]] = []
        tokens = 0
        started = time.perf_counter()
        for start in range(0, len(texts), EMBED_BATCH):
            try:
                response = await self._client.embeddings.create(
                    model=self.embed_model,
                    input=texts[start : start + EMBED_BATCH],
                    encoding_format="float",
                )
            except self._sdk.OpenAIError as exc:
                raise translate_sdk_error(
                    exc, self._sdk, provider=self.provider, model=self.embed_model
                ) from exc
            try:
                vectors += [item.embedding for item in sorted(response.data, key=lambda d: d.index)]
                tokens += response.usage.prompt_tokens if response.usage else 0
            except (AttributeError, TypeError) as exc:
                raise BadRequestError(
                    "the endpoint answered the embeddings request with "
                    f"something that is not a list of embeddings ({type(exc).__name__})",
                    provider=self.provider,
                    model=self.embed_model,
                ) from exc
        record = Completion(
            usage=Usage(input_tokens=tokens),
            model=self.embed_model,
            provider=self.provider,
            latency_ms=(time.perf_counter() - started) * 1000,
            cost_usd=cost_usd(self.embed_model, tokens, 0),
        )
        return Embedded(vectors=vectors, record=record)
