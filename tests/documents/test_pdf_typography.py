"""A PDF with neither an outline nor a filing's numbering (a report, a manual) has its
headings told by its typography: its lines set larger than the body text, or bold, with
levels by size; never a running header set bold on every page, a table's row set bold, a
bold sentence or the entries of a contents page. They reach the corpus table and the
chunks as numbered and outline headings do; a PDF with an outline or numbering keeps those."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from ralph_tui.documents import convert, read_corpus
from ralph_tui.documents.convert import extract
from ralph_tui.documents.pdf import pdf_page_styles
from ralph_tui.documents.pdf_styles import PageStyle, Standing
from ralph_tui.documents.pdf_typography import typography_headings
from ralph_tui.retrieval.chunks import Chunking, chunk_text
from tests.documents.fixtures import Styled, bold_by_descriptor, styled_pdf


@pytest.fixture(autouse=True)
def isolated(clean_env: None) -> None:
    return None


BODY = "The pumps were serviced twice this year and the filters were replaced in spring."
RUNNING: Styled = ("Northwind Water Utility - Annual Review 2023", "F2", 10)
"""A running header set bold above every page: no heading."""


def _report() -> list[list[Styled]]:
    """Three pages of a report without bookmarks or numbering of a filing: a title in 24
    points, sections in 16, a subsection in bold at the body's 10; a table with a bold
    header row and a bold total row; a bold sentence; a page-number footer in 8."""
    return [
        [
            RUNNING,
            ("Annual Review of Operations", "F1", 24),
            ("Prepared for the board", "F1", 10),
            ("1 Introduction", "F1", 16),
            (BODY, "F1", 10),
            (BODY, "F1", 10),
            ("Scope of this review", "F2", 10),
            (BODY, "F1", 10),
            ("Page 1", "F1", 8),
        ],
        [
            RUNNING,
            ("2 Operations", "F1", 16),
            (BODY, "F1", 10),
            ("Revenue by service", "F1", 10),
            ("Service\t2023\t2022", "F2", 10),
            ("Water supply\t1,234\t1,100", "F1", 10),
            ("Wastewater\t2,222\t2,110", "F1", 10),
            ("Total revenue\t3,456\t3,210", "F2", 10),
            (BODY, "F1", 10),
            ("Page 2", "F1", 8),
        ],
        [
            RUNNING,
            ("3 Outlook", "F1", 16),
            (BODY, "F1", 10),
            ("Note: the figures above are unaudited.", "F2", 10),
            (BODY, "F1", 10),
            ("Page 3", "F1", 8),
        ],
    ]


EXPECTED = [
    (1, "Annual Review of Operations"),
    (2, "1 Introduction"),
    (3, "Scope of this review"),
    (2, "2 Operations"),
    (2, "3 Outlook"),
]


def test_a_reports_headings_by_their_size_and_weight(tmp_path: Path) -> None:
    pdf = styled_pdf(tmp_path / "report.pdf", _report())
    extracted = extract(pdf.read_bytes(), "pdf", path=pdf)
    assert [(heading.level, heading.title) for heading in extracted.headings] == EXPECTED
    assert extracted.pages is not None
    for heading in extracted.headings:
        assert extracted.text[heading.start : heading.start + len(heading.title)] == heading.title
    # Each on its own page, where it stands (not the first page's running header).
    outlook = extracted.headings[-1]
    assert outlook.start > extracted.text.index(extracted.pages[2])
    # The bold total row is still a row of its table in the text.
    assert "Total revenue\t3,456\t3,210" in extracted.pages[1]


@pytest.mark.parametrize("descriptor", [b"/FontWeight 700 /Flags 32", b"/Flags 262176"])
def test_a_bold_face_is_told_by_its_weight_or_flag_when_its_name_says_nothing(
    tmp_path: Path, descriptor: bytes
) -> None:
    # The subsection and the bold rows set in "Caslon", bold by its descriptor only.
    pdf = styled_pdf(tmp_path / "report.pdf", _report(), bold_font=bold_by_descriptor(descriptor))
    extracted = extract(pdf.read_bytes(), "pdf", path=pdf)
    assert [(heading.level, heading.title) for heading in extracted.headings] == EXPECTED


def test_typography_headings_reach_the_corpus_table_and_end_chunks(tmp_path: Path) -> None:
    pages = _report()
    # A long introduction with a section of the same size in the middle of the page.
    background: Styled = ("Background and aims", "F1", 16)
    pages[0][4:6] = [(BODY, "F1", 10)] * 12 + [background] + [(BODY, "F1", 10)] * 12
    pdf = styled_pdf(tmp_path / "report.pdf", pages)
    corpus = read_corpus([pdf])
    (entry,) = corpus.table
    titles = [(heading["level"], heading["title"]) for heading in entry["headings"]]
    assert titles == [*EXPECTED[:2], (2, "Background and aims"), *EXPECTED[2:]]
    starts = {heading["title"]: heading["start"] for heading in entry["headings"]}
    for title, start in starts.items():
        assert corpus.text[start : start + len(title)] == title
    # A section heading (level 2) ends the chunk before it, as a filing's item does; the
    # subsection in bold (level 3) stays in the table without cutting one.
    chunks = chunk_text(corpus.text, Chunking(600, 100), corpus.table)
    assert starts["Background and aims"] in chunks.starts.tolist()
    assert starts["Background and aims"] in chunks.ends.tolist()
    assert starts["Scope of this review"] not in chunks.starts.tolist()


def test_a_contents_page_in_the_titles_style_gives_no_headings(tmp_path: Path) -> None:
    # Its entries set bold, as the sections' titles are set large: each is found again on
    # a later page, so the page is a table of contents, none of whose lines is a heading.
    contents: list[Styled] = [
        ("Contents", "F1", 24),
        ("This review reports on the year of the utility in three parts, as below", "F1", 10),
        ("1 Introduction", "F2", 10),
        ("2 Operations", "F2", 10),
        ("3 Outlook", "F2", 10),
    ]
    pdf = styled_pdf(tmp_path / "report.pdf", [contents, *_report()])
    extracted = extract(pdf.read_bytes(), "pdf", path=pdf)
    assert extracted.pages is not None
    assert [(h.level, h.title) for h in extracted.headings] == EXPECTED
    assert extracted.headings[1].start > extracted.text.index(extracted.pages[1])


def test_numbering_keeps_typography_out_and_unread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A filing-like PDF whose numbered headings are set in body type, its company's name
    # set large on the first page: the numbering gives the headings, and the pages' styles
    # are not even read (a filing's conversion costs no more than before).
    reads: list[object] = []
    monkeypatch.setattr(convert, "pdf_page_styles", lambda source: reads.append(source) or [])
    pages: list[list[Styled]] = [
        [("Acme Corporation", "F1", 24), ("PART I", "F1", 10), ("Item 1. Business", "F1", 10)],
        [("Item 1A. Risk Factors", "F1", 10), (BODY, "F1", 10), ("Overview", "F2", 10)],
        [("PART II", "F1", 10), ("Item 7. Management's Discussion", "F1", 10), (BODY, "F1", 10)],
    ]
    pdf = styled_pdf(tmp_path / "filing.pdf", pages)
    titles = [h.title for h in extract(pdf.read_bytes(), "pdf", path=pdf).headings]
    assert "Acme Corporation" not in titles
    assert titles[:2] == ["PART I", "Item 1. Business"]
    assert reads == []


def test_numbered_clauses_without_parts_or_items_leave_the_headings_to_typography(
    tmp_path: Path,
) -> None:
    # A manual whose only numbered lines are its licence's clauses, set in body type: not a
    # filing's numbering, so its chapters, set large, are its headings.
    pages: list[list[Styled]] = [
        [("Pump Station Manual", "F1", 24), ("Getting started", "F1", 16), (BODY, "F1", 10)],
        [("Maintenance", "F1", 16), (BODY, "F1", 10), (BODY, "F1", 10)],
        [
            ("Licence", "F1", 16),
            ("1. Definitions", "F1", 10),
            (BODY, "F1", 10),
            ("2. Permitted Use", "F1", 10),
            (BODY, "F1", 10),
            ("3. Warranty", "F1", 10),
            (BODY, "F1", 10),
        ],
    ]
    pdf = styled_pdf(tmp_path / "manual.pdf", pages)
    found = [(h.level, h.title) for h in extract(pdf.read_bytes(), "pdf", path=pdf).headings]
    assert found == [
        (1, "Pump Station Manual"),
        (2, "Getting started"),
        (2, "Maintenance"),
        (2, "Licence"),
    ]


def test_sizes_are_sizes_as_printed(tmp_path: Path) -> None:
    # The report drawn at half its size in fonts twice as large (a page printed to PDF at a
    # scale): its 24-point title is 24 points as printed.
    doubled = [[(text, font, size * 2) for text, font, size in page] for page in _report()]
    pdf = styled_pdf(tmp_path / "report.pdf", doubled, scale=0.5)
    first = pdf_page_styles(pdf)[0]
    assert first.body_size == pytest.approx(10.0) and not first.body_bold
    assert ("Annual Review of Operations", pytest.approx(24.0), False) in first.standing
    extracted = extract(pdf.read_bytes(), "pdf", path=pdf)
    assert [(h.level, h.title) for h in extracted.headings] == EXPECTED


def test_child_processes_read_the_styles_as_this_process_does(tmp_path: Path) -> None:
    pdf = styled_pdf(tmp_path / "long.pdf", _report() * 70)  # 210 pages: child processes
    styles = pdf_page_styles(pdf)
    assert len(styles) == 210 and styles[0].standing
    assert styles == pdf_page_styles(pdf.read_bytes())  # (bytes: read in this process)


def test_only_lines_that_read_as_titles_are_headings() -> None:
    body = PageStyle(10.0, False, 1000, ())
    lines = [
        Standing("Results and discussion", 14.0, False),
        Standing("$4.2 billion", 30.0, False),  # a figure set large
        Standing("Total assets 40,112 38,900", 10.0, True),  # a row, read without tabs
        Standing("Introduction 3", 14.0, False),  # a contents line
        Standing("and the rest of the sentence", 14.0, False),  # a run-on line
        Standing("The pumps ran well.", 14.0, False),  # a sentence
        Standing("Small print in bold", 8.0, True),  # bold, but smaller than the body
        Standing("Method", 11.0, False),  # hardly larger
    ]
    page = "\n".join(line.text for line in lines)
    found = typography_headings([page], [body._replace(standing=tuple(lines))])
    assert [(level, title) for level, title, _, _ in found] == [(1, "Results and discussion")]


def test_a_bold_footer_numbered_in_roman_then_arabic_is_no_heading() -> None:
    # Its front matter's footers bold ("ii"), the rest plain ("3", "4"): one running footer.
    footers = ["Annual Review ii", "Annual Review iii", "Annual Review 3", "Annual Review 4"]
    pages = [
        f"Section {'ABCD'[n]} of the review\n{BODY}\n{footer}" for n, footer in enumerate(footers)
    ]
    styles = [
        PageStyle(10.0, False, 100, (Standing(f"Section {'ABCD'[n]} of the review", 16.0, False),))
        for n in range(4)
    ]
    for n in (0, 1):
        styles[n] = styles[n]._replace(
            standing=(*styles[n].standing, Standing(footers[n], 10.0, True))
        )
    found = typography_headings(pages, styles)
    assert [title for _, title, _, _ in found] == [f"Section {c} of the review" for c in "ABCD"]


def test_titles_by_the_thousand_are_looked_for_in_bounded_time() -> None:
    # Long pages, each with titles of its own that are nowhere in its text: each would be
    # one search of its page; the searches stop at a budget of reads over the text.
    def name(page: int, n: int) -> str:
        return "Heading " + "".join(chr(65 + digit) for digit in (page, n // 26, n % 26))

    pages = ["word " * 100_000] * 30
    styles = [
        PageStyle(
            10.0, False, 500_000, tuple(Standing(name(p, n), 20.0, False) for n in range(200))
        )
        for p in range(30)
    ]
    started = time.perf_counter()
    assert typography_headings(pages, styles) == []
    assert time.perf_counter() - started < 10
