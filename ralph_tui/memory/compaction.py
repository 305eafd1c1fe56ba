"""Memory compaction: many episodes become one summary block within the memory budget.

Per-iteration appends keep only a sliding window of recent findings. Once enough episodes
have piled up, a summarizer (in practice an LLM call that the loop passes in; this module
knows no LLM client) synthesizes them, together with the previous summary, into one block
that replaces the memory file's contents; the episode log is then rotated.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from datetime import UTC, datetime
from os import PathLike
from typing import Any

from ralph_tui.memory.context_file import read_summary, timestamp, write_summary
from ralph_tui.memory.episodes import EpisodeStore

Summarize = Callable[[str], Awaitable[str]]

_FIELD_LIMITS = (
    ("task", "Task", 400),
    ("brief", "Brief", 1200),
    ("output", "Output", 1200),
    ("memoryUpdate", "Memory update", 600),
    ("validation", "Validation", 400),
)
_SENTENCE_END = re.compile(r"[.!?][\"')\]]*(?=\s|$)")


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _field_text(value: Any) -> str:
    if isinstance(value, str):
        return value.strip()
    return json.dumps(value, ensure_ascii=False, default=str)


def _render_episode(number: int, episode: Mapping[str, Any]) -> str:
    when = ", ".join(
        str(episode[key]) for key in ("iteration", "timestamp") if episode.get(key) is not None
    )
    lines = [f"Episode {number}" + (f" ({when})" if when else "") + ":"]
    for key, label, limit in _FIELD_LIMITS:
        if episode.get(key) not in (None, ""):
            lines.append(f"{label}: {_clip(_field_text(episode[key]), limit)}")
    return "\n".join(lines)


def build_compaction_prompt(
    episodes: Sequence[Mapping[str, Any]], budget_chars: int, previous_summary: str = ""
) -> str:
    """The summarizer's input: instructions, the earlier summary, then every episode."""
    parts = [
        f"Compact the memory of {len(episodes)} task iterations into one summary of at most "
        f"{budget_chars} characters: what is established (keep names, numbers and other "
        "specifics), what is still missing or disputed. Drop repetition."
    ]
    if previous_summary.strip():
        parts.append(f"Earlier summary:\n{previous_summary.strip()}")
    parts += [_render_episode(number, episode) for number, episode in enumerate(episodes, 1)]
    return "\n\n".join(parts)


def enforce_budget(text: str, budget_chars: int) -> str:
    """``text`` within ``budget_chars``: cut at the last sentence or line end that keeps at
    least half the budget, else at the last space with an ellipsis."""
    text = text.strip()
    if len(text) <= budget_chars:
        return text
    window = text[: budget_chars + 1]
    ends = [match.end() for match in _SENTENCE_END.finditer(window) if match.end() <= budget_chars]
    boundary = max([*ends, window.rfind("\n", 0, budget_chars + 1)])
    if boundary >= budget_chars // 2:
        return text[:boundary].rstrip()
    cut = text[: budget_chars - 1]
    space = cut.rfind(" ")
    if space >= budget_chars // 2:
        cut = cut[:space]
    return cut.rstrip() + "…"


async def compact_memory(
    episodes: Sequence[Mapping[str, Any]],
    budget_chars: int,
    summarize: Summarize,
    *,
    previous_summary: str = "",
) -> str:
    """Ask ``summarize`` for one summary of the episodes and hold it to the budget."""
    prompt = build_compaction_prompt(episodes, budget_chars, previous_summary)
    return enforce_budget(await summarize(prompt), budget_chars)


async def maybe_compact(
    store: EpisodeStore,
    mem_path: str | PathLike[str],
    threshold: int = 6,
    budget_chars: int = 1500,
    *,
    summarize: Summarize,
    now: datetime | None = None,
) -> bool:
    """Compact once the log holds ``threshold`` episodes; returns whether it did.

    The summary replaces the memory file's blocks (the earlier summary is folded into it),
    then the episode log is rotated. An empty summary changes nothing.
    """
    if store.count() < threshold:
        return False
    moment = now or datetime.now(UTC)
    header_chars = len(f"## Summary - {timestamp(moment)}\n") + 1
    summary = await compact_memory(
        store.load(),
        max(budget_chars - header_chars, 1),
        summarize,
        previous_summary=read_summary(mem_path),
    )
    if not summary:
        return False
    write_summary(mem_path, summary, now=moment, budget_chars=budget_chars)
    store.rotate()
    return True
