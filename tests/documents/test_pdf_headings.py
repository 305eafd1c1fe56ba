"""A PDF's headings: its outline when it has one; else the numbered headings of an annual
report ("PART II", "Item 7. ...", "Note 12 — Debt", "Consolidated Balance Sheets"), never a
running header repeated on every page, a table's row, a contents line or a sentence that
happens to begin with "Item 7". They reach the corpus table (the sandbox's ``documents``,
the LCM prompt) at the place their title stands in the text."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from ralph_tui.documents import read_corpus
from ralph_tui.documents.convert import extract
from ralph_tui.documents.pdf_headings import pdf_headings

RUNNING_HEADER = "ACME CORPORATION - ANNUAL REPORT 2023"


@pytest.fixture(autouse=True)
def isolated(clean_env: None) -> None:
    return None


def _pdf(path: Path, pages: list[list[str]], outline: dict[tuple[int, int], int] | None = None):
    """A letter-size PDF with one line of text per entry of each page; ``outline`` makes
    the line ``(page, line)`` a bookmark of the given level (0 the top)."""
    from fpdf import FPDF

    pdf = FPDF(format="letter")
    pdf.set_auto_page_break(False)
    pdf.set_font("Helvetica", size=10)
    for page_number, lines in enumerate(pages):
        pdf.add_page()
        for line_number, line in enumerate(lines):
            level = (outline or {}).get((page_number, line_number))
            if level is not None:
                pdf.start_section(line, level=level)
            pdf.set_xy(20, 15 + 7 * line_number)
            if "\t" in line:  # a table row: its cells in columns
                for column, cell in enumerate(line.split("\t")):
                    pdf.set_x(20 + 90 * min(column, 1) + 40 * max(column - 1, 0))
                    pdf.cell(90 if column == 0 else 40, 6, cell, align="L" if column == 0 else "R")
            else:
                pdf.cell(170, 6, line)
    path.write_bytes(bytes(pdf.output()))
    return path


BODY = "The company sells widgets to customers in every region of the world."


def _filing_pages() -> list[list[str]]:
    """Four pages of a filing without an outline: contents, two items, a statement and a
    note; each page under the same running header and over a page-number footer."""
    pages = [
        [
            "Table of Contents",
            "PART I",
            "Item 1. Business 3",
            "Item 1A. Risk Factors 4",
            "Item 7. Management's Discussion and Analysis 5",
            "Note 12 - Debt 9",
        ],
        [
            "PART I",
            "Item 1. Business",
            BODY,
            "Item 7 of our Annual Report on Form 10-K for 2022 describes the prior year.",
            BODY,
        ],
        [
            "PART II",
            "Item 7. Management's Discussion and Analysis",
            BODY,
            "Consolidated Balance Sheets",
            "Total current assets\t15,754\t14,200",
            "Total assets\t40,112\t38,900",
        ],
        [
            "Note 12 - Debt",
            "Long-term debt rose after the company issued notes due in 2030.",
            "Note 12 describes the terms of every issue.",
        ],
    ]
    return [[RUNNING_HEADER, *lines, f"Page {number}"] for number, lines in enumerate(pages, 1)]


def test_numbered_headings_of_a_filing_without_an_outline(tmp_path: Path) -> None:
    pdf = _pdf(tmp_path / "filing.pdf", _filing_pages())
    extracted = extract(pdf.read_bytes(), "pdf", path=pdf)
    found = [(heading.level, heading.title) for heading in extracted.headings]
    assert found == [
        (1, "PART I"),
        (2, "Item 1. Business"),
        (1, "PART II"),
        (2, "Item 7. Management's Discussion and Analysis"),
        (3, "Consolidated Balance Sheets"),
        (3, "Note 12 - Debt"),
    ]
    for heading in extracted.headings:
        assert extracted.text[heading.start : heading.start + len(heading.title)] == heading.title
    assert extracted.pages is not None
    # Each is where it stands in the text: on its page, not on the contents page.
    page_two = extracted.text.index(extracted.pages[1])
    assert extracted.headings[0].start > page_two


def test_a_running_header_is_no_heading_even_when_it_looks_like_one(tmp_path: Path) -> None:
    # "PART II" and "Item 7" above every page of a section, as many filings print them.
    pages = [["PART II", "Item 7", BODY, f"{number}"] for number in range(30, 35)]
    pages[1].insert(2, "Liquidity and Capital Resources")
    pdf = _pdf(tmp_path / "running.pdf", pages)
    extracted = extract(pdf.read_bytes(), "pdf", path=pdf)
    assert [heading.title for heading in extracted.headings] == ["Liquidity and Capital Resources"]


def test_the_outline_gives_the_headings_when_there_is_one(tmp_path: Path) -> None:
    pages = _filing_pages()
    # Bookmarks for two titles only: the outline is what the author said, detection stays out.
    outline = {(1, 2): 0, (3, 1): 1}
    pdf = _pdf(tmp_path / "outlined.pdf", pages, outline)
    extracted = extract(pdf.read_bytes(), "pdf", path=pdf)
    found = [(heading.level, heading.title) for heading in extracted.headings]
    assert found == [(1, "Item 1. Business"), (2, "Note 12 - Debt")]
    heading = extracted.headings[1]
    assert extracted.pages is not None
    assert heading.start >= extracted.text.index(extracted.pages[3])


def test_headings_reach_the_corpus_table(tmp_path: Path) -> None:
    first = _pdf(tmp_path / "a.pdf", _filing_pages())
    second = tmp_path / "b.md"
    second.write_text("# Overview\n\nPlain notes.\n", encoding="utf-8")
    corpus = read_corpus([first, second])
    entry = next(e for e in corpus.table if e["name"].endswith("a.pdf"))
    titles = [heading["title"] for heading in entry["headings"]]
    assert "Item 7. Management's Discussion and Analysis" in titles
    for heading in entry["headings"]:
        start = heading["start"]
        assert corpus.text[start : start + len(heading["title"])] == heading["title"]
        assert entry["start"] <= start < entry["end"]


def test_rows_contents_lines_and_sentences_are_no_headings() -> None:
    pages = [
        "Item 1. Business\t3\nItem 1A. Risk Factors\t4\nItem 2. Properties\t9\nPART II\t10",
        "Note 3 - Leases\t1,200\t1,100\n"
        "Note 4 describes the leases.\n"
        "Item 8 of this Report.\n"
        "consolidated balance sheets.\n"
        "Consolidated Balance Sheets as of December 31, 2023 and 2022\n"
        "1. The employee shall vest in the award over four years.\n"
        "Note 4 - Leases",
    ]
    assert [(level, title) for level, title, _, _ in pdf_headings(pages)] == [
        (3, "Note 4 - Leases")
    ]


def test_a_hostile_page_is_read_in_bounded_time() -> None:
    # A contents-like line of dots (quadratic for a naive pattern) and thousands of
    # bookmarks that match nothing, on long pages: each read a bounded number of times.
    dots = "ITEM 7 " + "." * 50_000 + "x"
    started = time.perf_counter()
    assert pdf_headings([dots]) == []
    pages = ["word " * 100_000] * 3
    outline = [(0, "Item 7. Nowhere to be found", n % 3) for n in range(5000)]
    assert pdf_headings(pages, outline) == []
    assert time.perf_counter() - started < 10
