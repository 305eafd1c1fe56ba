"""Chunks: overlapping character windows of a text, each an exact span of it.

A chunk is ``text[start:end]``, so any text cut from one is a verbatim substring that
evidence can cite. In a corpus a chunk never crosses from one document into the next, and
carries the document and, for a PDF, every page it spans.

Where a document has pages or headings, a chunk prefers to end where the document's own
parts do: at a page break (unless it began with the overlap of the previous window and
that would leave it a sliver, under a quarter of a window) or at a heading (when it keeps
at least half a window; in a PDF only at its top headings, ``section_headings``), and the
next chunk starts right there, without overlap — so a passage is about one page and one
section, and a balance sheet is not found through a chunk that begins in the previous
page's footer.

A chunk spanning pages is labelled with the page that holds most of its characters (the
first such page on a tie): where its content is, not where its first character happens to
be. A chunk that starts with a three-line footer and goes on for a page of statement is that
statement's page.

A chunk never cuts a table row (a line with tab-separated cells: it is widened to the row's
ends), and is indexed with its table's title and column headers when it starts below them
(``indexed_text``).
"""

from __future__ import annotations

import bisect
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
    """Every chunk's span and document number, the page it is labelled with (``pages``:
    where most of its characters are; 0 when the document has no pages) and the first and
    last page it spans."""

    starts: np.ndarray
    ends: np.ndarray
    documents: np.ndarray
    pages: np.ndarray
    first_pages: np.ndarray
    last_pages: np.ndarray

    def __len__(self) -> int:
        return len(self.starts)

    def span(self, index: int) -> tuple[int, int]:
        return int(self.starts[index]), int(self.ends[index])

    def page_range(self, index: int) -> list[int]:
        """Every page chunk ``index`` spans, in order (empty without pages)."""
        first, last = int(self.first_pages[index]), int(self.last_pages[index])
        return list(range(first, last + 1)) if first else []

    def texts(self, text: str) -> list[str]:
        return [text[s:e] for s, e in zip(self.starts.tolist(), self.ends.tolist(), strict=True)]

    def arrays(self) -> dict[str, np.ndarray]:
        return {
            "starts": self.starts,
            "ends": self.ends,
            "documents": self.documents,
            "pages": self.pages,
            "first_pages": self.first_pages,
            "last_pages": self.last_pages,
        }

    @classmethod
    def from_arrays(cls, arrays: Any) -> ChunkTable:
        return cls(**{name: np.asarray(arrays[name]) for name in _FIELDS})


_FIELDS = ("starts", "ends", "documents", "pages", "first_pages", "last_pages")


def chunk_text(
    text: str, chunking: Chunking, table: Sequence[dict[str, Any]] | None = None
) -> ChunkTable:
    """Chunk ``text``; with a corpus ``table`` (``Corpus.table``), chunk each document's
    span on its own, so no chunk crosses a document boundary, ending chunks at its page
    breaks and headings where it can."""
    entries = list(table) if table else [{"start": 0, "end": len(text), "pages": []}]
    columns: dict[str, list[np.ndarray]] = {name: [] for name in _FIELDS}
    for number, entry in enumerate(entries):
        begin, end = int(entry["start"]), int(entry["end"])
        pages = entry.get("pages") or []
        page_breaks = [int(p["start"]) for p in pages if begin < int(p["start"]) < end]
        heading_breaks = [
            int(h["start"]) for h in section_headings(entry) if begin < int(h["start"]) < end
        ]
        if page_breaks or heading_breaks:
            starts, ends = _parted_windows(text, begin, end, chunking, page_breaks, heading_breaks)
        else:
            starts = window_starts(end - begin, chunking) + begin
            ends = np.minimum(starts + chunking.size, end)
        starts, ends = _whole_rows(text, starts, ends, end)
        first, last, label = _page_labels(text, starts, ends, pages)
        columns["starts"].append(starts)
        columns["ends"].append(ends)
        columns["documents"].append(np.full(len(starts), number, dtype=np.int32))
        columns["pages"].append(label)
        columns["first_pages"].append(first)
        columns["last_pages"].append(last)
    return ChunkTable(
        **{
            name: np.concatenate(parts)
            if parts
            else np.zeros(0, dtype=np.int64 if name in ("starts", "ends") else np.int32)
            for name, parts in columns.items()
        }
    )


