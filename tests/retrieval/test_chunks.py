"""Chunks are exact spans of the text, cover all of it, and never cross a document."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ralph_tui.retrieval.chunks import CELL, MAX_ROW, Chunking, chunk_text


@given(
    text=st.text(min_size=0, max_size=3000).map(lambda text: text.replace(CELL, " ")),
    size=st.integers(min_value=1, max_value=600),
    overlap_part=st.floats(min_value=0, max_value=0.99),
)
def test_chunks_are_exact_overlapping_spans_covering_the_text(
    text: str, size: int, overlap_part: float
) -> None:
    """Text without table rows (no tab): windows of ``size``, stepping by ``size - overlap``."""
    chunking = Chunking(size=size, overlap=int(size * overlap_part))
    table = chunk_text(text, chunking)
    texts = table.texts(text)
    for index, piece in enumerate(texts):
        start, end = table.span(index)
        assert piece == text[start:end] and 0 < end - start <= size
    covered = set()
    for index in range(len(table)):
        covered.update(range(*table.span(index)))
    assert covered == set(range(len(text)))
    for index in range(1, len(table)):
        assert table.span(index)[0] - table.span(index - 1)[0] == size - chunking.overlap


def line_around(text: str, at: int) -> tuple[int, int]:
    """The span of the line holding offset ``at`` (a newline at ``at`` ends it)."""
    end = text.find("\n", at)
    return text.rfind("\n", 0, at) + 1, len(text) if end == -1 else end


@given(
    text=st.text(alphabet=st.sampled_from("ab 0\n\t."), max_size=3000) | st.text(max_size=3000),
    size=st.integers(min_value=1, max_value=600),
    overlap_part=st.floats(min_value=0, max_value=0.99),
)
def test_chunks_keep_table_rows_whole_and_cover_the_text(
    text: str, size: int, overlap_part: float
) -> None:
    """A chunk never begins or ends inside a table row (a line holding a tab, at most
    ``MAX_ROW`` long): it is widened to the row's ends, so it may pass ``size`` by a row on
    each side; chunks stay exact spans covering the text."""
    table = chunk_text(text, Chunking(size=size, overlap=int(size * overlap_part)))
    covered = set()
    for index, piece in enumerate(table.texts(text)):
        start, end = table.span(index)
        assert piece == text[start:end] and 0 < end - start <= size + 2 * MAX_ROW
        covered.update(range(start, end))
        for at in (start, end):
            row_start, row_end = line_around(text, at)
            row = text[row_start:row_end]
            if CELL in row and len(row) <= MAX_ROW:
                assert not row_start < at < row_end, (at, row)
    assert covered == set(range(len(text)))


@given(lengths=st.lists(st.integers(min_value=0, max_value=900), min_size=1, max_size=5))
def test_no_chunk_crosses_a_document_boundary(lengths: list[int]) -> None:
    entries, start = [], 0
    for number, length in enumerate(lengths):
        entries.append({"name": f"f{number}", "start": start, "end": start + length, "pages": []})
        start += length + 2  # the separator between documents belongs to neither
    text = "x" * start
    table = chunk_text(text, Chunking(size=100, overlap=20), entries)
    for index in range(len(table)):
        begin, end = table.span(index)
        entry = entries[int(table.documents[index])]
        assert entry["start"] <= begin < end <= entry["end"]


def test_a_chunk_carries_the_page_its_start_lies_on() -> None:
    text = "a" * 1000
    pages = [{"page": 1, "start": 0, "end": 400}, {"page": 2, "start": 400, "end": 1000}]
    table = chunk_text(
        text, Chunking(size=200, overlap=0), [{"start": 0, "end": 1000, "pages": pages}]
    )
    assert [int(p) for p in table.pages] == [1, 1, 2, 2, 2]


@pytest.mark.parametrize(
    ("size", "overlap", "message"),
    [(0, 0, "chunk size must be positive"), (-5, 0, "chunk size"), (100, 100, "overlap")],
)
def test_bad_chunking_is_refused(size: int, overlap: int, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Chunking(size=size, overlap=overlap)


@given(
    lengths=st.lists(st.integers(min_value=0, max_value=700), min_size=1, max_size=6),
    headings=st.lists(st.integers(min_value=0, max_value=4000), max_size=6),
    size=st.integers(min_value=1, max_value=600),
    overlap_part=st.floats(min_value=0, max_value=0.99),
)
def test_chunks_that_follow_pages_and_headings_stay_exact_and_cover_every_page(
    lengths: list[int], headings: list[int], size: int, overlap_part: float
) -> None:
    pages, text = [], ""
    for number, length in enumerate(lengths, 1):
        if pages:
            text += "\n\n"
        pages.append({"page": number, "start": len(text), "end": len(text) + length})
        text += "abc d" * (length // 5) + "e" * (length % 5)
    marks = [{"level": 1, "title": "H", "start": h} for h in headings if h < len(text)]
    entry = {"name": "a.pdf", "start": 0, "end": len(text), "pages": pages, "headings": marks}
    chunking = Chunking(size=size, overlap=int(size * overlap_part))
    table = chunk_text(text, chunking, [entry])
    covered: set[int] = set()
    for index in range(len(table)):
        start, end = table.span(index)
        assert 0 <= start < end <= len(text) and end - start <= size
        covered.update(range(start, end))
        first, last = int(table.first_pages[index]), int(table.last_pages[index])
        assert first <= int(table.pages[index]) <= last
    for page in pages:
        assert set(range(page["start"], page["end"])) <= covered
