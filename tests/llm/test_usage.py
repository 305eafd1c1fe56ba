"""The usage ledger, the cost cap, and MeteredClient around a real SDK client."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from ralph_tui.errors import CostCapReached
from ralph_tui.events import UsageUpdated
from ralph_tui.llm.types import ChatMessage, Completion, LLMClient, Usage
from ralph_tui.llm.usage import MeteredClient, UsageLedger, UsageSnapshot
from ralph_tui.loops.phases import PHASE_ERRORS
from tests.llm.llm_wire import FakeAPI, anthropic_message


def completion(model: str, cost: float | None, tokens: tuple[int, int] = (100, 10)) -> Completion:
    return Completion(
        provider="anthropic",
        model=model,
        usage=Usage(input_tokens=tokens[0], output_tokens=tokens[1]),
        cost_usd=cost,
    )


def test_ledger_adds_up_tokens_calls_and_cost() -> None:
    ledger = UsageLedger()
    ledger.record(completion("claude-haiku-4-5", 0.25, (1000, 100)))
    snap = ledger.record(completion("claude-sonnet-4-6", 0.5, (2000, 200)))
    assert (snap.input_tokens, snap.output_tokens, snap.calls) == (3000, 300, 2)
    assert snap.cost_usd == pytest.approx(0.75)
    assert snap.cost_fully_known
    assert snap.by_model["anthropic:claude-haiku-4-5"].calls == 1


def test_unknown_cost_is_counted_not_guessed() -> None:
    ledger = UsageLedger()
    ledger.record(completion("claude-haiku-4-5", 0.25))
    snap = ledger.record(completion("mystery", None))
    assert snap.cost_usd == pytest.approx(0.25)
    assert snap.unknown_cost_calls == 1 and not snap.cost_fully_known
    event = snap.to_event()
    assert (event.cost_usd, event.unknown_cost_calls, event.calls) == (0.25, 1, 2)


def test_event_cost_is_none_when_no_price_is_known() -> None:
    ledger = UsageLedger(cost_cap_usd=1.0)
    event = ledger.record(completion("mystery", None)).to_event()
    assert event.cost_usd is None and event.cost_cap_usd == 1.0


def test_a_part_of_a_run_has_the_usage_spent_during_it() -> None:
    ledger = UsageLedger(cost_cap_usd=1.0)
    ledger.record(completion("claude-haiku-4-5", 0.25, (1000, 100)))
    before = ledger.snapshot()
    ledger.record(completion("claude-haiku-4-5", 0.5, (2000, 200)))
    part = ledger.record(completion("mystery", None, (300, 30))).since(before)
    assert (part.input_tokens, part.output_tokens, part.calls) == (2300, 230, 2)
    assert part.cost_usd == pytest.approx(0.5) and part.unknown_cost_calls == 1
    assert part.by_model["anthropic:claude-haiku-4-5"].calls == 1
    after = ledger.snapshot()
    only_unknown = ledger.record(completion("mystery", None)).since(after)
    assert only_unknown.to_event().cost_usd is None, "no price known for this part's calls"
    assert list(only_unknown.by_model) == ["anthropic:mystery"]


def test_before_any_answer_a_model_without_a_price_makes_the_cost_unknown() -> None:
    ledger = UsageLedger()
    assert ledger.snapshot().to_event().cost_usd == 0.0, "nothing to pay, all prices known"
    ledger.unpriced_models = ("anthropic:smollm2",)
    assert ledger.snapshot().to_event().cost_usd is None
    ledger.record_failure("anthropic", "smollm2")
    assert ledger.snapshot().to_event().cost_usd is None, "a failed request says nothing"
    event = ledger.record(completion("claude-haiku-4-5", 0.25)).to_event()
    assert (event.cost_usd, event.unknown_cost_calls) == (0.25, 0), "the judge's, so far"
    event = ledger.record(completion("smollm2", None)).to_event()
    assert (event.cost_usd, event.unknown_cost_calls) == (0.25, 1)


def test_a_failed_request_does_not_make_an_unknown_cost_look_known() -> None:
    ledger = UsageLedger()
    ledger.record_failure("openai", "smollm2")
    snap = ledger.record(completion("smollm2", None))
    assert snap.calls == 2 and snap.to_event().cost_usd is None


def test_a_request_abandoned_at_no_known_price_makes_the_cost_unknown_not_zero() -> None:
    ledger = UsageLedger()
    snap = ledger.record_failure("openai", "smollm2", read=completion("smollm2", None))
    assert (snap.calls, snap.failed_calls, snap.input_tokens) == (1, 1, 100)
    assert snap.to_event().cost_usd is None, "not '$0.0000 + unknown'"
    assert UsageSnapshot.of_event(snap.to_event()).to_event().cost_usd is None
    priced = ledger.record_failure("openai", "gpt-5.4-mini", read=completion("m", 0.01))
    assert priced.to_event().cost_usd == pytest.approx(0.01), "one call's price is known"


def test_cost_cap_trips_once_reached() -> None:
    ledger = UsageLedger(cost_cap_usd=0.5)
    ledger.record(completion("m", 0.3))
    ledger.check()
    ledger.record(completion("m", 0.2))
    with pytest.raises(CostCapReached, match=r"\$0\.5000 spent of the \$0\.50 cap"):
        ledger.check()
    assert not issubclass(CostCapReached, PHASE_ERRORS), "no phase survives it: the run stops"


def test_no_cap_never_trips() -> None:
    ledger = UsageLedger()
    ledger.record(completion("m", 1000.0))
    ledger.check()


async def test_metered_client_records_and_reports(
    api: FakeAPI, make_anthropic: Callable[..., LLMClient]
) -> None:
    api.reply(
        200,
        anthropic_message(
            [{"type": "text", "text": "ok"}], input_tokens=1_000_000, output_tokens=0
        ),
    )
    ledger = UsageLedger(cost_cap_usd=2.0)
    reports: list[UsageSnapshot] = []
    client = MeteredClient(make_anthropic(), ledger, reports.append)
    assert (client.provider, client.model) == ("anthropic", "claude-sonnet-4-6")
    assert client.context_window_tokens == 200_000

    result = await client.chat([ChatMessage(role="user", content="x")])

    assert result.cost_usd == pytest.approx(3.0)
    assert len(reports) == 1 and reports[0].calls == 1
    assert reports[0].cost_usd == pytest.approx(3.0)
    assert isinstance(client, LLMClient)


async def test_metered_client_refuses_calls_past_the_cap(
    api: FakeAPI, make_anthropic: Callable[..., LLMClient]
) -> None:
    ledger = UsageLedger(cost_cap_usd=0.01)
    ledger.record(completion("m", 0.02))
    with pytest.raises(CostCapReached):
        await MeteredClient(make_anthropic(), ledger).chat([ChatMessage(role="user", content="x")])
    assert api.requests == []


@pytest.mark.parametrize(
    "event",
    [
        UsageUpdated(input_tokens=10, output_tokens=4, calls=2, cost_usd=0.5, cost_cap_usd=2.0),
        UsageUpdated(
            input_tokens=10,
            output_tokens=4,
            calls=2,
            cost_usd=None,
            unknown_cost_calls=2,
            cache_read_tokens=6,
            saved_calls=3,
            saved_input_tokens=30,
            saved_output_tokens=9,
            saved_cost_usd=None,
        ),
        UsageUpdated(
            input_tokens=900,
            output_tokens=40,
            calls=3,
            cost_usd=None,
            unknown_cost_calls=2,
            failed_calls=1,
            estimated_calls=2,
        ),
        UsageUpdated(
            input_tokens=1,
            output_tokens=1,
            calls=1,
            cost_usd=0.01,
            saved_calls=1,
            saved_input_tokens=5,
            saved_output_tokens=2,
            saved_cost_usd=0.02,
        ),
    ],
)
def test_a_usage_event_is_read_back_into_the_snapshot_it_reports(event: UsageUpdated) -> None:
    """A run stopped hard reports the usage its last event recorded: nothing lost on the way
    back (unknown costs — a failed request included, which once made an all-unknown cost read
    back as $0 — estimated calls, prompt-cache figures, the sub-call cache's saving)."""
    again = UsageSnapshot.of_event(event).to_event()
    assert again.model_dump(exclude={"ts"}) == event.model_dump(exclude={"ts"})