PAGED_SECTION_LEVEL = 2
"""In a document with pages (a PDF), the deepest headings that end chunks: a filing's parts
and items. Its deeper headings (a note, a statement, "Liquidity and Capital Resources") stay
in the section tree without cutting chunks: ending chunks at them too, or indexing chunks
with their titles, lowered hit@5 on the filings benchmark (``bench/filings.py``)."""


def section_headings(entry: dict[str, Any]) -> list[dict[str, Any]]:
    """The headings of a corpus table entry that search reads (chunk breaks, context
    words): all of a document without pages; of a paged one, those down to
    ``PAGED_SECTION_LEVEL``."""
    headings = list(entry.get("headings") or [])
    if not entry.get("pages"):
        return headings
    return [h for h in headings if int(h.get("level") or 1) <= PAGED_SECTION_LEVEL]


def _parted_windows(
    text: str,
    begin: int,
    end: int,
    chunking: Chunking,
    page_breaks: list[int],
    heading_breaks: list[int],
) -> tuple[np.ndarray, np.ndarray]:
    """Windows over ``[begin, end)`` that end at a page break or a heading when one lies in
    their later part (see the module's docstring); the next window then starts there."""
    size, overlap = chunking.size, chunking.overlap
    page_breaks, heading_breaks = sorted(set(page_breaks)), sorted(set(heading_breaks))
    starts: list[int] = []
    ends: list[int] = []
    position = begin
    at_break = True
    while True:
        stop = min(position + size, end)
        # A window that starts at a page's start ends at that page's end, however short
        # the page; one that starts with the overlap of the last page's text does not cut
        # a sliver of it off.
        cut = _first_between(page_breaks, position + (0 if at_break else size // 4), stop)
        if cut is None:
            cut = _first_between(heading_breaks, position + size // 2, stop)
        if cut is not None:
            if text[position:cut].strip():  # a blank page is no passage
                starts.append(position)
                ends.append(cut)
            position, at_break = cut, True
            continue
        starts.append(position)
        ends.append(stop)
        if stop >= end:
            break
        position, at_break = stop - overlap, False
        # A window that stops just short of a page break (only blank separator between):
        # the next starts at the break, not with the end of the page already covered.
        following = bisect.bisect_right(page_breaks, stop)
        if following < len(page_breaks) and not text[stop : page_breaks[following]].strip():
            position, at_break = page_breaks[following], True
    return np.array(starts, dtype=np.int64), np.array(ends, dtype=np.int64)


def _first_between(breaks: list[int], low: int, high: int) -> int | None:
    """The first of the sorted ``breaks`` in ``(low, high)``, or ``None``."""
    index = bisect.bisect_right(breaks, low)
    return breaks[index] if index < len(breaks) and breaks[index] < high else None


def _page_labels(
    text: str, starts: np.ndarray, ends: np.ndarray, pages: list[dict[str, int]]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each chunk's first page, last page and label (the page with most of its non-blank
    characters, the first on a tie); all 0 without pages."""
    if not pages:
        zeros = np.zeros(len(starts), dtype=np.int32)
        return zeros, zeros.copy(), zeros.copy()
    page_starts = np.array([page["start"] for page in pages], dtype=np.int64)
    numbers = np.array([page["page"] for page in pages], dtype=np.int32)

    def page_index(offsets: np.ndarray) -> np.ndarray:
        return np.maximum(np.searchsorted(page_starts, offsets, side="right") - 1, 0)

    first_index = page_index(starts)
    last_index = page_index(np.maximum(ends - 1, starts))
    label_index = first_index.copy()
    for chunk in np.flatnonzero(last_index > first_index).tolist():
        best, most = int(first_index[chunk]), -1
        for index in range(int(first_index[chunk]), int(last_index[chunk]) + 1):
            low = max(int(starts[chunk]), int(pages[index]["start"]))
            high = min(int(ends[chunk]), int(pages[index]["end"]))
            held = len("".join(text[low:high].split())) if high > low else 0
            if held > most:
                best, most = index, held
        label_index[chunk] = best
    return numbers[first_index], numbers[last_index], numbers[label_index]


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
