"""PDF tables come out as rows: each row one line, its cells tab-separated, under its
table's title and column headers, for a ruled table and for an unruled one that runs on into
the next page; a quote of a row is located on its page and holds under ``verify``; chunks
keep rows whole and are indexed with their table's headers."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pypdfium2
import pytest

from ralph_tui import verify
from ralph_tui.documents import pdf as pdf_module
from ralph_tui.documents.convert import extract
from ralph_tui.documents.pdf import pdf_pages
from ralph_tui.retrieval.chunks import Chunking, chunk_text, indexed_text, table_context
from ralph_tui.validate.locate import QuotableText, locate_quote
from tests.documents.fixtures import SEGMENT_ROWS, tables_pdf
from tests.reports.bundles import make_bundle, read_source, write_bundle

ROW = "Total current assets\t15,754\t14,200"


@pytest.fixture(autouse=True)
def isolated(clean_env: None) -> None:
    return None


def test_a_ruled_table_is_rows_under_its_title_and_headers(tmp_path: Path) -> None:
    pdf = tables_pdf(tmp_path / "filing.pdf")
    pages = extract(pdf.read_bytes(), "pdf", path=pdf).pages
    assert pages is not None
    lines = pages[0].splitlines()
    header = lines.index("\tDecember 31, 2023\tDecember 31, 2022")
    assert lines[header - 2 : header] == ["CONSOLIDATED BALANCE SHEETS", "(In millions)"]
    assert lines[header + 1 : header + 5] == [
        "Cash and cash equivalents\t$ 3,412\t$ 2,950",
        "Accounts receivable, net\t6,588\t5,904",
        "Inventories\t5,754\t5,346",
        ROW,
    ]
    assert "Cash rose on higher collections from customers in every region." in lines


def test_an_unruled_table_runs_on_into_the_next_page_as_rows(tmp_path: Path) -> None:
    pdf = tables_pdf(tmp_path / "filing.pdf")
    pages = extract(pdf.read_bytes(), "pdf", path=pdf).pages
    assert pages is not None and len(pages) == 2
    first = pages[0].splitlines()
    header = first.index("\t2023\t2022")
    assert first[header - 3 : header] == [
        "REVENUE BY SEGMENT",
        "Segment",
        "\tYear ended December 31",
    ]
    rows = [line for page in pages for line in page.splitlines() if "Region" in line]
    assert rows == ["\t".join(row) for row in SEGMENT_ROWS]
    assert pages[1].splitlines() == [row for row in rows if row not in first]


def test_no_character_of_the_page_is_lost_or_added(tmp_path: Path) -> None:
    pdf = tables_pdf(tmp_path / "filing.pdf")
    document = pypdfium2.PdfDocument(pdf)
    try:
        seen = [document[n].get_textpage().get_text_range() for n in range(len(document))]
    finally:
        document.close()
    laid = pdf_pages(pdf)
    assert laid != seen
    for before, after in zip(seen, laid, strict=True):
        assert Counter("".join(before.split())) == Counter("".join(after.split()))


def test_a_quoted_row_is_located_on_its_page_and_holds_under_verify(tmp_path: Path) -> None:
    pdf = tables_pdf(tmp_path / "filing.pdf")
    source, document = read_source(pdf)
    quotable = [QuotableText(document.name, document.text, document.pages)]
    location = locate_quote(1, ROW, quotable)
    assert location.found == "exact" and location.page == 1
    assert location.start is not None and document.text[location.start : location.end] == ROW
    continued = "\t".join(SEGMENT_ROWS[-1])
    on_page_two = locate_quote(2, continued, quotable)
    assert on_page_two.found == "exact" and on_page_two.page == 2
    # as a person reads the row off the page, spaces between the cells: a near miss there
    typed = locate_quote(3, "Total current assets 15,754 14,200", quotable)
    assert typed.found == "near" and (typed.start, typed.end) == (location.start, location.end)
    quotes = [location, on_page_two, typed]
    bundle = write_bundle(tmp_path / "b.json", make_bundle([source], quotes))

    report = verify(bundle, out_dir=tmp_path / "out")
    assert report.ok, report.quotes
    assert [quote.status for quote in report.quotes] == ["holds", "holds", "holds"]


def test_chunks_keep_rows_whole_and_carry_their_tables_headers(tmp_path: Path) -> None:
    pdf = tables_pdf(tmp_path / "filing.pdf")
    extracted = extract(pdf.read_bytes(), "pdf", path=pdf)
    text = extracted.text
    chunks = chunk_text(text, Chunking(size=120, overlap=20))
    rows = {line for line in text.splitlines() if "\t" in line}
    for start, end in zip(chunks.starts.tolist(), chunks.ends.tolist(), strict=True):
        for line in text[start:end].strip("\n").splitlines():
            assert line in rows or "\t" not in line, (start, end, line)
    # a chunk on page 2, far below the headers on page 1, is indexed under them
    late = text.index("\t".join(SEGMENT_ROWS[-1]))
    context = table_context(text, late)
    assert context == "REVENUE BY SEGMENT\nSegment\n\tYear ended December 31\n\t2023\t2022\n"
    assert indexed_text(text, late, late + 10).startswith(context)
    assert table_context(text, text.index("Cash rose")) == ""


def test_a_long_pdf_converted_in_child_processes_lays_out_its_tables_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pdf = tables_pdf(tmp_path / "filing.pdf")
    in_process = pdf_pages(pdf)
    monkeypatch.setattr(pdf_module, "PARALLEL_FROM_PAGES", 1)
    monkeypatch.setattr("os.cpu_count", lambda: 2)
    assert pdf_pages(pdf) == in_process
    assert ROW in in_process[0]
