"""A streamed tool call's arguments are the model's, untrusted: nesting past the parser's
stack is kept as the text sent (for the output tool to refuse), never a crash."""

from __future__ import annotations

from ralph_tui.llm.anthropic_stream import _Block


def test_deeply_nested_streamed_arguments_are_kept_as_sent() -> None:
    raw = "[" * 100_000
    block = _Block(kind="tool_use", pieces=[raw[:50_000], raw[50_000:]])
    assert block.arguments() == raw
