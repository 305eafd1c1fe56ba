"""The page leg: BM25 over whole pages, each page nominating its best chunk.

A question about a statement ("current assets at the end of 2019, balance sheet") often
matches a page as a whole (its title, its column headers, the line) better than any one
window of it. The page leg ranks pages by BM25 and puts forward, for each of the best pages,
the chunk of that page that the chunk leg scores highest; the fusion then counts that page
evidence beside the chunk and dense legs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ralph_tui.retrieval.chunks import ChunkTable
from ralph_tui.retrieval.lexical import LexicalIndex


@dataclass(frozen=True)
class PageUnits:
    """The pages of a corpus's paged documents, as spans, and each chunk's page among them
    (-1: its document has no pages)."""

    spans: list[tuple[int, int, str]]
    """Each page's start, end and context words (its document's name, with several)."""
    chunk_page: np.ndarray


def page_units(
    chunks: ChunkTable, table: Sequence[dict[str, Any]] | None, names: list[str]
) -> PageUnits | None:
    """The pages of ``table``'s documents (``None`` when none has pages); ``names`` holds
    each document's context words."""
    spans: list[tuple[int, int, str]] = []
    unit_of: dict[tuple[int, int], int] = {}
    for number, entry in enumerate(table or ()):
        for page in entry.get("pages") or []:
            unit_of[(number, int(page["page"]))] = len(spans)
            spans.append((int(page["start"]), int(page["end"]), names[number]))
    if not spans:
        return None
    chunk_page = np.fromiter(
        (
            unit_of.get((document, page), -1)
            for document, page in zip(chunks.documents.tolist(), chunks.pages.tolist(), strict=True)
        ),
        dtype=np.int32,
        count=len(chunks),
    )
    return PageUnits(spans, chunk_page)


class PageLeg:
    """BM25 over pages, and the page each chunk is labelled with."""

    def __init__(self, lexical: LexicalIndex, chunk_page: np.ndarray) -> None:
        self.lexical = lexical
        self.chunk_page = chunk_page

    def nominate(
        self,
        query: str,
        chunk_scores: np.ndarray | None,
        n: int,
        allowed: np.ndarray | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """The best chunk of each of the ``n`` best pages for ``query`` (by ``chunk_scores``,
        the chunk leg's; the page's first chunk without), page order, with the page scores;
        only pages with a chunk in the boolean mask ``allowed``, when given."""
        hits = self.lexical.search(query)
        if hits is None:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
        if allowed is not None:
            pages = np.zeros(len(hits.scores), dtype=bool)
            pages[self.chunk_page[allowed & (self.chunk_page >= 0)]] = True
            hits = hits.within(pages)
        chosen: list[int] = []
        values: list[float] = []
        for page in hits.top(n).tolist():
            members = np.flatnonzero(self.chunk_page == page)
            if not len(members):
                continue
            if chunk_scores is not None:
                members = members[np.argsort(-chunk_scores[members], kind="stable")]
            chosen.append(int(members[0]))
            values.append(float(hits.scores[page]))
        return np.array(chosen, dtype=np.int64), np.array(values, dtype=np.float32)
