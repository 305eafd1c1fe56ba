"""Chunks keep a table row (a line with tab-separated cells) whole and are indexed under
their table's title and headers; a text that only has tabs (code, a very long line) is
chunked as any text."""

from __future__ import annotations

from ralph_tui.retrieval.chunks import (
    MAX_ROW,
    Chunking,
    chunk_text,
    indexed_text,
    table_context,
)

TABLE = (
    "Some prose before the table that is long enough to be a paragraph of the filing text.\n"
    "CONSOLIDATED BALANCE SHEETS\n"
    "(In millions)\n"
    "\tSeptember 30, 2017\tSeptember 24, 2016\n"
    "Current assets:\n"
    + "".join(f"Line item number {n}\t{n},000\t{n},500\n" for n in range(1, 40))
    + "Total current assets\t128,645\t106,869\n"
)


def test_no_chunk_cuts_a_row() -> None:
    chunks = chunk_text(TABLE, Chunking(size=100, overlap=20))
    rows = {line for line in TABLE.splitlines() if "\t" in line}
    for text in chunks.texts(TABLE):
        for line in text.strip("\n").splitlines():
            assert "\t" not in line or line in rows, repr(text)


def test_a_chunk_inside_a_table_is_indexed_under_its_title_and_headers() -> None:
    row = TABLE.index("Total current assets")
    context = (
        "CONSOLIDATED BALANCE SHEETS\n(In millions)\n\tSeptember 30, 2017\tSeptember 24, 2016\n"
    )
    assert table_context(TABLE, row) == context
    assert indexed_text(TABLE, row, row + 20) == context + "Total current assets"
    assert table_context(TABLE, TABLE.index("Some prose")) == ""
    assert table_context(TABLE, TABLE.index("\tSeptember 30")) == ""


def test_a_paragraph_between_ends_the_table_above() -> None:
    text = (
        TABLE
        + "A paragraph of prose that goes on well beyond a label line's length, as text does.\n"
    )
    text += "Other item\t1\t2\n"
    assert table_context(text, text.index("Other item")) == ""


def test_a_very_long_line_with_tabs_is_cut_as_any_text() -> None:
    text = "a\tb " * (MAX_ROW // 2)
    chunking = Chunking(size=200, overlap=50)
    chunks = chunk_text(text, chunking)
    assert max(e - s for s, e in zip(chunks.starts, chunks.ends, strict=True)) == chunking.size
    code = "def f():\n" + "\tx = 1\n" * 2000
    assert all(table_context(code, s) == "" for s in chunk_text(code, chunking).starts.tolist())
