"""The task-mode memory file (``context.md``): findings carried across iterations.

The file is a sequence of blocks, each headed by a line ``## Iter N - <ISO timestamp>`` or,
after compaction, ``## Summary - <ISO timestamp>``; blocks are separated by a blank line.
Text before the first header (a hand-written note, say) counts as one more block.

Budget: the blocks together stay within ``budget_chars``. When an append goes over, the
oldest iteration blocks are dropped first, then the summary, never the newest block; the
count of dropped blocks is kept in a first line ``[trimmed N blocks]``, cumulative across
trims, which is not counted against the budget (it is at most ``MARKER_ALLOWANCE``
characters). If the newest block alone is over budget it is kept, cut at the end of its
text with an ellipsis, rather than losing everything.

Every write replaces the whole file atomically, so a crash never loses the memory.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime
from os import PathLike
from pathlib import Path

from ralph_tui.atomic import write_atomic

MARKER_ALLOWANCE = 32
"""Characters the ``[trimmed N blocks]`` line may add beyond the budget."""

_MARKER = re.compile(r"\A\[trimmed (\d+) blocks?\]\n")
_HEADER = re.compile(r"^## (?:Iter \d+|Summary) - [^\n]*$", re.MULTILINE)
_SUMMARY_HEADER = re.compile(r"\A## Summary - ")
_BLOCK_SEPARATOR = "\n\n"


@dataclass(frozen=True)
class MemoryWrite:
    """What a write did: the file's new size, blocks dropped now and in total."""

    chars: int
    trimmed_blocks: int = 0
    total_trimmed: int = 0
    truncated: bool = False


@dataclass(frozen=True)
class MemoryContent:
    """The memory file parsed: the trimmed-blocks count and the blocks, oldest first."""

    trimmed: int
    blocks: list[str]

    def render(self) -> str:
        """The file text for this content."""
        marker = f"[trimmed {self.trimmed} {'block' if self.trimmed == 1 else 'blocks'}]\n"
        body = _BLOCK_SEPARATOR.join(self.blocks) + "\n" if self.blocks else ""
        return (marker if self.trimmed else "") + body


def timestamp(now: datetime | None = None) -> str:
    """ISO 8601 time to the second, UTC unless ``now`` carries its own zone."""
    return (now or datetime.now(UTC)).isoformat(timespec="seconds")


def read_memory(path: str | PathLike[str]) -> str:
    """The memory file's text, or ``""`` if there is none yet."""
    try:
        return Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        return ""


def parse_memory(text: str) -> MemoryContent:
    """Split memory text into its trimmed count and its blocks."""
    trimmed = 0
    marker = _MARKER.match(text)
    if marker:
        trimmed = int(marker.group(1))
        text = text[marker.end() :]
    starts = [match.start() for match in _HEADER.finditer(text)]
    if not starts or starts[0] != 0:
        starts.insert(0, 0)
    bounds = zip(starts, [*starts[1:], len(text)], strict=True)
    blocks = [text[start:end].strip() for start, end in bounds]
    return MemoryContent(trimmed, [block for block in blocks if block])


def memory_findings(text: str) -> frozenset[str]:
    """The notes memory text holds, each once and without its header (which iteration wrote
    it, and when): what a reader of the memory learns from it. A note written again adds
    nothing to them."""
    return frozenset(_HEADER.sub("", block, count=1).strip() for block in parse_memory(text).blocks)


def read_summary(path: str | PathLike[str]) -> str:
    """The text of the memory file's summary block (without its header), or ``""``."""
    for block in parse_memory(read_memory(path)).blocks:
        if _SUMMARY_HEADER.match(block):
            return block.partition("\n")[2].strip()
    return ""


def _demote_headers(text: str) -> str:
    """Keep header-like lines of an update from being read as block boundaries."""
    return _HEADER.sub(lambda match: "#" + match.group(), text)


def _blocks_length(blocks: list[str]) -> int:
    if not blocks:
        return 0
    return sum(map(len, blocks)) + len(_BLOCK_SEPARATOR) * (len(blocks) - 1) + 1


def _drop_order(blocks: list[str]) -> list[int]:
    """Indexes of droppable blocks: iteration blocks oldest first, then summaries."""
    older = range(len(blocks) - 1)
    summaries = [i for i in older if _SUMMARY_HEADER.match(blocks[i])]
    return [i for i in older if i not in summaries] + summaries


def truncate_block(block: str, budget_chars: int) -> str:
    """Cut ``block`` so that it plus a final newline fits ``budget_chars``."""
    limit = budget_chars - 1
    if len(block) <= limit:
        return block
    if limit < 2:
        return block[: max(limit, 0)]
    cut = block[: limit - 1]
    header_end = block.find("\n")
    space = cut.rfind(" ")
    if space > max(header_end, limit // 2):
        cut = cut[:space]  # end on a word boundary when that does not lose much
    return cut.rstrip() + "…"


def fit_budget(blocks: list[str], budget_chars: int) -> tuple[list[str], int, bool]:
    """Blocks within budget: (kept blocks, number dropped, whether the newest was cut)."""
    dropped: set[int] = set()
    length = _blocks_length(blocks)
    for index in _drop_order(blocks):
        if length <= budget_chars:
            break
        dropped.add(index)
        length -= len(blocks[index]) + len(_BLOCK_SEPARATOR)
    kept = [block for index, block in enumerate(blocks) if index not in dropped]
    truncated = False
    if kept and _blocks_length(kept) > budget_chars:
        kept[-1] = truncate_block(kept[-1], budget_chars)
        truncated = True
    return kept, len(dropped), truncated


def append_memory(
    path: str | PathLike[str],
    update: str,
    iteration: int,
    now: datetime | None = None,
    budget_chars: int = 1500,
) -> MemoryWrite:
    """Append an ``## Iter N`` block for ``update`` and trim the file to the budget.

    An empty update writes nothing: there is nothing to remember.
    """
    existing = read_memory(path)
    text = update.strip()
    if not text:
        return MemoryWrite(chars=len(existing), total_trimmed=parse_memory(existing).trimmed)
    content = parse_memory(existing)
    block = f"## Iter {iteration} - {timestamp(now)}\n{_demote_headers(text)}"
    kept, dropped, truncated = fit_budget([*content.blocks, block], budget_chars)
    new_content = MemoryContent(content.trimmed + dropped, kept)
    rendered = new_content.render()
    _replace(Path(path), rendered)
    return MemoryWrite(len(rendered), dropped, new_content.trimmed, truncated)


def write_summary(
    path: str | PathLike[str], summary: str, now: datetime | None = None, budget_chars: int = 1500
) -> MemoryWrite:
    """Replace the whole memory file with one ``## Summary`` block (compaction)."""
    block = f"## Summary - {timestamp(now)}\n{_demote_headers(summary.strip())}"
    kept, _, truncated = fit_budget([block], budget_chars)
    rendered = MemoryContent(0, kept).render()
    _replace(Path(path), rendered)
    return MemoryWrite(len(rendered), truncated=truncated)


def _replace(path: Path, text: str) -> None:
    """Write the memory file whole; it is the user's file, so a new one follows the umask."""
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, text, private=False)
