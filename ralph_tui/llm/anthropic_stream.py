"""A Messages API stream folded into a turn: ``message_start`` (model, input usage),
content blocks filled by ``text_delta`` and ``input_json_delta`` pieces, ``message_delta``
(stop reason, final usage) and ``message_stop`` (the turn is complete).

A tool call's JSON arguments are only parsed once the stream is complete, and then only to
write them as a whole response gives them; JSON that does not parse is kept as sent, for
the agent to report to the model like any invalid call."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from ralph_tui.llm.anthropic_wire import anthropic_completion, anthropic_usage
from ralph_tui.llm.streaming import FirstToken, TurnAssembler
from ralph_tui.llm.types import Completion, ToolCall


@dataclass
class _Block:
    """One content block as it arrives: text, or a tool call and its argument pieces."""

    kind: str
    pieces: list[str] = field(default_factory=list)
    call_id: str = ""
    name: str = ""
    start_input: Any = None

    def arguments(self) -> str:
        """The call's arguments as a whole response writes them (``json.dumps`` of the
        input), or the text sent when it is not JSON."""
        raw = "".join(self.pieces)
        if not raw:
            return json.dumps(self.start_input if self.start_input is not None else {})
        try:
            return json.dumps(json.loads(raw))
        except (json.JSONDecodeError, RecursionError):
            return raw


class AnthropicTurn(TurnAssembler):
    """The turn of one Messages API stream."""

    def __init__(self, requested_model: str, first_token: FirstToken) -> None:
        super().__init__(requested_model, first_token)
        self.blocks: dict[int, _Block] = {}
        self.model = ""
        self.stop_reason = ""
        self.input_tokens = self.output_tokens = 0
        self.cache_read: int | None = None
        self.cache_write: int | None = None

    @property
    def usage_reported(self) -> bool:
        """Whether the stream said how many input tokens the turn took. A request always
        has a prompt, so 0 (cache reads and writes included) is a server that does not say:
        a LiteLLM proxy in front of llama.cpp sends 0 in ``message_start`` and nothing after."""
        return self.input_tokens + (self.cache_read or 0) + (self.cache_write or 0) > 0

    def add(self, chunk: Any) -> bool:
        kind = chunk.type
        if kind == "message_start":
            self._started(chunk.message)
        elif kind == "content_block_start":
            self._block_started(chunk.index, chunk.content_block)
        elif kind == "content_block_delta":
            return self._delta(chunk.index, chunk.delta)
        elif kind == "message_delta":
            self._message_delta(chunk)
        elif kind == "message_stop":
            self.complete = True
        return False

    def _started(self, message: Any) -> None:
        self.model = message.model or ""
        usage = message.usage
        self.input_tokens, self.output_tokens = usage.input_tokens, usage.output_tokens
        self.cache_read = usage.cache_read_input_tokens
        self.cache_write = usage.cache_creation_input_tokens

    def _block_started(self, index: int, block: Any) -> None:
        if block.type == "text":
            self.blocks[index] = _Block("text", [block.text] if block.text else [])
        elif block.type == "tool_use":
            self.blocks[index] = _Block(
                "tool_use", call_id=block.id, name=block.name, start_input=block.input
            )

    def _delta(self, index: int, delta: Any) -> bool:
        block = self.blocks.get(index)
        piece = ""
        if block is not None and delta.type == "text_delta" and block.kind == "text":
            piece = delta.text
        elif block is not None and delta.type == "input_json_delta" and block.kind == "tool_use":
            piece = delta.partial_json
        if not piece or block is None:
            return False
        block.pieces.append(piece)
        self.first_token.seen()
        return True

    def _message_delta(self, chunk: Any) -> None:
        self.stop_reason = chunk.delta.stop_reason or self.stop_reason
        usage = chunk.usage
        # The counts of a message_delta are running totals: they replace, where given.
        self.output_tokens = usage.output_tokens
        if usage.input_tokens is not None:
            self.input_tokens = usage.input_tokens
        if usage.cache_read_input_tokens is not None:
            self.cache_read = usage.cache_read_input_tokens
        if usage.cache_creation_input_tokens is not None:
            self.cache_write = usage.cache_creation_input_tokens

    def _text(self) -> str:
        return "".join("".join(b.pieces) for b in self._ordered() if b.kind == "text")

    def _ordered(self) -> list[_Block]:
        return [self.blocks[index] for index in sorted(self.blocks)]

    def _arriving_calls(self) -> list[_Block]:
        return [b for b in self._ordered() if b.kind == "tool_use"]

    def received_chars(self) -> int:
        return sum(len(piece) for block in self.blocks.values() for piece in block.pieces)

    def completion(self, latency_ms: float) -> Completion:
        calls = [
            ToolCall(id=b.call_id, name=b.name, arguments=b.arguments())
            for b in self._ordered()
            if b.kind == "tool_use"
        ]
        return anthropic_completion(
            self._text(),
            calls,
            anthropic_usage(
                self.input_tokens, self.output_tokens, self.cache_read, self.cache_write
            ),
            stop_reason=self.stop_reason,
            model=self.model,
            requested_model=self.requested_model,
            latency_ms=latency_ms,
        )
