"""Backoff delays and the bounded retry loop, with an injected sleep."""

from __future__ import annotations

import pytest

from ralph_tui.errors import CostCapReached
from ralph_tui.llm.errors import (
    AuthenticationError,
    LLMConnectionError,
    LLMError,
    OverloadedError,
    RateLimitError,
)
from ralph_tui.llm.retry import RetryPolicy, backoff_delay, call_with_retries

POLICY = RetryPolicy(max_retries=3, base_delay_s=1.0, max_delay_s=5.0, max_retry_after_s=20.0)


@pytest.mark.parametrize(
    ("attempt", "rand", "expected"),
    [(1, 0.0, 0.5), (1, 1.0, 1.0), (2, 0.0, 1.0), (3, 1.0, 4.0), (4, 1.0, 5.0), (9, 0.0, 2.5)],
)
def test_exponential_backoff_with_jitter_and_cap(
    attempt: int, rand: float, expected: float
) -> None:
    delay = backoff_delay(attempt, OverloadedError("busy"), POLICY, rand=lambda: rand)
    assert delay == pytest.approx(expected)


def test_retry_after_is_honoured_up_to_the_cap() -> None:
    assert backoff_delay(1, RateLimitError("429", retry_after_s=7.0), POLICY) == 7.0
    assert backoff_delay(1, RateLimitError("429", retry_after_s=600.0), POLICY) == 20.0


def test_rate_limit_without_retry_after_backs_off() -> None:
    delay = backoff_delay(2, RateLimitError("429"), POLICY, rand=lambda: 1.0)
    assert delay == 2.0


class Flaky:
    """Fails with the given errors in turn, then answers ``"done"``."""

    def __init__(self, *errors: LLMError) -> None:
        self.errors = list(errors)
        self.calls = 0

    async def __call__(self) -> str:
        self.calls += 1
        if self.errors:
            raise self.errors.pop(0)
        return "done"


async def no_sleep(_delay: float) -> None:
    return None


async def test_retryable_errors_are_retried_until_success() -> None:
    flaky = Flaky(OverloadedError("busy"), LLMConnectionError("down"))
    seen: list[tuple[int, type[LLMError]]] = []
    result = await call_with_retries(
        flaky,
        policy=POLICY,
        sleep=no_sleep,
        on_retry=lambda attempt, _delay, error: seen.append((attempt, type(error))),
    )
    assert result == "done" and flaky.calls == 3
    assert seen == [(1, OverloadedError), (2, LLMConnectionError)]


@pytest.mark.parametrize("error", [AuthenticationError("bad key"), CostCapReached("cap")])
async def test_non_retryable_errors_propagate_at_once(error: Exception) -> None:
    flaky = Flaky(error)
    with pytest.raises(type(error)):
        await call_with_retries(flaky, policy=POLICY, sleep=no_sleep)
    assert flaky.calls == 1


async def test_gives_up_after_max_retries_with_the_last_error() -> None:
    errors = [OverloadedError(f"busy {i}") for i in range(5)]
    flaky = Flaky(*errors)
    with pytest.raises(OverloadedError, match="busy 3"):
        await call_with_retries(flaky, policy=POLICY, sleep=no_sleep)
    assert flaky.calls == 4


async def test_zero_retries_means_one_attempt() -> None:
    flaky = Flaky(OverloadedError("busy"))
    with pytest.raises(OverloadedError):
        await call_with_retries(flaky, policy=RetryPolicy(max_retries=0), sleep=no_sleep)
    assert flaky.calls == 1
