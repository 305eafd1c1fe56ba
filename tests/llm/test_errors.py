"""Real HTTP failures through the real SDKs become our typed errors, retried where it helps."""

from __future__ import annotations

import email.utils
import time
from collections.abc import Callable
from typing import Any

import httpx2
import pytest

from ralph_tui.llm.errors import (
    AuthenticationError,
    BadRequestError,
    ContextTooLongError,
    LLMConnectionError,
    LLMError,
    LLMTimeoutError,
    OverloadedError,
    RateLimitError,
    ServerError,
)
from ralph_tui.llm.retry import RetryPolicy
from ralph_tui.llm.types import ChatMessage, LLMClient
from ralph_tui.llm.usage import MeteredClient, UsageLedger
from tests.llm.llm_wire import (
    FakeAPI,
    anthropic_error,
    anthropic_message,
    openai_completion,
    openai_error,
)

HI = [ChatMessage(role="user", content="hi")]

ANTHROPIC_CASES: list[tuple[int, dict[str, Any], type[LLMError], str]] = [
    (
        401,
        anthropic_error("authentication_error", "invalid x-api-key"),
        AuthenticationError,
        "ANTHROPIC_API_KEY",
    ),
    (
        403,
        anthropic_error("permission_error", "no access to this model"),
        AuthenticationError,
        "lacks permission",
    ),
    (
        429,
        anthropic_error("rate_limit_error", "Number of requests has exceeded your rate limit"),
        RateLimitError,
        "rate limited",
    ),
    (529, anthropic_error("overloaded_error", "Overloaded"), OverloadedError, "529"),
    (500, anthropic_error("api_error", "Internal server error"), ServerError, "500"),
    (
        400,
        anthropic_error(
            "invalid_request_error", "prompt is too long: 210000 tokens > 200000 maximum"
        ),
        ContextTooLongError,
        "prompt is too long",
    ),
    (
        413,
        anthropic_error("request_too_large", "Request exceeds the maximum allowed size."),
        ContextTooLongError,
        "413",
    ),
    (
        400,
        anthropic_error("invalid_request_error", "max_tokens: 999999 > 64000, the maximum"),
        BadRequestError,
        "max_tokens: 999999",
    ),
    (
        404,
        anthropic_error("not_found_error", "model: claude-nope"),
        BadRequestError,
        "check the model name",
    ),
]

OPENAI_CASES: list[tuple[int, dict[str, Any], type[LLMError], str]] = [
    (
        401,
        openai_error(
            "Incorrect API key provided: sk-bad.", "invalid_request_error", "invalid_api_key"
        ),
        AuthenticationError,
        "OPENAI_API_KEY",
    ),
    (
        403,
        openai_error("Project does not have access to model gpt-5", "invalid_request_error"),
        AuthenticationError,
        "lacks permission",
    ),
    (
        429,
        openai_error("Rate limit reached for gpt-4o-mini", "requests", "rate_limit_exceeded"),
        RateLimitError,
        "Rate limit reached",
    ),
    (
        503,
        openai_error("The engine is currently overloaded", "server_error"),
        OverloadedError,
        "503",
    ),
    (
        400,
        openai_error(
            "This model's maximum context length is 128000 tokens. However, your messages "
            "resulted in 130000 tokens.",
            "invalid_request_error",
            "context_length_exceeded",
        ),
        ContextTooLongError,
        "maximum context length",
    ),
    (
        400,
        openai_error(
            "Unsupported parameter: 'max_tokens' is not supported with this model.",
            "invalid_request_error",
            "unsupported_parameter",
        ),
        BadRequestError,
        "Unsupported parameter",
    ),
]


def assert_user_facing(error: LLMError, needle: str) -> None:
    """Short, one line, says what happened; no SDK class names or body dumps."""
    text = str(error)
    assert needle in text
    assert "\n" not in text and len(text) < 500
    assert "Error code:" not in text and "APIStatusError" not in text


