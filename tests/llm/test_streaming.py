"""Streamed turns through the real SDKs' wire formats (server-sent events on a mock
transport): assembled as a whole request gives them, failing cleanly when cut, cancelled
mid-stream, falling back to whole requests where the server cannot stream, and passing
partial turns on at a bounded rate."""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from collections.abc import Callable
from typing import Any

import pytest

from ralph_tui.llm.anthropic_client import AnthropicClient
from ralph_tui.llm.errors import (
    LLMError,
    LLMTimeoutError,
    OverloadedError,
    ServerError,
    StreamInterruptedError,
)
from ralph_tui.llm.openai_client import OpenAIClient
from ralph_tui.llm.retry import RetryPolicy
from ralph_tui.llm.sdk_client import SDKClient
from ralph_tui.llm.streaming import LEADING_PARTIALS, PARTIAL_INTERVAL_S
from ralph_tui.llm.types import ChatMessage, Completion, PartialTurn, ToolDefinition
from ralph_tui.llm.usage import MeteredClient, UsageLedger
from tests.llm.llm_wire import (
    FakeAPI,
    anthropic_events,
    anthropic_message,
    openai_completion,
    openai_events,
)
from tests.llm.stream_wire import ScriptedStream, stream_response

RUN_CODE = ToolDefinition(
    name="run_code",
    description="Run Python in the sandbox.",
    parameters={"type": "object", "properties": {"code": {"type": "string"}}},
)
ASK = [ChatMessage(role="system", content="Explore."), ChatMessage(role="user", content="Go.")]
CODE = "import re\nhits = re.findall(r'filter\\w*', context)\nprint(len(hits), hits[:3])"

CLAUDE_TURN = anthropic_message(
    [
        {"type": "text", "text": "Counting the filters first, then reading around them."},
        {"type": "tool_use", "id": "toolu_01", "name": "run_code", "input": {"code": CODE}},
        {"type": "tool_use", "id": "toolu_02", "name": "run_code", "input": {}},
    ],
    stop_reason="tool_use",
    input_tokens=1200,
    output_tokens=87,
)
CLAUDE_TURN["usage"] |= {"cache_read_input_tokens": 900, "cache_creation_input_tokens": 40}

GPT_TURN = openai_completion(
    {
        "content": "Checking two things at once.",
        "tool_calls": [
            {
                "id": "call_a",
                "type": "function",
                "function": {"name": "run_code", "arguments": json.dumps({"code": CODE})},
            },
            {
                "id": "call_b",
                "type": "function",
                "function": {"name": "run_code", "arguments": '{"code": "print(1)"}'},
            },
        ],
    },
    finish_reason="tool_calls",
    prompt_tokens=1500,
    completion_tokens=64,
)
GPT_TURN["usage"]["prompt_tokens_details"] = {"cached_tokens": 1024}


def claude(api: FakeAPI, **kw: Any) -> AnthropicClient:
    return AnthropicClient(
        "claude-sonnet-4-6",
        api_key="sk-ant-test",
        base_url="https://anthropic.test",
        http_client=api.http_client(),
        **kw,
    )


def gpt(api: FakeAPI, **kw: Any) -> OpenAIClient:
    return OpenAIClient(
        "gpt-4o-mini",
        api_key="sk-test",
        base_url="https://api.openai.com/v1",
        http_client=api.http_client(),
        **kw,
    )


Make = Callable[..., SDKClient]
PROVIDERS = [
    pytest.param(claude, CLAUDE_TURN, id="anthropic"),
    pytest.param(gpt, GPT_TURN, id="openai"),
]


def events_of(body: dict[str, Any]) -> list[tuple[str | None, Any]]:
    """The stream a provider sends for the whole answer ``body``."""
    if body.get("type") == "message":
        return anthropic_events(body)
    return openai_events(body, with_usage=True)


