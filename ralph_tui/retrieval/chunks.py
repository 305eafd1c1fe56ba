"""Chunks: overlapping character windows of a text, each an exact span of it.

A chunk is ``text[start:end]``, so any text cut from one is a verbatim substring that
evidence can cite. In a corpus a chunk never crosses from one document into the next, and
carries the document (and, for a PDF, the page its start lies on).
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
        return f"c{self.size}o{self.overlap}"


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
        starts.append(local)
        ends.append(np.minimum(local + chunking.size, end))
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
