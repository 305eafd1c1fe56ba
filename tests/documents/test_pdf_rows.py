"""A PDF whose text pdfium runs together (a filing printed to PDF at a quarter of its size:
each page's rows come out as one line) reads as the page shows it: each row its own line,
a table's rows tab-separated under their headers (a label wrapped over several lines
read as one), a heading on its own line found as one;
no character lost (a line break put in where pdfium ran two rows together with no space
between them), and a quote of a row holds under ``verify``."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pypdfium2
import pytest

from ralph_tui import verify
from ralph_tui.documents import pdf as pdf_module
from ralph_tui.documents.convert import extract
from ralph_tui.documents.pdf import pdf_pages
from ralph_tui.validate.locate import QuotableText, locate_quote
from tests.documents.fixtures import (
    SIDEWAYS_LINES,
    SMALL_PRINT_PROSE,
    SMALL_PRINT_ROWS,
    SMALL_PRINT_SECTION,
    sideways_pdf,
    small_print_pdf,
    write_pdf,
)
from tests.reports.bundles import make_bundle, read_source, write_bundle

ROW = "Total current assets\t8,269\t10,238"
HEADING = "Item 8. Financial Statements and Supplementary Data"


@pytest.fixture(autouse=True)
def isolated(clean_env: None) -> None:
    return None


def _pdfium_text(pdf: Path) -> str:
    document = pypdfium2.PdfDocument(pdf)
    try:
        return str(document[0].get_textpage().get_text_range())
    finally:
        document.close()


def test_pdfium_runs_the_rows_of_such_a_page_together(tmp_path: Path) -> None:
    # the case the conversion handles: rows of the page on one line of pdfium's text
    raw = _pdfium_text(small_print_pdf(tmp_path / "filing.pdf")).splitlines()
    assert any("Consolidated Balance Sheets 2015 2014 Current" in line for line in raw), raw
    # and a row that starts just left of where the row above it ends, with no space at all
    assert any(f"{SMALL_PRINT_SECTION}Cash and cash" in line for line in raw), raw
    assert any(" ".join(SMALL_PRINT_PROSE) in line for line in raw), raw


def test_each_row_of_the_page_is_a_line_and_the_table_rows_are_cells(tmp_path: Path) -> None:
    pdf = small_print_pdf(tmp_path / "filing.pdf")
    extracted = extract(pdf.read_bytes(), "pdf", path=pdf)
    assert extracted.pages is not None
    assert extracted.pages[0].splitlines() == [
        HEADING,
        "Consolidated Balance Sheets",
        "\t2015\t2014",
        SMALL_PRINT_SECTION,
        *("\t".join(row) for row in SMALL_PRINT_ROWS),
        "Net cash provided by operating activities\t2,809\t4,709",
        *SMALL_PRINT_PROSE,
    ]
    assert [(h.level, h.title) for h in extracted.headings][:1] == [(2, HEADING)]


def test_lines_set_sideways_stay_whole(tmp_path: Path) -> None:
    # reading down the page, each word stands below the one before: still one line
    pdf = sideways_pdf(tmp_path / "landscape.pdf")
    assert pdf_pages(pdf)[0].splitlines() == SIDEWAYS_LINES


def test_a_word_hyphenated_across_two_rows_ends_its_row(tmp_path: Path) -> None:
    # pdfium joins a row ending in a hyphen to the next row: the rest of that row comes back
    # on its own line (the word stays whole, on the row it starts on)
    rows = ["Sales rose in third-", "party channels and in", "Re-", "sults of operations rose."]
    lines = pdf_pages(write_pdf(tmp_path / "hyphens.pdf", [rows]))[0].splitlines()
    assert [line.split()[-1] for line in lines] == [
        "third\ufffeparty",
        "in",
        "Re\ufffesults",
        "rose.",
    ]
    assert lines[1] == "channels and in" and lines[3] == "of operations rose."


def test_no_character_of_the_page_is_lost_or_added(tmp_path: Path) -> None:
    pdf = small_print_pdf(tmp_path / "filing.pdf")
    before, (after,) = _pdfium_text(pdf), pdf_pages(pdf)
    assert Counter("".join(before.split())) == Counter("".join(after.split()))


def test_a_row_quoted_from_such_a_page_holds_under_verify(tmp_path: Path) -> None:
    pdf = small_print_pdf(tmp_path / "filing.pdf")
    source, document = read_source(pdf)
    quotable = [QuotableText(document.name, document.text, document.pages)]
    row = locate_quote(1, ROW, quotable)
    assert row.found == "exact" and row.page == 1
    line = locate_quote(2, SMALL_PRINT_PROSE[0], quotable)
    assert line.found == "exact" and line.page == 1
    bundle = write_bundle(tmp_path / "b.json", make_bundle([source], [row, line]))

    report = verify(bundle, out_dir=tmp_path / "out")
    assert report.ok, report.quotes
    assert [quote.status for quote in report.quotes] == ["holds", "holds"]


def test_child_processes_break_the_rows_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pdf = small_print_pdf(tmp_path / "filing.pdf")
    in_process = pdf_pages(pdf)
    monkeypatch.setattr(pdf_module, "PARALLEL_FROM_PAGES", 1)
    monkeypatch.setattr("os.cpu_count", lambda: 2)
    assert pdf_pages(pdf) == in_process
    assert ROW in in_process[0]
