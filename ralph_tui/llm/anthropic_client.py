"""``AnthropicClient``: the ``LLMClient`` on Anthropic's Messages API (``anthropic`` SDK).

Our provider-neutral messages become the Messages API's shapes: system messages go to
the top-level ``system``; assistant tool calls become ``tool_use`` blocks with a dict
``input``; tool results become ``tool_result`` blocks inside a user message, consecutive
ones merged into one message as the API requires. The SDK is imported when a client is
built, not when this module is imported, so the TUI paints without paying for it.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from ralph_tui.llm.anthropic_wire import anthropic_completion, anthropic_usage
from ralph_tui.llm.models import context_window_tokens
from ralph_tui.llm.sdk_client import OnNotice, SDKClient
from ralph_tui.llm.streaming import FirstToken, TurnAssembler
from ralph_tui.llm.types import (
    ChatMessage,
    Completion,
    ToolCall,
    ToolChoice,
    ToolDefinition,
    sendable_tool_choice,
)

if TYPE_CHECKING:
    import httpx2
    from anthropic import AsyncAnthropic
    from anthropic.types import Message

Block = dict[str, Any]


def to_anthropic_messages(messages: list[ChatMessage]) -> tuple[str, list[dict[str, Any]]]:
    """The ``system`` text and the ``messages`` list of a Messages API request.

    Adjacent turns of the same role are merged (the API wants user and assistant to
    alternate), and empty text blocks are dropped (the API rejects them).
    """
    system = "\n\n".join(m.content for m in messages if m.role == "system" and m.content)
    turns: list[dict[str, Any]] = []
    for message in messages:
        if message.role == "system":
            continue
        role = "assistant" if message.role == "assistant" else "user"
        blocks = _blocks_of(message)
        if not blocks:
            continue
        if turns and turns[-1]["role"] == role:
            turns[-1]["content"].extend(blocks)
        else:
            turns.append({"role": role, "content": blocks})
    return system, turns


EPHEMERAL = {"type": "ephemeral"}


def mark_cache_breakpoint(turns: list[dict[str, Any]]) -> None:
    """Mark the last block of the conversation as a prompt-cache breakpoint.

    Breakpoints are marked per block rather than left to a request-wide automatic mode so
    that where the cache ends is explicit and testable: the system prompt (the same for
    every step of a role) and the newest block. An agent's next step sends this prompt
    again with messages appended (the LCM active context only grows at its end), so
    everything up to this block is read from the cache. A prompt under the model's
    minimum cacheable length is simply not cached."""
    if turns and turns[-1]["content"]:
        last = dict(turns[-1]["content"][-1])
        last["cache_control"] = EPHEMERAL
        turns[-1]["content"][-1] = last


def _blocks_of(message: ChatMessage) -> list[Block]:
    if message.role == "tool":
        return [
            {
                "type": "tool_result",
                "tool_use_id": message.tool_call_id or "",
                "content": message.content,
            }
        ]
    blocks: list[Block] = [
        {
            "type": "image",
            "source": {"type": "base64", "media_type": image.media_type, "data": image.data},
        }
        for image in message.images
    ]
    blocks += [{"type": "text", "text": message.content}] if message.content else []
    blocks += [
        {"type": "tool_use", "id": call.id, "name": call.name, "input": _input_of(call)}
        for call in message.tool_calls
    ]
    return blocks


def _input_of(call: ToolCall) -> dict[str, Any]:
    """A tool call's arguments as the dict ``tool_use`` needs.

    Arguments that are not a JSON object (possible when the call came from another
    provider) are kept verbatim under ``raw_arguments`` so the model sees what it sent.
    """
    try:
        value = json.loads(call.arguments or "{}")
    except (json.JSONDecodeError, RecursionError):
        return {"raw_arguments": call.arguments}
    return value if isinstance(value, dict) else {"raw_arguments": call.arguments}


def to_anthropic_tools(tools: list[ToolDefinition]) -> list[dict[str, Any]]:
    return [
        {"name": tool.name, "description": tool.description, "input_schema": tool.parameters}
        for tool in tools
    ]


def to_anthropic_tool_choice(choice: ToolChoice) -> dict[str, Any]:
    """``auto``/``required``/``none``/a tool name in the Messages API's shape."""
    if choice == "required":
        return {"type": "any"}
    if choice in ("auto", "none"):
        return {"type": choice}
    return {"type": "tool", "name": choice}


