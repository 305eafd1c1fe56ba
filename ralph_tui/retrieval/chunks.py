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
MAX_ROW = 2000
"""The longest row a chunk is widened to keep whole (a file with tabs in very long lines is
no table: its chunks stay windows)."""
MAX_CONTEXT = 600
"""The most characters of title and headers a chunk is indexed with."""
CONTEXT_REACH = 4000
"""How far above a chunk its table's header line is looked for (a long table's rows)."""
TITLE_LINES = 2
SHORT_LINE = 80
"""A line without a tab longer than this is a paragraph: no table's header is above it."""


def _whole_rows(
    text: str, starts: np.ndarray, ends: np.ndarray, limit: int
) -> tuple[np.ndarray, np.ndarray]:
    """The windows widened so none cuts a table row: a start inside a row moves back to the
    row's start, an end inside one on to the row's end (at most to ``limit``; a row longer
    than ``MAX_ROW`` is cut as any text is)."""
    if CELL not in text:
        return starts, ends
    begin = int(starts[0]) if len(starts) else 0
    new_starts, new_ends = starts.copy(), ends.copy()
    for index, (start, end) in enumerate(zip(starts.tolist(), ends.tolist(), strict=True)):
        row_start, row_end = _row_around(text, start, begin, limit)
        if row_start < start and CELL in text[row_start:row_end]:
            new_starts[index] = row_start
        row_start, row_end = _row_around(text, end, begin, limit)
        if end < row_end and CELL in text[row_start:row_end]:
            new_ends[index] = row_end
    return new_starts, new_ends


def _row_around(text: str, at: int, begin: int, limit: int) -> tuple[int, int]:
    """The line holding offset ``at`` (within ``begin``..``limit``), or ``(at, at)`` when it
    is longer than ``MAX_ROW``."""
    floor, ceiling = max(begin, at - MAX_ROW), min(limit, at + MAX_ROW)
    newline = text.rfind("\n", floor, at)
    if newline == -1 and floor > begin:
        return at, at
    row_start = newline + 1 if newline != -1 else floor
    row_end = text.find("\n", at, ceiling)
    if row_end == -1:
        if ceiling < limit:
            return at, at
        row_end = limit
    return (row_start, row_end) if row_end - row_start <= MAX_ROW else (at, at)


def table_context(text: str, start: int) -> str:
    """The title and column headers of the table a chunk starting at ``start`` lies in
    (its lines before the header line that begins with a tab, and that line), or "" when
    the chunk does not start inside a table below its headers (or they are far above or
    long: at most ``CONTEXT_REACH`` above, ``MAX_CONTEXT`` long)."""
    floor = max(0, start - CONTEXT_REACH)
    lines_start = text.rfind("\n", floor, start) + 1 if start > floor else start
    if lines_start == 0 and floor > 0:
        return ""
    stop = text.find("\n", start, start + MAX_ROW)
    row = text[lines_start : stop if stop != -1 else min(len(text), start + MAX_ROW)]
    if CELL not in row or row.startswith(CELL):
        return ""
    lines = text[floor:lines_start].split("\n")
    if floor > 0:
        lines = lines[1:]  # (the first may be cut)
    header = _header_above(lines)
    if header is None:
        return ""
    top = header
    while top > 0 and lines[top - 1].startswith(CELL):
        top -= 1  # a header of several lines
    first = top
    while first > 0 and top - first < TITLE_LINES and _is_title(lines[first - 1]):
        first -= 1
    context = "\n".join(lines[first : header + 1]) + "\n"
    return context if len(context) <= MAX_CONTEXT else ""


def _header_above(lines: list[str]) -> int | None:
    """The last header line (one that begins with a tab) of ``lines``, when only the table's
    rows, its short label lines and page breaks stand below it (not a paragraph)."""
    for number in range(len(lines) - 1, -1, -1):
        line = lines[number]
        if line.startswith(CELL):
            return number
        if CELL not in line and len(line) > SHORT_LINE:
            return None
    return None


def _is_title(line: str) -> bool:
    return bool(line.strip()) and CELL not in line and len(line) <= MAX_CONTEXT


def indexed_text(text: str, start: int, end: int) -> str:
    """What a chunk is indexed as: its span, after its table's title and headers."""
    return table_context(text, start) + text[start:end]