@pytest.mark.parametrize(("status", "body", "kind", "needle"), ANTHROPIC_CASES)
async def test_anthropic_status_errors(
    api: FakeAPI,
    make_anthropic: Callable[..., LLMClient],
    status: int,
    body: dict[str, Any],
    kind: type[LLMError],
    needle: str,
) -> None:
    api.reply(status, body)
    with pytest.raises(kind) as caught:
        await make_anthropic().chat(HI)
    assert type(caught.value) is kind
    assert_user_facing(caught.value, needle)
    assert (caught.value.provider, caught.value.model) == ("anthropic", "claude-sonnet-4-6")
    assert len(api.requests) == 1, "the SDK must not retry on its own"


@pytest.mark.parametrize(("status", "body", "kind", "needle"), OPENAI_CASES)
async def test_openai_status_errors(
    api: FakeAPI,
    make_openai: Callable[..., LLMClient],
    status: int,
    body: dict[str, Any],
    kind: type[LLMError],
    needle: str,
) -> None:
    api.reply(status, body)
    with pytest.raises(kind) as caught:
        await make_openai().chat(HI)
    assert type(caught.value) is kind
    assert_user_facing(caught.value, needle)
    assert len(api.requests) == 1, "the SDK must not retry on its own"


@pytest.mark.parametrize("which", ["anthropic", "openai"])
@pytest.mark.parametrize(
    ("transport_error", "kind"),
    [(httpx2.ReadTimeout, LLMTimeoutError), (httpx2.ConnectError, LLMConnectionError)],
)
async def test_transport_failures(
    api: FakeAPI,
    make_anthropic: Callable[..., LLMClient],
    make_openai: Callable[..., LLMClient],
    which: str,
    transport_error: type[httpx2.TransportError],
    kind: type[LLMError],
) -> None:
    api.fail_with(transport_error)
    client = make_anthropic() if which == "anthropic" else make_openai()
    with pytest.raises(kind) as caught:
        await client.chat(HI)
    assert type(caught.value) is kind
    assert kind.retryable
    assert len(api.requests) == 1


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"retry-after": "7"}, 7.0),
        ({"retry-after-ms": "1500", "retry-after": "9"}, 1.5),
        ({"retry-after": "soon"}, None),
        ({}, None),
    ],
)
async def test_retry_after_header(
    api: FakeAPI,
    make_openai: Callable[..., LLMClient],
    headers: dict[str, str],
    expected: float | None,
) -> None:
    api.reply(429, openai_error("slow down", "requests"), headers=headers)
    with pytest.raises(RateLimitError) as caught:
        await make_openai().chat(HI)
    assert caught.value.retry_after_s == expected


async def test_retry_after_as_http_date(
    api: FakeAPI, make_anthropic: Callable[..., LLMClient]
) -> None:
    when = email.utils.formatdate(time.time() + 20, usegmt=True)
    api.reply(429, anthropic_error("rate_limit_error", "slow down"), headers={"retry-after": when})
    with pytest.raises(RateLimitError) as caught:
        await make_anthropic().chat(HI)
    assert caught.value.retry_after_s is not None
    assert 15 <= caught.value.retry_after_s <= 21


