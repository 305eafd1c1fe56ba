"""``grep`` and ``expand``: bounded, paginated, over the document, the messages and the
summaries; and reachable from sandbox code."""

from __future__ import annotations

import pytest

from ralph_tui.lcm.context import ActiveContext, Budget
from ralph_tui.lcm.operators import Operators
from ralph_tui.lcm.store import MessageStore
from ralph_tui.llm.types import ChatMessage
from tests.lcm.test_context import shrinking

DOCUMENT = "\n".join(f"line {n}: filter {n} backwashed at {n} h" for n in range(1, 31))


def operators() -> Operators:
    context = ActiveContext("sys", MessageStore(), Budget(soft=10_000, hard=20_000))
    context.append(ChatMessage(role="user", content="How often are filters backwashed?"))
    context.append(ChatMessage(role="assistant", content="I will grep for backwash."))
    return Operators(context, DOCUMENT)


async def test_grep_pages_through_the_document_with_spans() -> None:
    ops = operators()
    first = await ops.grep(r"backwashed at (\d+)", limit=25)
    assert len(first["hits"]) == 25 and first["next_offset"] == 25
    hit = first["hits"][0]
    assert DOCUMENT[slice(*hit["span"])] == "backwashed at 1" and hit["line"].startswith("line 1:")
    rest = await ops.grep(r"backwashed at (\d+)", limit=25, offset=first["next_offset"])
    assert len(rest["hits"]) == 5 and rest["next_offset"] is None


async def test_grep_over_the_conversation_and_bad_input() -> None:
    ops = operators()
    found = await ops.grep("grep for", scope="messages")
    assert found["hits"] == [{"id": "M1", "role": "assistant", "line": "I will grep for backwash."}]
    with pytest.raises(ValueError, match="scope must be one of"):
        await ops.grep("x", scope="files")
    with pytest.raises(ValueError, match="not a regular expression"):
        await ops.grep("(")


async def test_expand_and_grep_over_summaries_after_a_compaction() -> None:
    context = ActiveContext("sys", MessageStore(), Budget(soft=300, hard=600, fresh_tail=1))
    for number in range(8):
        context.append(ChatMessage(role="user", content=f"fact {number}: " + "z" * 200))
    await context.compact(shrinking(0.1))
    ops = Operators(context, DOCUMENT)
    [summary_id, *_] = context.top
    assert "[M0 user] fact 0:" in await ops.expand(summary_id, max_tokens=100_000)
    found = await ops.grep("fact 0", scope="summaries")
    assert found["hits"] and found["hits"][0]["id"].startswith("S")
