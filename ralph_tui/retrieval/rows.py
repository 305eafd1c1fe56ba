"""The row leg: a question about a line item is answered by the table row of that item.

Every word of "What did Corning report as its current assets at the end of 2015?" is
common in an annual report, so no leg ranked the balance sheet's row ``Total current
assets<TAB>8,269<TAB>10,238`` among its best fifteen, though a person reading the filing
goes straight to such a row. A table row names its line item in its first cell; when the
question holds that label's words as a run of its own words, the row is what it asks about.

At index time each table row — a line whose cells are tab-separated (as PDF tables are kept,
``ralph_tui.documents.pdf_tables``) or a Markdown table row (``| label | 1,234 |``), with a
figure in a cell after its label — gives its label as a key (``label_key``): the label's
content words, folded and stemmed as every other term is (``ralph_tui.words``), less a
leading "Total" or "Net", at least ``MIN_LABEL_TERMS`` of them. A label that starts or ends
with a stop word ("Other current assets") names another item and gives none. The key maps
to the chunks holding the row (``RowIndex``, cached with the index).

A query's content words (stop words aside) are looked up run by run: every run of two or
more that is a key puts forward the chunks under it (``nominate``), the longest labels
first, then by the chunk leg's score; the fusion counts that ranking as one more vote, as
it counts the page leg's, so a row no other leg ranked can still be a candidate.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from ralph_tui.retrieval.chunks import ChunkTable
from ralph_tui.words import (
    LEADING,
    STOP_WORDS,
    fold,
    is_content,
    key_terms,
    stem,
    table_row,
    words_of,
)

MIN_LABEL_TERMS = 2
"""A label of one word ("Revenue", "Goodwill") names too little to single out a row."""
MAX_LABEL_TERMS = 12
"""Content words of the longest label kept (a longer first cell is a sentence)."""
MAX_QUERY_TERMS = 200
"""Query words looked at (a query is bounded elsewhere; this bounds the look-ups)."""


def row_labels(text: str) -> Iterator[tuple[int, tuple[str, ...]]]:
    """Each table row of ``text`` with a figure after its label, when the label makes a
    key: the row's offset and the key (a label read once, however often it recurs)."""
    keys: dict[str, tuple[str, ...]] = {}
    for start, line in _rows(text):
        row = table_row(line)
        if row is None:
            continue
        label = row[0]
        key = keys.get(label)
        if key is None:
            key = keys[label] = label_key(label)
        if key:
            yield start, key


def _rows(text: str) -> Iterator[tuple[int, str]]:
    """Each line holding a tab or a bar (a table row's cells, ``table_row`` tells), with its
    offset; found by the tabs and bars, not by reading every line. A row without cells
    (a label and figures) is not looked for: finding it would mean reading every line."""
    for mark in ("\t", "|"):
        at = text.find(mark)
        while at != -1:
            start = text.rfind("\n", 0, at) + 1
            end = text.find("\n", at)
            end = len(text) if end == -1 else end
            line = text[start:end]
            if mark == "\t" or "\t" not in line:
                yield start, line
            at = text.find(mark, end)


def label_key(label: str) -> tuple[str, ...]:
    """A row label's terms (its content words' stems), less a leading "Total" or "Net";
    empty when fewer than ``MIN_LABEL_TERMS`` are left, or when the label starts or ends
    with a stop word: "Other current assets" is another line item than the current assets,
    while a stop word within a label only joins its words ("Research and development")."""
    words = words_of(label)
    while words and stem(words[0]) in LEADING:
        words = words[1:]
    if not words or fold(words[0]) in STOP_WORDS or fold(words[-1]) in STOP_WORDS:
        return ()
    terms = tuple(stem(word) for word in words if is_content(word))
    return terms if MIN_LABEL_TERMS <= len(terms) <= MAX_LABEL_TERMS else ()


class RowIndex:
    """Each row label's key (its terms joined by spaces) and the chunks holding such a row."""

    def __init__(self, rows: dict[str, list[int]]) -> None:
        self.rows = rows

    @classmethod
    def build(cls, text: str, chunks: ChunkTable) -> RowIndex:
        """The row labels of ``text``, each with the chunks whose span holds its row."""
        rows: dict[str, list[int]] = {}
        if "\t" not in text and "|" not in text:
            return cls(rows)
        found = list(row_labels(text))
        if not found:
            return cls(rows)
        offsets = np.array([offset for offset, _ in found], dtype=np.int64)
        # Chunks are sorted by start and overlap only their neighbours: a row lies in the
        # last chunk starting at or before it, and maybe in the one or two before that.
        last = np.searchsorted(chunks.starts, offsets, side="right") - 1
        starts, ends = chunks.starts.tolist(), chunks.ends.tolist()
        for (offset, terms), newest in zip(found, last.tolist(), strict=True):
            holders = [
                chunk
                for chunk in range(newest, max(-1, newest - 3), -1)
                if starts[chunk] <= offset < ends[chunk]
            ]
            if holders:
                chunk_ids = rows.setdefault(" ".join(terms), [])
                chunk_ids.extend(chunk for chunk in reversed(holders) if chunk not in chunk_ids)
        return cls(rows)

    @classmethod
    def from_json(cls, data: object, chunks: int) -> RowIndex:
        """The index as ``rows`` was saved (JSON), checked against ``chunks`` chunks;
        ``ValueError`` when it is not such an index."""
        if not isinstance(data, dict):
            raise ValueError("table rows are not a JSON object")
        for key, found in data.items():
            if not key or not isinstance(found, list):
                raise ValueError(f"table row {key!r} has no chunk list")
            if not all(isinstance(c, int) and 0 <= c < chunks for c in found):
                raise ValueError(f"table row {key!r} names a chunk outside the {chunks} chunks")
        return cls(data)

    def match(self, query: str) -> dict[int, int]:
        """Each chunk holding a row whose label is a run of ``query``'s content words (stop
        words aside: "current assets at the end of 2015" holds "current assets"), with the
        most label words of such a row it holds."""
        asked = key_terms(query)[:MAX_QUERY_TERMS]
        found: dict[int, int] = {}
        for first in range(len(asked)):
            longest = min(len(asked), first + MAX_LABEL_TERMS)
            for last in range(first + MIN_LABEL_TERMS, longest + 1):
                for chunk in self.rows.get(" ".join(asked[first:last]), ()):
                    found[chunk] = max(found.get(chunk, 0), last - first)
        return found

    def nominate(
        self,
        query: str,
        chunk_scores: np.ndarray | None,
        n: int,
        allowed: np.ndarray | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """The ``n`` chunks best matched by a row label (``match``): the longest labels
        first, then by ``chunk_scores`` (the chunk leg's), then in document order; only
        chunks in the boolean mask ``allowed``, when given. With each, its label's length."""
        found = self.match(query)
        if allowed is not None:
            found = {chunk: size for chunk, size in found.items() if allowed[chunk]}
        if not found:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)

        def score(chunk: int) -> float:
            return float(chunk_scores[chunk]) if chunk_scores is not None else 0.0

        order = sorted(found, key=lambda chunk: (-found[chunk], -score(chunk), chunk))[:n]
        return (
            np.array(order, dtype=np.int64),
            np.array([found[chunk] for chunk in order], dtype=np.float32),
        )
