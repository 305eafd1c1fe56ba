"""The LCM active context: bounded at length, and cache-friendly; prints one JSON object.

1. A 300-step synthetic agent run (an assistant turn with a tool call, then an observation of
   random size up to the output limit): the largest request against the hard limit, the
   compactions and the deepest summary. Summaries are written by a deterministic extractive
   summariser (the first sentences), so the run needs no model.
2. A 30-step run: the share of each request that is a byte-identical prefix of the previous
   request, averaged over steps, for the LCM active context and for the age-based cutting of
   old observations it replaced (kept here as the baseline); and the input billed with
   Anthropic prompt caching (a breakpoint on the newest block: the previous request read at
   0.1x, the rest written at 1.25x) against the same requests uncached.

    .venv/bin/python bench/lcm.py [--seed 7]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
from itertools import pairwise
from typing import Any

from ralph_tui.lcm.compaction import Style
from ralph_tui.lcm.context import ActiveContext, Budget
from ralph_tui.lcm.store import MessageStore, message_tokens
from ralph_tui.llm.types import ChatMessage, ToolCall

OUTPUT_LIMIT = 4000
SYSTEM = "You explore a document by writing Python. " * 40


async def first_sentences(text: str, target: int, style: Style) -> str:
    """An extractive summary: the first sentences, up to the target."""
    return " ".join(text.split())[: target * 4]


def step_messages(rng: random.Random, number: int) -> list[ChatMessage]:
    call = ToolCall(id=f"c{number}", name="run_code", arguments=json.dumps({"code": f"x{number}"}))
    size = rng.randint(20, OUTPUT_LIMIT)
    observation = " ".join(f"word{rng.randint(0, 999)}." for _ in range(size // 9))[:size]
    return [
        ChatMessage(role="assistant", content=f"Step {number}: looking.", tool_calls=[call]),
        ChatMessage(role="tool", tool_call_id=f"c{number}", content=observation),
    ]


async def long_run(seed: int, steps: int = 300) -> dict[str, Any]:
    rng = random.Random(seed)
    budget = Budget.of_window(32_768, 2048)
    context = ActiveContext(SYSTEM, MessageStore(), budget)
    context.append(ChatMessage(role="user", content="Find every backwash interval."))
    largest, compactions, exhausted = 0, 0, 0
    for number in range(steps):
        for message in step_messages(rng, number):
            context.append(message)
        report = await context.compact(first_sentences)
        compactions += report.status == "compacted"
        exhausted += report.status == "exhausted"
        largest = max(largest, context.tokens())
    depth = max((s.depth for s in context.summaries.values()), default=0)
    return {
        "steps": steps,
        "hard_limit_tokens": budget.hard,
        "largest_request_tokens": largest,
        "within_hard_limit": largest <= budget.hard,
        "compactions": compactions,
        "exhausted": exhausted,
        "summaries": len(context.summaries),
        "deepest_summary": depth,
    }


def age_cut(history: list[ChatMessage], steps_done: int) -> list[ChatMessage]:
    """The policy LCM replaced: observations two or more turns old cut to a quarter, then to
    200 characters past six turns."""
    rendered = [ChatMessage(role="system", content=SYSTEM), history[0]]
    turns = [history[i : i + 2] for i in range(1, len(history), 2)]
    for index, (assistant, observation) in enumerate(turns):
        age = len(turns) - 1 - index
        keep = OUTPUT_LIMIT + 400 if age < 2 else max(OUTPUT_LIMIT // 4, 200) if age < 6 else 200
        text = observation.content
        if len(text) > keep:
            half = keep // 2
            cut = len(text) - 2 * half
            text = f"{text[:half]}\n[... {cut} characters omitted ...]\n{text[-half:]}"
        rendered += [assistant, observation.model_copy(update={"content": text})]
    return rendered


def prefix_share(previous: list[ChatMessage], current: list[ChatMessage]) -> float:
    a = "".join(m.model_dump_json() for m in previous)
    b = "".join(m.model_dump_json() for m in current)
    common = 0
    for left, right in zip(a, b, strict=False):
        if left != right:
            break
        common += 1
    return common / len(b)


def billed(requests: list[list[ChatMessage]]) -> tuple[float, float]:
    """Input billed with caching and without, in input-token units: the part of each
    request that repeats the previous one byte for byte is read from the cache (0.1x), the
    rest written to it (1.25x)."""
    cached = plain = 0.0
    previous: list[ChatMessage] | None = None
    for messages in requests:
        tokens = sum(message_tokens(m) for m in messages)
        plain += tokens
        hit = round(prefix_share(previous, messages) * tokens) if previous else 0
        cached += hit * 0.1 + (tokens - hit) * 1.25
        previous = messages
    return cached, plain


async def short_run(seed: int, steps: int = 30) -> dict[str, Any]:
    rng = random.Random(seed)
    context = ActiveContext(SYSTEM, MessageStore(), Budget.of_window(200_000, 4096))
    first = ChatMessage(role="user", content="Find every backwash interval.")
    context.append(first)
    history = [first]
    lcm, aged = [], []
    for number in range(steps):
        await context.compact(first_sentences)
        lcm.append(context.render())
        aged.append(age_cut(history, number))
        for message in step_messages(rng, number):
            context.append(message)
            history.append(message)
    shares = {
        "lcm": statistics.mean(prefix_share(a, b) for a, b in pairwise(lcm)),
        "age_cut_baseline": statistics.mean(prefix_share(a, b) for a, b in pairwise(aged)),
    }
    cached, plain = billed(lcm)
    aged_cached, aged_plain = billed(aged)
    return {
        "steps": steps,
        "mean_prefix_share": {k: round(v, 3) for k, v in shares.items()},
        "billed_input_cached_over_uncached": round(cached / plain, 3),
        "baseline_billed_cached_over_uncached": round(aged_cached / aged_plain, 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    result = {
        "long_run": asyncio.run(long_run(args.seed)),
        "short_run": asyncio.run(short_run(args.seed)),
    }
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
