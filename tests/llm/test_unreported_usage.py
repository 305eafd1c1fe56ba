"""A server that reports no token usage is never counted as free, on either wire, through the
real SDKs: a stream without usage (an Anthropic ``message_start`` with 0 input tokens and no
usage after it, as a LiteLLM proxy in front of llama.cpp sends; an OpenAI stream without its
usage chunk, as llama-cpp-python sends) is counted with a tokenizer's estimate, said once, and
followed by whole requests; every request the server received is a call in the ledger; and a
token or cost cap trips on the estimated tokens."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest

from ralph_tui.errors import CostCapReached
from ralph_tui.llm.sdk_client import SDKClient
from ralph_tui.llm.tokens import count_tokens, estimate_tokens
from ralph_tui.llm.types import ChatMessage
from ralph_tui.llm.usage import MeteredClient, UsageLedger
from tests.llm.llm_wire import FakeAPI, anthropic_events, openai_events
from tests.llm.stream_wire import ScriptedStream, stream_response
from tests.llm.test_streaming import CLAUDE_TURN, GPT_TURN, RUN_CODE, claude, gpt

DOCUMENT = " ".join(
    f"Section {n}: the pump's alarm limit is {n * 7} bar, checked every {n + 2} days."
    for n in range(1, 80)
)
ASK = [
    ChatMessage(role="system", content="You answer questions about the document."),
    ChatMessage(role="user", content=f"{DOCUMENT}\n\nWhat is the alarm limit of section 12?"),
]

Events = list[tuple[str | None, Any]]


def claude_stream_without_usage() -> Events:
    """The turn as the proxy streams it: 0 input tokens at the start, no usage after."""
    events = copy.deepcopy(anthropic_events(CLAUDE_TURN))
    for _, data in events:
        if data.get("type") == "message_start":
            data["message"]["usage"] = {
                "input_tokens": 0,
                "output_tokens": 0,
                "cache_creation_input_tokens": 0,
                "cache_read_input_tokens": 0,
            }
        if data.get("type") == "message_delta":
            data["usage"] = {"output_tokens": 0}
    return events


def claude_whole_without_usage() -> dict[str, Any]:
    return CLAUDE_TURN | {"usage": {"input_tokens": 0, "output_tokens": 0}}


def gpt_stream_without_usage() -> Events:
    return openai_events(GPT_TURN, with_usage=False)


def gpt_whole_without_usage() -> dict[str, Any]:
    return {k: v for k, v in GPT_TURN.items() if k != "usage"}


Wire = tuple[Callable[..., SDKClient], Callable[[], Events], Callable[[], dict[str, Any]], Any]
WIRES = [
    pytest.param(
        claude, claude_stream_without_usage, claude_whole_without_usage, CLAUDE_TURN, id="anthropic"
    ),
    pytest.param(gpt, gpt_stream_without_usage, gpt_whole_without_usage, GPT_TURN, id="openai"),
]


def streamed(api: FakeAPI, events: Events) -> None:
    api.replies.append(stream_response(ScriptedStream(events)))


def metered(
    make: Callable[..., SDKClient], api: FakeAPI, ledger: UsageLedger, **kw: Any
) -> tuple[MeteredClient, list[str]]:
    notices: list[str] = []
    return MeteredClient(make(api, on_notice=notices.append, **kw), ledger), notices


@pytest.mark.parametrize(("make", "no_usage_stream", "no_usage_whole", "turn"), WIRES)
async def test_a_stream_without_usage_is_estimated_said_once_and_whole_requests_follow(
    make: Callable[..., SDKClient],
    no_usage_stream: Callable[[], Events],
    no_usage_whole: Callable[[], dict[str, Any]],
    turn: dict[str, Any],
) -> None:
    api = FakeAPI()
    streamed(api, no_usage_stream())
    api.reply(200, turn)
    ledger = UsageLedger()
    client, notices = metered(make, api, ledger)

    first = await client.chat(ASK, tools=[RUN_CODE])
    second = await client.chat(ASK, tools=[RUN_CODE])

    assert first.usage.estimated and not second.usage.estimated
    prompt_chars = sum(len(m.content) for m in ASK)
    # A real tokenizer's count of the prompt, tools included: near chars / 4, never 0.
    assert prompt_chars / 6 < first.usage.input_tokens < prompt_chars / 2
    assert first.usage.output_tokens > 0 and len(first.tool_calls) == 2
    assert first.cost_usd is not None and first.cost_usd > 0, "priced by the estimate"
    assert [json.loads(r.content).get("stream") for r in api.requests] == [True, None]
    totals = ledger.snapshot()
    assert totals.calls == len(api.requests) == 2
    assert totals.estimated_calls == 1
    assert totals.input_tokens == first.usage.input_tokens + second.usage.input_tokens
    assert totals.to_event().estimated_calls == 1
    [notice] = notices
    assert "do not report token usage" in notice and "estimated" in notice
    assert "whole requests from now on" in notice


@pytest.mark.parametrize(("make", "no_usage_stream", "no_usage_whole", "turn"), WIRES)
async def test_a_server_that_never_reports_usage_has_every_call_estimated(
    make: Callable[..., SDKClient],
    no_usage_stream: Callable[[], Events],
    no_usage_whole: Callable[[], dict[str, Any]],
    turn: dict[str, Any],
) -> None:
    api = FakeAPI()
    streamed(api, no_usage_stream())
    api.reply(200, no_usage_whole())
    api.reply(200, no_usage_whole())
    ledger = UsageLedger()
    client, notices = metered(make, api, ledger)

    turns = [await client.chat(ASK, tools=[RUN_CODE]) for _ in range(3)]

    assert all(t.usage.estimated and t.usage.input_tokens > 0 for t in turns)
    totals = ledger.snapshot()
    assert totals.calls == totals.estimated_calls == len(api.requests) == 3
    assert totals.cost_usd > 0
    assert len(notices) == 2, "the stream said once, the whole requests said once"
    assert "reports no token usage" in notices[1]


@pytest.mark.parametrize(("make", "no_usage_stream", "no_usage_whole", "turn"), WIRES)
async def test_a_token_cap_trips_on_estimated_tokens(
    make: Callable[..., SDKClient],
    no_usage_stream: Callable[[], Events],
    no_usage_whole: Callable[[], dict[str, Any]],
    turn: dict[str, Any],
) -> None:
    api = FakeAPI()
    streamed(api, no_usage_stream())
    ledger = UsageLedger(token_cap=500)
    client, _ = metered(make, api, ledger)

    await client.chat(ASK, tools=[RUN_CODE])
    with pytest.raises(CostCapReached, match="token cap reached"):
        await client.chat(ASK, tools=[RUN_CODE])

    assert len(api.requests) == 1 == ledger.snapshot().calls


@pytest.mark.parametrize(("make", "no_usage_stream", "no_usage_whole", "turn"), WIRES)
async def test_a_cost_cap_trips_on_the_estimated_tokens_price(
    make: Callable[..., SDKClient],
    no_usage_stream: Callable[[], Events],
    no_usage_whole: Callable[[], dict[str, Any]],
    turn: dict[str, Any],
) -> None:
    api = FakeAPI(streams=False)
    api.reply(200, no_usage_whole())
    ledger = UsageLedger(cost_cap_usd=0.0001)
    client, _ = metered(make, api, ledger, stream=False)

    await client.chat(ASK, tools=[RUN_CODE])
    with pytest.raises(CostCapReached, match="cost cap reached"):
        await client.chat(ASK, tools=[RUN_CODE])

    assert len(api.requests) == 1 == ledger.snapshot().calls


def test_counting_is_a_real_tokenizer_and_bounded_for_a_huge_text() -> None:
    import time

    assert count_tokens("") == 0
    words = count_tokens("The pump's alarm limit is 84 bar.")
    assert 8 <= words <= 16, "a BPE tokenizer's pieces, not characters / 4"
    huge = DOCUMENT * 400  # about 2.8 MB
    started = time.perf_counter()
    counted = count_tokens(huge)
    assert time.perf_counter() - started < 2.0
    exact_share = count_tokens(DOCUMENT) / len(DOCUMENT)
    assert counted == pytest.approx(exact_share * len(huge), rel=0.05)
    assert estimate_tokens("abcdefghi") == 3


async def test_a_request_cancelled_while_the_server_streams_is_a_call() -> None:
    import asyncio

    api = FakeAPI()
    api.replies.append(stream_response(ScriptedStream(gpt_stream_without_usage(), hang_after=3)))
    ledger = UsageLedger()
    client, _ = metered(gpt, api, ledger)
    task = asyncio.create_task(client.chat(ASK, tools=[RUN_CODE]))
    while not api.requests:
        await asyncio.sleep(0.01)
    await asyncio.sleep(0.05)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    totals = ledger.snapshot()
    assert totals.calls == len(api.requests) == 1 and totals.failed_calls == 1


async def test_an_embeddings_endpoint_without_usage_is_counted_by_estimate() -> None:
    from ralph_tui.llm.openai_client import OpenAIClient

    api = FakeAPI()
    api.reply(
        200,
        {
            "object": "list",
            "model": "text-embedding-3-small",
            "data": [{"object": "embedding", "index": 0, "embedding": [0.1, 0.2]}],
            "usage": {"prompt_tokens": 0, "total_tokens": 0},
        },
    )
    inner = OpenAIClient(
        "text-embedding-3-small",
        api_key="sk-test",
        base_url="https://api.openai.com/v1",
        http_client=api.http_client(),
        embed_model="text-embedding-3-small",
    )
    ledger = UsageLedger()
    await MeteredClient(inner, ledger).embed([DOCUMENT])
    totals = ledger.snapshot()
    assert totals.calls == totals.estimated_calls == 1
    assert totals.input_tokens == count_tokens(DOCUMENT) > 0 and totals.cost_usd > 0
