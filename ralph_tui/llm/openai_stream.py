"""A Chat Completions stream folded into a turn: ``delta.content`` (or ``delta.refusal``)
pieces, ``delta.tool_calls`` pieces by ``index`` (the id and name first, then pieces of
the JSON arguments), the ``finish_reason`` that says the turn is complete, and the usage of
the last chunk (asked for with ``stream_options``). The arguments are kept as sent, as a
whole response gives them; the agent validates them once the turn is complete."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ralph_tui.llm.openai_wire import openai_completion, openai_usage
from ralph_tui.llm.streaming import FirstToken, TurnAssembler
from ralph_tui.llm.types import Completion, ToolCall


@dataclass
class _Call:
    """One tool call as it arrives."""

    call_id: str = ""
    name: str = ""
    pieces: list[str] = field(default_factory=list)


class OpenAITurn(TurnAssembler):
    """The turn of one Chat Completions stream (its first choice)."""

    def __init__(self, requested_model: str, first_token: FirstToken) -> None:
        super().__init__(requested_model, first_token)
        self.content: list[str] = []
        self.refusal: list[str] = []
        self.calls: dict[int, _Call] = {}
        self.finish_reason = ""
        self.model = ""
        self.usage: Any = None

    @property
    def usage_reported(self) -> bool:
        """Some OpenAI-compatible servers (llama-cpp-python's) ignore ``stream_options`` and
        send no usage chunk; a usage of 0 prompt tokens says nothing either (a request always
        has a prompt)."""
        return self.usage is not None and (self.usage.prompt_tokens or 0) > 0

    def add(self, chunk: Any) -> bool:
        self.model = chunk.model or self.model
        if chunk.usage is not None:
            self.usage = chunk.usage
        grew = False
        for choice in chunk.choices or []:
            if choice.index == 0:
                grew = self._delta(choice.delta)
                if choice.finish_reason:
                    self.finish_reason = choice.finish_reason
                    self.complete = True
        if grew:
            self.first_token.seen()
        return grew

    def _delta(self, delta: Any) -> bool:
        grew = False
        if delta.content:
            self.content.append(delta.content)
            grew = True
        if delta.refusal:
            self.refusal.append(delta.refusal)
            grew = True
        for piece in delta.tool_calls or []:
            call = self.calls.setdefault(piece.index, _Call())
            call.call_id = piece.id or call.call_id
            function = piece.function
            if function is not None:
                call.name = function.name or call.name
                if function.arguments:
                    call.pieces.append(function.arguments)
                    grew = True
        return grew

    def _text(self) -> str:
        return "".join(self.content) or "".join(self.refusal)

    def _ordered(self) -> list[_Call]:
        return [self.calls[index] for index in sorted(self.calls)]

    def _arriving_calls(self) -> list[_Call]:
        return self._ordered()

    def received_chars(self) -> int:
        pieces = [*self.content, *self.refusal, *(p for c in self.calls.values() for p in c.pieces)]
        return sum(len(piece) for piece in pieces)

    def completion(self, latency_ms: float) -> Completion:
        calls = [
            ToolCall(id=call.call_id, name=call.name, arguments="".join(call.pieces))
            for call in self._ordered()
        ]
        return openai_completion(
            self._text(),
            calls,
            openai_usage(self.usage),
            finish_reason=self.finish_reason,
            model=self.model,
            requested_model=self.requested_model,
            latency_ms=latency_ms,
        )
