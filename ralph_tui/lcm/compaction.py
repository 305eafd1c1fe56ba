"""Compaction with escalation, guaranteed to terminate.

A span is summarised at level 1 (a detailed summary at a target size); if that does not
shrink it, at level 2 (bullets at half the target); if that does not either, at level 3
(deterministic truncation, which always shrinks). Every step replaces items of the active
context by one strictly smaller summary, so the context's token count falls at each step
and the loop ends; when nothing is left to compact while still over the target it stops
and says why (``exhausted``), never reporting a compaction that changed nothing.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Literal

from ralph_tui.lcm.dag import Summary
from ralph_tui.llm.tokens import CHARS_PER_TOKEN, MESSAGE_OVERHEAD_TOKENS, estimate_tokens

Style = Literal["detailed", "bullets"]
Summariser = Callable[[str, int, Style], Awaitable[str]]
"""``(text, target tokens, style) -> summary``: the generate role, or a test double."""

TRUNCATE_TOKENS = 512


@dataclass
class Written:
    text: str
    level: int


@dataclass
class CompactionReport:
    """What one compaction did: ``compacted`` (summaries written), ``not_needed`` or
    ``exhausted`` (still over the target, and why)."""

    status: Literal["compacted", "not_needed", "exhausted"]
    before_tokens: int
    after_tokens: int
    summaries: list[str] = field(default_factory=list)
    levels: list[int] = field(default_factory=list)
    reason: str = ""


async def write_summary(
    text: str, budget_tokens: int, target: int, summarise: Summariser
) -> Written:
    """A summary of ``text`` whose own tokens stay under ``budget_tokens`` (the tokens of
    what it replaces, its frame aside): level 1, then 2, then truncation to the smallest of
    ``TRUNCATE_TOKENS``, ``target`` and the budget."""
    for level, style, size in ((1, "detailed", target), (2, "bullets", max(1, target // 2))):
        written = " ".join((await summarise(text, size, style)).split())  # type: ignore[arg-type]
        if written and estimate_tokens(written) < budget_tokens:
            return Written(written, level)
    keep = max(1, min(TRUNCATE_TOKENS, target, budget_tokens - 1)) * CHARS_PER_TOKEN
    return Written(truncate(text, keep), 3)


def truncate(text: str, chars: int) -> str:
    """The first ``chars`` characters of ``text`` (an ellipsis replacing the last one when
    cut), so the result is never longer than ``chars``."""
    if len(text) <= chars:
        return text
    return text[: max(0, chars - 1)] + "…"


def frame_tokens(summary_header: str) -> int:
    return estimate_tokens(summary_header + "\n") + MESSAGE_OVERHEAD_TOKENS


def fits(summary: Summary) -> bool:
    """Whether ``summary`` is strictly smaller than what it replaced."""
    return summary.tokens < summary.source_tokens
