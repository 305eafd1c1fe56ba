"""What a Chat Completions turn becomes on our side, whole or streamed: its ``Usage`` and its
``Completion`` (the stop reason in the common words), priced. The client and the stream
assembler both import it; neither imports the other for it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ralph_tui.llm.pricing import turn_cost
from ralph_tui.llm.types import Completion, ToolCall, Usage

if TYPE_CHECKING:
    from openai.types import CompletionUsage

STOP_REASONS = {
    "stop": "end_turn",
    "tool_calls": "tool_use",
    "function_call": "tool_use",
    "length": "max_tokens",
    "content_filter": "refusal",
}


def openai_usage(usage: CompletionUsage | None) -> Usage:
    """Our ``Usage`` from a response's (or a stream's last chunk's) usage."""
    details = usage.prompt_tokens_details if usage else None
    return Usage(
        input_tokens=usage.prompt_tokens if usage else 0,
        output_tokens=usage.completion_tokens if usage else 0,
        cache_read_tokens=details.cached_tokens if details is not None else None,
    )


def openai_completion(
    text: str,
    calls: list[ToolCall],
    usage: Usage,
    *,
    finish_reason: str,
    model: str,
    requested_model: str,
    latency_ms: float,
) -> Completion:
    """A turn's ``Completion``, its stop reason in the common words, priced by the
    requested model, else the one that answered."""
    cost = turn_cost(requested_model, model, usage)
    return Completion(
        text=text,
        tool_calls=calls,
        usage=usage,
        stop_reason=STOP_REASONS.get(finish_reason, finish_reason),
        model=model or requested_model,
        provider="openai",
        latency_ms=latency_ms,
        cost_usd=cost,
    )
