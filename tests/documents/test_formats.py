"""Each format read from its bytes, with headings, tables and pages kept."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ralph_tui.documents import InputError, read_corpus
from ralph_tui.documents.detect import UnsupportedFormat, detect_format
from tests.documents.fixtures import HTML_PAGE, docx_bytes, pdf_bytes, write_pdf


@pytest.mark.parametrize(
    ("data", "name", "expected"),
    [
        (pdf_bytes([["tiny"]]), "notes.txt", "pdf"),
        (b"%PDF-1.4\n1 0 obj << >> endobj\n%%EOF\n", "plain.txt", "pdf"),
        (docx_bytes("T", ["p"], [["a", "b"]]), "report.bin", "docx"),
        (HTML_PAGE.encode(), "page.txt", "html"),
        (b"# Title\n\nText.", "notes.md", "markdown"),
        (b"# Title\n\nText.", "notes", "text"),
    ],
)
def test_the_format_comes_from_the_bytes(data: bytes, name: str, expected: str) -> None:
    assert detect_format(data, Path(name)) == expected


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"GIF89a\x01\x00\x01\x00\x00\x00\x00", "a GIF image"),
        (b"\x01\x02\x00\x03" * 8, "binary data"),
        (b"PK\x03\x04broken", "damaged ZIP"),
    ],
)
def test_other_files_are_refused_by_what_they_look_like(data: bytes, reason: str) -> None:
    with pytest.raises(UnsupportedFormat, match=reason):
        detect_format(data, Path("x.pdf"))


def test_a_zip_that_is_no_word_file_is_refused(tmp_path: Path) -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("data.csv", "a,b\n")
    path = tmp_path / "data.docx"
    path.write_bytes(buffer.getvalue())
    with pytest.raises(InputError, match=r"data.docx is a ZIP archive$") as refused:
        read_corpus([path])
    assert refused.value.one_line().endswith("(ralph-tui reads plain text, Markdown, PDF, HTML, "
                                             "Word (.docx) and images of pages (PNG, JPEG, "
                                             "TIFF))")  # fmt: skip


def test_a_word_file_gives_its_visible_text_with_headings_beside_it(tmp_path: Path) -> None:
    path = tmp_path / "q3.docx"
    path.write_bytes(
        docx_bytes(
            "Quarterly report",
            ["Output rose by four percent."],
            [["Site", "Ml/d"], ["North", "12"]],
        )
    )
    corpus = read_corpus([path])
    assert corpus.text == (
        "Quarterly report\n\nOutput rose by four percent.\n\nFigures\n\nSite\tMl/d\nNorth\t12"
    )
    assert [(h["level"], h["title"]) for h in corpus.table[0]["headings"]] == [
        (1, "Quarterly report"),
        (2, "Figures"),
    ]
    for heading in corpus.table[0]["headings"]:
        start = heading["start"]
        assert corpus.text[start : start + len(heading["title"])] == heading["title"]
    assert corpus.documents[0].format == "docx"
    assert corpus.documents[0].converter.startswith("python-docx ")


def test_an_html_page_gives_its_main_text_with_headings_beside_it(tmp_path: Path) -> None:
    path = tmp_path / "manual.html"
    path.write_text(HTML_PAGE, encoding="utf-8")
    corpus = read_corpus([path])
    text = corpus.text
    assert text.startswith("Pump maintenance\n\nThe pump seals") and "#" not in text
    assert "\n\nSpare parts\n\nPart\tStock\nMechanical seal\t4\nImpeller\t1\n\n" in text
    assert [(h["level"], h["title"], h["start"]) for h in corpus.table[0]["headings"]] == [
        (1, "Pump maintenance", 0),
        (2, "Spare parts", text.index("Spare parts")),
    ]
    assert "About us" not in text and "All rights reserved" not in text


def test_html_markup_leaves_no_mark_in_the_text(tmp_path: Path) -> None:
    page = tmp_path / "bzip2.html"
    page.write_text(
        "<html><body><article><h1>The <code>bzip2</code> manual</h1>"
        "<p>Compressing with the flag <code>-9</code> will cause <b>20000 * 8</b> bytes of "
        "memory to be used by <i>the</i> compressor on every block.</p>"
        "<ul><li>first <em>item</em></li><li>second item</li></ul>"
        "<table><tr><td><p>a cell</p><p>in two paragraphs</p></td><td></td><td>z</td></tr>"
        "</table></article></body></html>",
        encoding="utf-8",
    )
    corpus = read_corpus([page])
    assert corpus.text == (
        "The bzip2 manual\n\nCompressing with the flag -9 will cause 20000 * 8 bytes of memory"
        " to be used by the compressor on every block.\n\nfirst item\nsecond item\n\n"
        "a cell in two paragraphs\t\tz"
    )
    assert corpus.documents[0].headings[0].title == "The bzip2 manual"


def test_a_markdown_file_keeps_its_marks_and_lists_its_headings(tmp_path: Path) -> None:
    notes = tmp_path / "notes.md"
    notes.write_text("# Pumps\n\nText with `code`.\n\n## Seals ##\n\nMore.", encoding="utf-8")
    corpus = read_corpus([notes])
    assert corpus.text == notes.read_text(encoding="utf-8")
    assert [(h.level, h.title, h.start) for h in corpus.documents[0].headings] == [
        (1, "Pumps", 2),
        (2, "Seals", corpus.text.index("Seals")),
    ]


WORDS = st.lists(
    st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=9), min_size=1, max_size=6
).map(" ".join)


@settings(
    max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(st.lists(WORDS, min_size=1, max_size=4), min_size=1, max_size=5))
def test_each_pdf_page_is_the_slice_of_context_the_table_names(
    tmp_path: Path, pages: list[list[str]]
) -> None:
    path = write_pdf(tmp_path / "doc.pdf", pages)
    corpus = read_corpus([path])
    [entry] = corpus.table
    assert [p["page"] for p in entry["pages"]] == list(range(1, len(pages) + 1))
    [document] = corpus.documents
    assert document.pages is not None
    for span, page, lines in zip(entry["pages"], document.pages, pages, strict=True):
        sliced = corpus.text[span["start"] : span["end"]]
        assert sliced == page
        # The words of that page and no other (PDF line breaks are the extractor's guess).
        assert "".join(sliced.split()) == "".join("".join(lines).split())
    assert (entry["start"], entry["end"]) == (0, len(corpus.text))


def test_a_long_pdf_converted_on_several_processes_keeps_its_page_order(tmp_path: Path) -> None:
    total = 230  # past PARALLEL_FROM_PAGES: converted in page ranges on several processes
    path = write_pdf(tmp_path / "long.pdf", [[f"This is page {n}."] for n in range(1, total + 1)])
    progress: list[tuple[str, int, int]] = []
    corpus = read_corpus([path], on_progress=lambda *report: progress.append(report))
    pages = corpus.table[0]["pages"]
    assert len(pages) == total
    for span in (pages[0], pages[99], pages[100], pages[-1]):
        assert corpus.text[span["start"] : span["end"]] == f"This is page {span['page']}."
    assert progress[-1] == ("long.pdf", total, total)
    assert [done for _, done, _ in progress] == sorted(done for _, done, _ in progress)
