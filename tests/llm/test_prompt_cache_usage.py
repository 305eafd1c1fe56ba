"""Prompt-cache usage as both providers report it on the wire (through the real SDKs),
priced at their cache rates; an unreported cache is unknown, not zero; the ledger, the
status line and ``sessions show`` report the hits."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from ralph_tui.events import UsageUpdated
from ralph_tui.llm.anthropic_client import AnthropicClient
from ralph_tui.llm.openai_client import OpenAIClient
from ralph_tui.llm.types import ChatMessage
from ralph_tui.llm.usage import UsageLedger
from ralph_tui.tui.core.run_progress import RunProgress
from ralph_tui.tui.widgets.status_line import status_content
from tests.llm.llm_wire import FakeAPI, anthropic_message, openai_completion

ASK = [ChatMessage(role="user", content="hello")]


async def test_anthropic_cache_reads_and_writes_are_counted_and_priced(
    api: FakeAPI, make_anthropic: Callable[..., AnthropicClient]
) -> None:
    body = anthropic_message([{"type": "text", "text": "hi"}], input_tokens=100, output_tokens=50)
    body["usage"] |= {"cache_read_input_tokens": 900, "cache_creation_input_tokens": 200}
    api.reply(200, body)
    completion = await make_anthropic("claude-sonnet-4-6").chat(ASK)
    usage = completion.usage
    assert (usage.input_tokens, usage.cache_read_tokens, usage.cache_write_tokens) == (
        1200,
        900,
        200,
    )
    expected = (100 * 3.0 + 900 * 0.3 + 200 * 3.75 + 50 * 15.0) / 1e6
    assert completion.cost_usd == pytest.approx(expected)


async def test_openai_cached_tokens_are_priced_at_the_cached_rate(
    api: FakeAPI, make_openai: Callable[..., OpenAIClient]
) -> None:
    body: dict[str, Any] = openai_completion(
        {"content": "hi"}, prompt_tokens=1000, completion_tokens=100
    )
    body["usage"]["prompt_tokens_details"] = {"cached_tokens": 800, "audio_tokens": 0}
    api.reply(200, body)
    cached = await make_openai("gpt-4o-mini").chat(ASK)
    assert cached.usage.cache_read_tokens == 800
    assert cached.cost_usd == pytest.approx((200 * 0.15 + 800 * 0.075 + 100 * 0.60) / 1e6)
    api.reply(200, openai_completion({"content": "hi"}, prompt_tokens=1000))
    unreported = await make_openai("gpt-4o-mini").chat(ASK)
    assert unreported.usage.cache_read_tokens is None, "missing is unknown, not zero"


async def test_the_ledger_and_the_screens_report_cache_hits(
    api: FakeAPI, make_openai: Callable[..., OpenAIClient]
) -> None:
    ledger = UsageLedger()
    body = openai_completion({"content": "hi"}, prompt_tokens=1000)
    body["usage"]["prompt_tokens_details"] = {"cached_tokens": 450}
    api.reply(200, body)
    ledger.record(await make_openai().chat(ASK))
    event = ledger.snapshot().to_event()
    assert event.cache_read_tokens == 450
    progress = RunProgress(session_id="2026-01-01/qa-1", outcome="running")
    progress.apply(event)
    assert "cache 45%" in status_content(progress).plain
    silent = UsageLedger()
    api.reply(200, openai_completion({"content": "hi"}))
    silent.record(await make_openai().chat(ASK))
    assert silent.snapshot().to_event().cache_read_tokens is None
    quiet = RunProgress(session_id="2026-01-01/qa-2", outcome="running")
    quiet.apply(UsageUpdated(input_tokens=10, output_tokens=1, calls=1, cost_usd=0.0))
    assert "cache" not in status_content(quiet).plain


def test_sessions_show_reports_the_prompt_cache_share() -> None:
    from ralph_tui.cli.sessions import usage_line
    from ralph_tui.traces.models import SessionRecord

    record = SessionRecord.model_validate(
        {"session_id": "2026-01-01/qa-00000001", "mode": "qa", "query": "q", "doc_path": "d",
         "created_at": 0.0, "input_tokens": 2000, "output_tokens": 10, "cost_usd": 0.01,
         "cache_read_tokens": 1500}
    )  # fmt: skip
    assert usage_line(record) == (
        "2,000 tokens in (1,500 from the prompt cache, 75%), 10 out, $0.0100"
    )