def completion_from_anthropic(
    response: Message, *, requested_model: str, latency_ms: float
) -> Completion:
    """Our ``Completion`` from a Messages API response."""
    texts: list[str] = []
    calls: list[ToolCall] = []
    for block in response.content:
        if block.type == "text":
            texts.append(block.text)
        elif block.type == "tool_use":
            calls.append(ToolCall(id=block.id, name=block.name, arguments=json.dumps(block.input)))
    return anthropic_completion(
        "".join(texts),
        calls,
        anthropic_usage(
            response.usage.input_tokens,
            response.usage.output_tokens,
            response.usage.cache_read_input_tokens,
            response.usage.cache_creation_input_tokens,
        ),
        stop_reason=response.stop_reason or "",
        model=response.model,
        requested_model=requested_model,
        latency_ms=latency_ms,
    )


class AnthropicClient(SDKClient):
    """An ``LLMClient`` for one Anthropic model. The SDK's own retries are off:
    ``MeteredClient`` retries instead. ``temperature`` is accepted and ignored (see
    ``request_params``)."""

    provider = "anthropic"

    def __init__(
        self,
        model: str,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        timeout_s: float = 120.0,
        http_client: httpx2.AsyncClient | None = None,
        context_window: int | None = None,
        stream: bool = True,
        on_notice: OnNotice | None = None,
    ) -> None:
        import anthropic

        self._sdk = anthropic
        self.model = model
        self._set_up_requests(timeout_s=timeout_s, stream=stream, on_notice=on_notice)
        self.context_window_tokens = context_window or context_window_tokens("anthropic", model)
        try:
            self._client: AsyncAnthropic = anthropic.AsyncAnthropic(
                api_key=api_key,
                base_url=base_url,
                timeout=timeout_s,
                max_retries=0,
                http_client=http_client,
            )
        except anthropic.AnthropicError as exc:
            raise self._no_key() from exc
        if not (self._client.api_key or self._client.auth_token or self._client.credentials):
            raise self._no_key()

    def request_params(
        self,
        messages: list[ChatMessage],
        *,
        tools: list[ToolDefinition] | None = None,
        tool_choice: ToolChoice | None = None,
        temperature: float | None = None,
        max_tokens: int = 4096,
    ) -> dict[str, Any]:
        """The keyword arguments of ``messages.create`` for one chat call.

        ``temperature`` is not sent: the Messages API version the SDK speaks rejects
        sampling parameters (even the default), and the SDK no longer offers them.
        """
        system, turns = to_anthropic_messages(messages)
        mark_cache_breakpoint(turns)
        params: dict[str, Any] = {"model": self.model, "max_tokens": max_tokens, "messages": turns}
        if system:
            params["system"] = [{"type": "text", "text": system, "cache_control": EPHEMERAL}]
        if tools:
            params["tools"] = to_anthropic_tools(tools)
            if tool_choice is not None:
                params["tool_choice"] = to_anthropic_tool_choice(
                    sendable_tool_choice(tool_choice, tools)
                )
        return params

    async def _create(self, params: dict[str, Any]) -> Any:
        return await self._client.messages.create(**params)

    async def _open_stream(self, params: dict[str, Any]) -> Any:
        return await self._client.messages.create(**params, stream=True)

    def _assembler(self, first_token: FirstToken) -> TurnAssembler:
        from ralph_tui.llm.anthropic_stream import AnthropicTurn

        return AnthropicTurn(self.model, first_token)

    def _whole_response(self, data: Any) -> Any:
        return self._sdk.types.Message.model_validate(data)

    def _completion(self, response: Any, latency_ms: float) -> Completion:
        return completion_from_anthropic(
            response, requested_model=self.model, latency_ms=latency_ms
        )

    @property
    def _sdk_error(self) -> type[Exception]:
        error: type[Exception] = self._sdk.AnthropicError
        return error
