"""Chunks: overlapping character windows of a text, each an exact span of it.

A chunk is ``text[start:end]``, so any text cut from one is a verbatim substring that
evidence can cite. In a corpus a chunk never crosses from one document into the next, and
carries the document (and, for a PDF, the page its start lies on). A chunk never cuts a
table row (a line with tab-separated cells: it is widened to the row's ends), and is indexed
with its table's title and column headers when it starts below them (``indexed_text``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Chunking:
    """Window size and overlap in characters."""

    size: int = 500
    overlap: int = 100

    def __post_init__(self) -> None:
        if self.size <= 0:
            raise ValueError(f"chunk size must be positive, not {self.size}")
        if not 0 <= self.overlap < self.size:
            raise ValueError(
                f"chunk overlap must be at least 0 and below the chunk size {self.size}, "
                f"not {self.overlap}"
            )

    @property
    def key(self) -> str:
        return f"c{self.size}o{self.overlap}r"  # r: table rows kept whole


def window_starts(length: int, chunking: Chunking) -> np.ndarray:
    """Start offsets of the windows covering ``length`` characters (the last one reaches
    the end; a text shorter than a window is one chunk)."""
    if length <= 0:
        return np.zeros(0, dtype=np.int64)
    step = chunking.size - chunking.overlap
    count = max(1, -(-(length - chunking.overlap) // step))
    return np.arange(count, dtype=np.int64) * step


@dataclass
class ChunkTable:
    """Every chunk's span, document number and page (0: the document has no pages)."""

    starts: np.ndarray
    ends: np.ndarray
    documents: np.ndarray
    pages: np.ndarray

    def __len__(self) -> int:
        return len(self.starts)

    def span(self, index: int) -> tuple[int, int]:
        return int(self.starts[index]), int(self.ends[index])

    def texts(self, text: str) -> list[str]:
        return [text[s:e] for s, e in zip(self.starts.tolist(), self.ends.tolist(), strict=True)]

    def arrays(self) -> dict[str, np.ndarray]:
        return {
            "starts": self.starts,
            "ends": self.ends,
            "documents": self.documents,
            "pages": self.pages,
        }


def chunk_text(
    text: str, chunking: Chunking, table: Sequence[dict[str, Any]] | None = None
) -> ChunkTable:
    """Chunk ``text``; with a corpus ``table`` (``Corpus.table``), chunk each document's
    span on its own, so no chunk crosses a document boundary."""
    entries = list(table) if table else [{"start": 0, "end": len(text), "pages": []}]
    starts, ends, documents, pages = [], [], [], []
    for number, entry in enumerate(entries):
        begin, end = int(entry["start"]), int(entry["end"])
        local = window_starts(end - begin, chunking) + begin
        local, stops = _whole_rows(text, local, np.minimum(local + chunking.size, end), end)
        starts.append(local)
        ends.append(stops)
        documents.append(np.full(len(local), number, dtype=np.int32))
        pages.append(_pages_at(local, entry.get("pages") or []))
    return ChunkTable(
        starts=np.concatenate(starts) if starts else np.zeros(0, dtype=np.int64),
        ends=np.concatenate(ends) if ends else np.zeros(0, dtype=np.int64),
        documents=np.concatenate(documents) if documents else np.zeros(0, dtype=np.int32),
        pages=np.concatenate(pages) if pages else np.zeros(0, dtype=np.int32),
    )


def _pages_at(starts: np.ndarray, pages: list[dict[str, int]]) -> np.ndarray:
    if not pages:
        return np.zeros(len(starts), dtype=np.int32)
    page_starts = np.array([page["start"] for page in pages], dtype=np.int64)
    numbers = np.array([page["page"] for page in pages], dtype=np.int32)
    index = np.searchsorted(page_starts, starts, side="right") - 1
    return np.where(index >= 0, numbers[np.maximum(index, 0)], numbers[0]).astype(np.int32)


CELL = "\t"
CONTEXT_REACH = 4000
"""How far above a chunk its table's header line is looked for (a long table's rows)."""
TITLE_LINES = 2


def _whole_rows(
    text: str, starts: np.ndarray, ends: np.ndarray, limit: int
) -> tuple[np.ndarray, np.ndarray]:
    """The windows widened so none cuts a table row: a start inside a row moves back to the
    row's start, an end inside one on to the row's end (at most to ``limit``)."""
    if CELL not in text:
        return starts, ends
    new_starts, new_ends = starts.copy(), ends.copy()
    for index, (start, end) in enumerate(zip(starts.tolist(), ends.tolist(), strict=True)):
        row_start = text.rfind("\n", 0, start) + 1
        if start > row_start and CELL in text[row_start:start] + _line_at(text, start):
            new_starts[index] = max(row_start, int(starts[0]))
        line_end = text.find("\n", end)
        line_end = limit if line_end == -1 else min(line_end, limit)
        row_begin = text.rfind("\n", 0, end) + 1
        if end < line_end and CELL in text[row_begin:line_end]:
            new_ends[index] = line_end
    return new_starts, new_ends


def _line_at(text: str, at: int) -> str:
    stop = text.find("\n", at)
    return text[at : len(text) if stop == -1 else stop]


def table_context(text: str, start: int) -> str:
    """The title and column headers of the table a chunk starting at ``start`` lies in
    (its lines before the header line that begins with a tab, and that line), or "" when
    the chunk does not start inside a table below its headers."""
    row_start = text.rfind("\n", 0, start) + 1
    if CELL not in _line_at(text, row_start) or text.startswith(CELL, row_start):
        return ""
    reach = max(0, row_start - CONTEXT_REACH)
    header = text.rfind("\n" + CELL, reach, row_start)
    if header == -1:
        return ""
    header += 1
    header_end = text.find("\n", header) + 1
    while header > 0 and text.startswith(CELL, text.rfind("\n", 0, header - 1) + 1):
        header = text.rfind("\n", 0, header - 1) + 1  # a header of several lines
    title = header
    for _ in range(TITLE_LINES):
        above = text.rfind("\n", 0, max(title - 1, 0)) + 1 if title > 0 else 0
        if title == 0 or CELL in text[above:title]:
            break
        title = above
    return text[title:header_end]


def indexed_text(text: str, start: int, end: int) -> str:
    """What a chunk is indexed as: its span, after its table's title and headers."""
    return table_context(text, start) + text[start:end]