def carries_a_piece(data: Any) -> bool:
    """Whether a stream event carries a piece of text or arguments."""
    if not isinstance(data, dict):
        return False
    if data.get("type") == "content_block_delta":
        return True
    for choice in data.get("choices", []):
        delta = choice["delta"]
        calls = delta.get("tool_calls") or []
        if delta.get("content") or any(c["function"].get("arguments") for c in calls):
            return True
    return False


def same_turn(streamed: Completion, whole: Completion) -> None:
    assert streamed.model_dump(exclude={"latency_ms"}) == whole.model_dump(exclude={"latency_ms"})


@pytest.mark.parametrize(("make", "body"), PROVIDERS)
async def test_a_streamed_turn_is_the_turn_a_whole_request_gives(
    make: Make, body: dict[str, Any]
) -> None:
    streaming, whole = FakeAPI(), FakeAPI(streams=False)
    streaming.reply(200, body)
    whole.reply(200, body)

    streamed = await make(streaming).chat(ASK, tools=[RUN_CODE], tool_choice="auto")
    plain = await make(whole, stream=False).chat(ASK, tools=[RUN_CODE], tool_choice="auto")

    same_turn(streamed, plain)
    assert len(streamed.tool_calls) == 2 and json.loads(streamed.tool_calls[0].arguments) == {
        "code": CODE
    }
    assert streamed.usage.cache_read_tokens is not None and streamed.cost_usd is not None
    assert streaming.bodies[0]["stream"] is True and "stream" not in whole.bodies[0]


async def test_openai_streams_ask_for_the_usage_chunk() -> None:
    api = FakeAPI()
    api.reply(200, GPT_TURN)
    completion = await gpt(api).chat(ASK)
    assert api.bodies[0]["stream_options"] == {"include_usage": True}
    assert completion.usage.input_tokens == 1500 and completion.usage.cache_read_tokens == 1024


@pytest.mark.parametrize(
    ("make", "body"),
    [
        pytest.param(
            claude,
            anthropic_message(
                [{"type": "text", "text": "I can't help with that."}], stop_reason="refusal"
            ),
            id="anthropic",
        ),
        pytest.param(
            gpt,
            openai_completion({"content": None, "refusal": "I can't help with that."}),
            id="openai",
        ),
    ],
)
async def test_a_streamed_refusal_reads_as_a_whole_one(make: Make, body: dict[str, Any]) -> None:
    streaming, whole = FakeAPI(), FakeAPI(streams=False)
    streaming.reply(200, body)
    whole.reply(200, body)
    streamed = await make(streaming).chat(ASK)
    same_turn(streamed, await make(whole, stream=False).chat(ASK))
    assert streamed.text == "I can't help with that."


@pytest.mark.parametrize(("make", "body"), PROVIDERS)
async def test_a_stream_that_stops_before_the_turn_ends_is_an_interrupted_stream(
    make: Make, body: dict[str, Any]
) -> None:
    api = FakeAPI()
    events = events_of(body)
    cut = len(events) // 2
    api.replies.append(stream_response(ScriptedStream(events[:cut])))
    with pytest.raises(StreamInterruptedError, match="stopped before the turn was complete"):
        await make(api).chat(ASK, tools=[RUN_CODE])


