"""Bounded retries of retryable LLM failures, with exponential backoff and jitter.

The SDKs' own retries are switched off (``max_retries=0``) so that this is the one place
(on ``tenacity``) that decides: how often, how long to wait, and who gets told (``on_retry``,
which the loops turn into a ``Notice``). A provider's ``retry-after`` is honoured, up to a cap.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

from tenacity import AsyncRetrying, RetryCallState, retry_if_exception, stop_after_attempt

from ralph_tui.llm.errors import LLMError, LLMTimeoutError, RateLimitError

T = TypeVar("T")

Sleep = Callable[[float], Awaitable[None]]
OnRetry = Callable[[int, float, LLMError], None]
"""Called before each wait with the retry's number (1 = first retry), the delay in
seconds, and the error that caused it."""


@dataclass(frozen=True)
class RetryPolicy:
    """How many times to retry and how long to wait between attempts."""

    max_retries: int = 3
    retry_timeouts: bool = True
    base_delay_s: float = 1.0
    max_delay_s: float = 30.0
    max_retry_after_s: float = 60.0


def backoff_delay(
    attempt: int,
    error: LLMError,
    policy: RetryPolicy,
    rand: Callable[[], float] = random.random,
) -> float:
    """Seconds to wait before retry number ``attempt`` (1-based) after ``error``.

    A rate limit that names its wait gets exactly that (capped): the provider knows
    best. Otherwise exponential backoff with jitter in [half, full] of the step, so
    concurrent callers spread out instead of retrying in lockstep.
    """
    if isinstance(error, RateLimitError) and error.retry_after_s is not None:
        return min(error.retry_after_s, policy.max_retry_after_s)
    step = min(policy.base_delay_s * 2 ** (attempt - 1), policy.max_delay_s)
    return step * (0.5 + rand() / 2)


async def call_with_retries(
    call: Callable[[], Awaitable[T]],
    *,
    policy: RetryPolicy,
    sleep: Sleep = asyncio.sleep,
    on_retry: OnRetry | None = None,
    rand: Callable[[], float] = random.random,
) -> T:
    """Await ``call()``, retrying retryable ``LLMError``s up to ``policy.max_retries`` times.

    A non-retryable error, or the last retryable one, propagates unchanged.
    """

    def wait(state: RetryCallState) -> float:
        return backoff_delay(state.attempt_number, _error_of(state), policy, rand)

    def notify(state: RetryCallState) -> None:
        if on_retry is not None and state.next_action is not None:
            on_retry(state.attempt_number, state.next_action.sleep, _error_of(state))

    def worth_retrying(error: BaseException) -> bool:
        if not isinstance(error, LLMError) or not error.retryable:
            return False
        return policy.retry_timeouts or not isinstance(error, LLMTimeoutError)

    retrying = AsyncRetrying(
        retry=retry_if_exception(worth_retrying),
        stop=stop_after_attempt(policy.max_retries + 1),
        wait=wait,
        before_sleep=notify,
        sleep=sleep,
        reraise=True,
    )
    return await retrying(call)


def _error_of(state: RetryCallState) -> LLMError:
    """The ``LLMError`` that failed the attempt ``state`` describes (the retry predicate
    admits no other kind)."""
    assert state.outcome is not None
    error = state.outcome.exception()
    assert isinstance(error, LLMError)
    return error
