"""What a Messages API turn becomes on our side, whole or streamed: its ``Usage`` (cache reads
and writes counted in the input) and its ``Completion``, priced. The client and the stream
assembler both import it; neither imports the other for it."""

from __future__ import annotations

from ralph_tui.llm.pricing import turn_cost
from ralph_tui.llm.types import Completion, ToolCall, Usage


def anthropic_usage(
    input_tokens: int, output_tokens: int, read: int | None, written: int | None
) -> Usage:
    """Our ``Usage`` from the Messages API's counts (of a whole response or a stream)."""
    return Usage(
        # Anthropic counts cache reads and writes apart from input_tokens; ours is the total.
        input_tokens=input_tokens + (read or 0) + (written or 0),
        output_tokens=output_tokens,
        cache_read_tokens=read,
        cache_write_tokens=written,
    )


def anthropic_completion(
    text: str,
    calls: list[ToolCall],
    usage: Usage,
    *,
    stop_reason: str,
    model: str,
    requested_model: str,
    latency_ms: float,
) -> Completion:
    """A turn's ``Completion``, priced by the requested model, else the one that answered."""
    cost = turn_cost(requested_model, model, usage)
    return Completion(
        text=text,
        tool_calls=calls,
        usage=usage,
        stop_reason=stop_reason,
        model=model or requested_model,
        provider="anthropic",
        latency_ms=latency_ms,
        cost_usd=cost,
    )