@pytest.mark.parametrize(("make", "body"), PROVIDERS)
async def test_a_connection_broken_mid_stream_is_retried_as_an_interrupted_stream(
    make: Make, body: dict[str, Any]
) -> None:
    api = FakeAPI()
    events = events_of(body)
    api.replies.append(stream_response(ScriptedStream(events, fail_after=len(events) // 2)))
    api.reply(200, body)
    retries: list[type[Exception]] = []
    metered = MeteredClient(
        make(api),
        UsageLedger(),
        retry_policy=RetryPolicy(max_retries=1, base_delay_s=0.0),
        on_retry=lambda _n, _d, error: retries.append(type(error)),
    )
    completion = await metered.chat(ASK, tools=[RUN_CODE])
    assert retries == [StreamInterruptedError]
    assert len(completion.tool_calls) == 2
    snapshot = metered.ledger.snapshot()
    assert snapshot.calls == 2 and snapshot.failed_calls == 1


async def test_an_overload_announced_inside_an_anthropic_stream_is_an_overload() -> None:
    api = FakeAPI()
    events = anthropic_events(CLAUDE_TURN)[:4]
    error = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    api.replies.append(stream_response(ScriptedStream([*events, ("error", error)])))
    with pytest.raises(OverloadedError, match="Overloaded"):
        await claude(api).chat(ASK)


async def test_a_server_error_inside_an_openai_stream_is_a_server_error() -> None:
    api = FakeAPI()
    events = openai_events(GPT_TURN, with_usage=True)[:3]
    error = {"error": {"message": "the model crashed", "type": "server_error", "code": 500}}
    api.replies.append(stream_response(ScriptedStream([*events, (None, error)])))
    with pytest.raises(ServerError, match="the model crashed"):
        await gpt(api).chat(ASK)


@pytest.mark.parametrize(("make", "body"), PROVIDERS)
async def test_cancelling_mid_stream_closes_the_response(make: Make, body: dict[str, Any]) -> None:
    api = FakeAPI()
    events = events_of(body)
    stream = ScriptedStream(events, hang_after=len(events) // 2)
    api.replies.append(stream_response(stream))
    partials: list[PartialTurn] = []
    task = asyncio.create_task(make(api).chat(ASK, tools=[RUN_CODE], on_partial=partials.append))
    while not partials:
        await asyncio.sleep(0.005)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert stream.closed, "the server's response (its request) was closed"
    assert stream.sent == len(events) // 2


@pytest.mark.parametrize(("make", "body"), PROVIDERS)
async def test_a_stream_gets_the_whole_timeout_not_a_timeout_per_chunk(
    make: Make, body: dict[str, Any]
) -> None:
    api = FakeAPI()
    stream = ScriptedStream(events_of(body) * 50, delay_s=0.05)
    api.replies.append(stream_response(stream))
    started = time.perf_counter()
    with pytest.raises(LLMTimeoutError, match="timed out"):
        await make(api, timeout_s=0.5).chat(ASK)
    assert time.perf_counter() - started < 2.0 and stream.closed


@pytest.mark.parametrize(("make", "body"), PROVIDERS)
async def test_a_request_that_timed_out_or_was_cut_off_counts_the_prompt_it_sent(
    make: Make, body: dict[str, Any]
) -> None:
    # the server had the whole prompt and read it (a provider bills that): a cap sees it
    api = FakeAPI()
    api.replies.append(stream_response(ScriptedStream(events_of(body) * 50, delay_s=0.05)))
    api.replies.append(stream_response(ScriptedStream(events_of(body)[:3])))
    api.reply(400, {"error": {"message": "bad request", "type": "invalid_request_error"}})
    ledger = UsageLedger(token_cap=10**6)
    no_retry = RetryPolicy(max_retries=0)
    metered = MeteredClient(make(api, timeout_s=0.5), ledger, retry_policy=no_retry)
    prompt = [ChatMessage(role="user", content="Count the filters. " * 200)]
    with pytest.raises(LLMTimeoutError):
        await metered.chat(prompt)
    timed_out = ledger.snapshot()
    assert timed_out.calls == 1 and timed_out.failed_calls == 1
    assert 800 < timed_out.input_tokens < 2_000 and timed_out.estimated_calls == 1
    with pytest.raises(StreamInterruptedError):
        await metered.chat(prompt)
    assert ledger.snapshot().input_tokens == 2 * timed_out.input_tokens
    with pytest.raises(LLMError):  # refused: the server read nothing
        await metered.chat(prompt)
    refused = ledger.snapshot()
    assert refused.calls == 3 and refused.failed_calls == 3
    assert refused.input_tokens == 2 * timed_out.input_tokens


@pytest.mark.parametrize(("make", "body"), PROVIDERS)
async def test_a_server_that_answers_whole_is_sent_whole_requests_said_once(
    make: Make, body: dict[str, Any]
) -> None:
    api = FakeAPI(streams=False)
    api.reply(200, body)
    api.reply(200, body)
    notices: list[str] = []
    client = make(api, on_notice=notices.append)
    first = await client.chat(ASK)
    second = await client.chat(ASK)
    same_turn(first, second)
    assert first.usage.input_tokens > 0
    assert [b.get("stream") for b in api.bodies] == [True, None]
    [notice] = notices
    assert "does not stream" in notice and "answered a streamed request whole" in notice


@pytest.mark.parametrize(("make", "body"), PROVIDERS)
async def test_a_server_that_rejects_streaming_gets_the_request_again_whole(
    make: Make, body: dict[str, Any]
) -> None:
    api = FakeAPI()
    api.reply(
        400, {"error": {"message": "stream is not supported", "type": "invalid_request_error"}}
    )
    api.reply(200, body)
    notices: list[str] = []
    completion = await make(api, on_notice=notices.append).chat(ASK)
    assert completion.text and [b.get("stream") for b in api.bodies] == [True, None]
    assert len(notices) == 1 and "stream is not supported" in notices[0]


async def test_no_stream_sends_whole_requests_and_says_nothing() -> None:
    api = FakeAPI()
    api.reply(200, CLAUDE_TURN)
    notices: list[str] = []
    await claude(api, stream=False, on_notice=notices.append).chat(ASK)
    assert "stream" not in api.bodies[0] and notices == []


@pytest.mark.parametrize(("make", "body"), PROVIDERS)
async def test_partial_turns_come_at_a_bounded_rate_and_grow_to_the_turn(
    make: Make, body: dict[str, Any]
) -> None:
    api = FakeAPI()
    events = events_of(body)
    stream = ScriptedStream(events, delay_s=0.6 / len(events))
    api.replies.append(stream_response(stream))
    seen: list[tuple[float, PartialTurn]] = []
    client = make(api)
    started = time.perf_counter()
    completion = await client.chat(
        ASK, tools=[RUN_CODE], on_partial=lambda t: seen.append((time.perf_counter(), t))
    )
    elapsed = time.perf_counter() - started
    times = [at for at, _ in seen]
    with_pieces = [i for i, (_, data) in enumerate(events) if carries_a_piece(data)]
    # The client reads a frame, then passes the turn on, then reads the next one.
    assert times[0] < stream.sent_at[with_pieces[0] + 1], "the first piece is passed on at once"
    leading = times[:LEADING_PARTIALS]
    assert leading[-1] < stream.sent_at[with_pieces[LEADING_PARTIALS - 1] + 1], "and the leading"
    paced = times[LEADING_PARTIALS - 1 :]
    gaps = [later - earlier for earlier, later in itertools.pairwise(paced)]
    assert len(gaps) >= 3 and min(gaps) >= PARTIAL_INTERVAL_S * 0.9
    assert len(seen) <= LEADING_PARTIALS + elapsed / PARTIAL_INTERVAL_S + 1
    texts = [turn.text for _, turn in seen]
    assert all(completion.text.startswith(text) for text in texts)
    last = seen[-1][1]
    assert last.tool == "run_code" and last.first_token_s > 0


async def test_a_stream_without_its_usage_chunk_is_said_and_whole_requests_follow() -> None:
    """A server whose streams report no usage (llama-cpp-python ignores ``stream_options``)
    would have every turn counted as 0 tokens, past any token cap: one turn is, said once,
    then the client sends whole requests, which report it."""
    api = FakeAPI()
    events = [e for e in openai_events(GPT_TURN, with_usage=False)]
    api.replies.append(stream_response(ScriptedStream(events)))
    api.reply(200, GPT_TURN)
    notices: list[str] = []
    client = gpt(api, on_notice=notices.append)
    first = await client.chat(ASK)
    second = await client.chat(ASK)
    assert first.usage.input_tokens == 0 and len(first.tool_calls) == 2
    assert second.usage.input_tokens > 0 and len(second.tool_calls) == 2
    assert [json.loads(r.content).get("stream") for r in api.requests] == [True, None]
    [notice] = notices
    assert "do not report token usage" in notice and "whole requests from now on" in notice