class Sleeps:
    """An injected ``sleep`` that records its delays instead of waiting."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, delay: float) -> None:
        self.delays.append(delay)


def metered(
    client: LLMClient, sleeps: Sleeps, retries: list[Any], max_retries: int = 3
) -> MeteredClient:
    return MeteredClient(
        client,
        UsageLedger(),
        retry_policy=RetryPolicy(max_retries=max_retries),
        on_retry=lambda attempt, delay, error: retries.append((attempt, delay, type(error))),
        sleep=sleeps,
    )


async def test_rate_limit_is_retried_after_the_asked_wait(
    api: FakeAPI, make_anthropic: Callable[..., LLMClient]
) -> None:
    api.reply(429, anthropic_error("rate_limit_error", "slow down"), headers={"retry-after": "2"})
    api.reply(200, anthropic_message([{"type": "text", "text": "fine"}]))
    sleeps, retries = Sleeps(), []
    completion = await metered(make_anthropic(), sleeps, retries).chat(HI)
    assert completion.text == "fine"
    assert sleeps.delays == [2.0]
    assert retries == [(1, 2.0, RateLimitError)]
    assert len(api.requests) == 2


async def test_overload_is_retried_with_backoff(
    api: FakeAPI, make_anthropic: Callable[..., LLMClient]
) -> None:
    api.reply(529, anthropic_error("overloaded_error", "Overloaded"))
    api.reply(503, anthropic_error("api_error", "Service unavailable"))
    api.reply(200, anthropic_message([{"type": "text", "text": "back"}]))
    sleeps, retries = Sleeps(), []
    completion = await metered(make_anthropic(), sleeps, retries).chat(HI)
    assert completion.text == "back"
    assert [kind for _, _, kind in retries] == [OverloadedError, OverloadedError]
    assert 0.5 <= sleeps.delays[0] <= 1.0 and 1.0 <= sleeps.delays[1] <= 2.0


async def test_retries_are_bounded(api: FakeAPI, make_openai: Callable[..., LLMClient]) -> None:
    for _ in range(3):
        api.reply(503, openai_error("overloaded", "server_error"))
    sleeps, retries = Sleeps(), []
    with pytest.raises(OverloadedError):
        await metered(make_openai(), sleeps, retries, max_retries=2).chat(HI)
    assert len(api.requests) == 3 and len(sleeps.delays) == 2


async def test_context_too_long_is_not_retried(
    api: FakeAPI, make_openai: Callable[..., LLMClient]
) -> None:
    api.reply(400, openai_error("maximum context length is 8192 tokens", "invalid_request_error"))
    api.reply(200, openai_completion({"content": "never reached"}))
    sleeps, retries = Sleeps(), []
    with pytest.raises(ContextTooLongError):
        await metered(make_openai(), sleeps, retries).chat(HI)
    assert len(api.requests) == 1 and sleeps.delays == [] and retries == []


async def test_a_500_for_the_request_is_reported_and_not_retried(
    api: FakeAPI, make_openai: Callable[..., LLMClient]
) -> None:
    """llama.cpp's server answers a request it cannot render with 500: sending it again would
    fail the same way, so it is reported once, with what the server said, and metered."""
    api.reply(500, {"error": {"message": "", "type": "internal_server_error"}})
    api.reply(200, openai_completion({"content": "never reached"}))
    sleeps, retries = Sleeps(), []
    ledger = UsageLedger()
    client = MeteredClient(
        make_openai(), ledger, on_retry=lambda *a: retries.append(a), sleep=sleeps
    )
    with pytest.raises(ServerError) as caught:
        await client.chat(HI)
    assert "(500): [internal_server_error]" in str(caught.value)
    assert "overloaded" not in str(caught.value)
    assert len(api.requests) == 1 and retries == [] and sleeps.delays == []
    assert ledger.snapshot().calls == 1


async def test_every_request_sent_is_counted_retries_included(
    api: FakeAPI, make_openai: Callable[..., LLMClient]
) -> None:
    api.reply(503, openai_error("overloaded", "server_error"))
    api.fail_with(httpx2.ReadTimeout)
    api.reply(200, openai_completion({"content": "fine"}))
    ledger = UsageLedger()
    await MeteredClient(make_openai(), ledger, sleep=Sleeps()).chat(HI)
    snapshot = ledger.snapshot()
    assert snapshot.calls == len(api.requests) == 3
    assert snapshot.failed_calls == 2


async def test_a_request_that_never_left_is_not_counted(
    api: FakeAPI, make_openai: Callable[..., LLMClient]
) -> None:
    api.fail_with(httpx2.ConnectError)
    api.reply(200, openai_completion({"content": "fine"}))
    ledger = UsageLedger()
    await MeteredClient(make_openai(), ledger, sleep=Sleeps()).chat(HI)
    assert ledger.snapshot().calls == 1
