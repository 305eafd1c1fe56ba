"""The active context over random conversations: never over the hard limit, compaction
ends, every message reachable through ``expand``, the fresh tail never split, escalation to
each level, and a prefix that stays byte-identical between compactions."""

from __future__ import annotations

import asyncio
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from ralph_tui.lcm.compaction import Style
from ralph_tui.lcm.context import ActiveContext, Budget
from ralph_tui.lcm.store import MessageStore
from ralph_tui.llm.types import ChatMessage, ToolCall


def shrinking(ratio: float = 0.3) -> Any:
    async def summarise(text: str, target: int, style: Style) -> str:
        return text[: max(1, int(len(text) * ratio))]

    return summarise


async def refusing(text: str, target: int, style: Style) -> str:
    return text + " " + text


def bullets_only() -> Any:
    async def summarise(text: str, target: int, style: Style) -> str:
        return text * 2 if style == "detailed" else "- " + text[: max(1, target)]

    return summarise


def conversation(draw: Any) -> list[ChatMessage]:
    messages = [ChatMessage(role="user", content="task " * draw(st.integers(1, 50)))]
    for number in range(draw(st.integers(0, 30))):
        size = draw(st.integers(0, 400))
        if draw(st.booleans()):
            call = ToolCall(id=f"c{number}", name="run_code", arguments='{"code": "x"}')
            messages.append(ChatMessage(role="assistant", content="w" * size, tool_calls=[call]))
            messages.append(ChatMessage(role="tool", tool_call_id=f"c{number}", content="o" * size))
        else:
            messages.append(ChatMessage(role="user", content="u" * size))
    return messages


@st.composite
def runs(draw: Any) -> tuple[list[ChatMessage], Budget, Any]:
    messages = conversation(draw)
    hard = draw(st.integers(256, 3000))
    soft = draw(st.integers(100, hard))
    budget = Budget(soft=soft, hard=hard, fresh_tail=draw(st.integers(1, 6)),
                    summary_target=draw(st.integers(10, 200)))  # fmt: skip
    summariser = draw(st.sampled_from([shrinking(0.2), shrinking(0.9), refusing, bullets_only()]))
    return messages, budget, summariser


def reachable(context: ActiveContext) -> set[int]:
    """Message ids reachable from the active context: raw, or under a summary in it."""
    seen = {m.id for m in context.raw()}
    stack = list(context.top)
    while stack:
        summary = context.summaries[stack.pop()]
        if summary.kind == "leaf":
            seen |= {int(c.removeprefix("M")) for c in summary.covers}
        else:
            stack.extend(summary.covers)
    return seen


@settings(max_examples=60)
@given(runs())
def test_the_context_stays_bounded_and_lossless(run: tuple[list[ChatMessage], Budget, Any]) -> None:
    messages, budget, summarise = run
    context = ActiveContext("You are a careful reader.", MessageStore(), budget)

    async def play() -> None:
        for message in messages:
            context.append(message)
            report = await asyncio.wait_for(context.compact(summarise), timeout=10)
            assert context.tokens() <= budget.hard, report
            if report.status == "compacted":
                assert report.after_tokens < report.before_tokens and report.summaries
            if report.status == "not_needed":
                assert report.before_tokens <= budget.soft
            assert reachable(context) == set(range(len(context.store)))
            first_raw = context.raw()[0] if context.raw() else None
            assert first_raw is None or first_raw.role != "tool" or context.raw_from == 0

    asyncio.run(play())


async def test_a_summariser_that_refuses_to_shrink_escalates_to_truncation() -> None:
    context = ActiveContext("sys", MessageStore(), Budget(soft=300, hard=600, fresh_tail=1))
    for number in range(6):
        context.append(ChatMessage(role="user", content=f"note {number} " + "x" * 300))
    report = await context.compact(refusing)
    assert report.status == "compacted" and report.levels and set(report.levels) == {3}
    assert context.tokens() <= 300


async def test_a_summariser_that_only_shrinks_bullets_gives_level_two() -> None:
    context = ActiveContext("sys", MessageStore(), Budget(soft=300, hard=600, fresh_tail=1))
    for number in range(6):
        context.append(ChatMessage(role="user", content=f"note {number} " + "x" * 300))
    report = await context.compact(bullets_only())
    assert report.levels[0] == 2


async def test_a_fresh_tail_over_the_soft_limit_is_exhausted_and_nothing_changes() -> None:
    context = ActiveContext("sys", MessageStore(), Budget(soft=50, hard=300, fresh_tail=1))
    context.append(ChatMessage(role="user", content="y" * 600))
    before = context.render()
    report = await context.compact(shrinking())
    assert report.status == "exhausted" and "fresh tail" in report.reason
    assert not report.summaries and context.render() == before


async def test_a_message_over_the_hard_limit_is_summarised_and_kept_whole_in_the_store() -> None:
    context = ActiveContext("sys", MessageStore(), Budget(soft=50, hard=300, fresh_tail=1))
    context.append(ChatMessage(role="user", content="y" * 2000))
    report = await context.compact(shrinking())
    assert report.status in ("compacted", "exhausted") and report.summaries
    assert context.tokens() <= 300
    assert context.store[0].content == "y" * 2000
    assert "y" * 100 in context.expand(report.summaries[0], max_tokens=1000)


async def test_the_prefix_is_byte_identical_between_compactions() -> None:
    context = ActiveContext("sys", MessageStore(), Budget(soft=10_000, hard=20_000))
    context.append(ChatMessage(role="user", content="the task"))
    before = [m.model_dump_json() for m in context.render()]
    for number in range(5):
        context.append(ChatMessage(role="assistant", content=f"step {number}"))
        report = await context.compact(shrinking())
        assert report.status == "not_needed"
        now = [m.model_dump_json() for m in context.render()]
        assert now[: len(before)] == before
        before = now


async def test_expand_gives_back_what_a_summary_covers() -> None:
    context = ActiveContext("sys", MessageStore(), Budget(soft=200, hard=400, fresh_tail=1))
    for number in range(8):
        context.append(ChatMessage(role="user", content=f"fact {number}: " + "z" * 200))
    await context.compact(shrinking(0.1))
    [first, *_] = context.top
    expanded = context.expand(first, max_tokens=100_000)
    assert "[M0 user] fact 0:" in expanded
    assert "no summary 'S9999'" in context.expand("S9999")


def test_only_the_latest_unusable_turn_is_in_the_context_and_the_store_keeps_all() -> None:
    store = MessageStore()
    context = ActiveContext("system", store, Budget(soft=4000, hard=8000))
    context.append(ChatMessage(role="user", content="task"))

    def turn(number: int, result: str, *, unusable: bool) -> None:
        call = ToolCall(id=f"c{number}", name="submit_output", arguments=f'{{"n": {number}}}')
        context.append(ChatMessage(role="assistant", tool_calls=[call]))
        reply = ChatMessage(role="tool", tool_call_id=f"c{number}", content=result)
        context.append(reply, closes_unusable_turn=unusable)

    turn(1, "wrong 1", unusable=True)
    turn(2, "code ran", unusable=False)
    turn(3, "wrong 3", unusable=True)
    turn(4, "wrong 4", unusable=True)
    shown = [m.content for m in context.render() if m.role == "tool"]
    assert shown == ["code ran", "wrong 4"]
    assert [m.role for m in context.render()] == [
        "system", "user", "assistant", "tool", "assistant", "tool"
    ]  # fmt: skip
    assert len(store) == 9 and store[2].closes_unusable_turn
    assert context.tokens() < sum(m.tokens for m in store.messages)
