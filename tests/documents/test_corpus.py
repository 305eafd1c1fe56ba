"""A corpus of files, folders and globs; where a quote came from; every kind of bad input."""

from __future__ import annotations

from pathlib import Path

import pytest

from ralph_tui.documents import InputError, Limits, read_corpus
from tests.documents.fixtures import HTML_PAGE, docx_bytes, pdf_bytes, write_pdf

MANUAL = [
    ["Chapter one covers the intake screens."],
    ["The backwash pump runs for ten minutes.", "It is checked weekly."],
    ["Chapter three covers the chlorine store."],
]


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """reports/: a PDF, a Word file, an HTML page, Markdown, and two files to skip."""
    root = tmp_path / "reports"
    write_pdf(root / "manual.pdf", MANUAL)
    (root / "q3.docx").write_bytes(docx_bytes("Q3", ["Output rose in July."], [["a", "b"]]))
    (root / "sub").mkdir()
    (root / "sub" / "pumps.html").write_text(HTML_PAGE, encoding="utf-8")
    (root / "notes.md").write_text("# Notes\n\nThe weir was cleared on Monday.\n")
    (root / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    (root / ".hidden.txt").write_text("not for the run")
    return root


def test_a_folder_reads_every_document_and_lists_what_it_skipped(folder: Path) -> None:
    corpus = read_corpus([folder])
    names = [d.name for d in corpus.documents]
    assert names == [
        "reports/manual.pdf",
        "reports/notes.md",
        "reports/q3.docx",
        "reports/sub/pumps.html",
    ]
    assert corpus.skipped == ["reports/logo.png"]
    for entry, document in zip(corpus.table, corpus.documents, strict=True):
        assert corpus.text[entry["start"] : entry["end"]] == document.text
        assert f"===== {document.name} =====" in corpus.text[: entry["start"]]
    assert [d.record()["pages"] for d in corpus.documents] == [3, None, None, None]


def test_a_quote_is_traced_to_its_file_and_page(folder: Path) -> None:
    corpus = read_corpus([folder])
    for quote, label in [
        ("The backwash pump runs for ten minutes.", "reports/manual.pdf p. 2"),
        ("Chapter three covers the chlorine store.", "reports/manual.pdf p. 3"),
        ("Output rose in July.", "reports/q3.docx"),
        ("The weir was cleared on Monday.", "reports/notes.md"),
    ]:
        source = corpus.source_of(corpus.text.index(quote))
        assert source is not None and source.label == label


def test_a_span_of_one_document_is_bounded_by_it(folder: Path) -> None:
    corpus = read_corpus([folder])
    start, end = corpus.bounds_of(corpus.text.index("Output rose in July."))
    assert corpus.text[start:end] == corpus.documents[2].text


def test_files_and_globs_can_be_repeated(folder: Path) -> None:
    corpus = read_corpus([folder / "q3.docx", folder / "**" / "*.html", folder / "q3.docx"])
    assert [d.format for d in corpus.documents] == ["docx", "html"]


def test_a_single_text_document_is_its_text_unchanged(tmp_path: Path) -> None:
    path = tmp_path / "doc.txt"
    path.write_text("Alpha beta gamma.\n")
    corpus = read_corpus([path])
    assert corpus.text == "Alpha beta gamma.\n" and corpus.table[0]["pages"] == []


def test_a_pdf_with_some_scanned_pages_names_them(tmp_path: Path) -> None:
    path = write_pdf(tmp_path / "mixed.pdf", [["Typed page."], [], ["Typed again."], []])
    [document] = read_corpus([path]).documents
    assert document.empty_pages == [2, 4]


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda p: write_pdf(p / "scan.pdf", [[], []]), "no text layer on any of its 2 pages"),
        (
            lambda p: write_pdf(p / "locked.pdf", [["secret"]], password="pw"),
            "is an encrypted PDF: remove its password first",
        ),
        (lambda p: _write(p / "cut.pdf", pdf_bytes([["text"]])[:300]), "damaged or truncated"),
        (
            lambda p: _write(p / "logo.png", b"\x89PNG\r\n\x1a\n\x00\x00"),
            "logo.png is a damaged image",
        ),
        (lambda p: _folder(p / "empty"), "no documents in the folder"),
        (lambda p: p / "nothing*.pdf", "no file matches"),
        (lambda p: p / "missing.pdf", "document not found"),
    ],
)
def test_bad_input_is_one_line(tmp_path: Path, make: object, message: str) -> None:
    path = make(tmp_path)  # type: ignore[operator]
    with pytest.raises(InputError, match=message) as refused:
        read_corpus([path])
    assert "\n" not in str(refused.value)


def test_the_size_caps(tmp_path: Path) -> None:
    big = _write(tmp_path / "big.txt", b"x" * 2048)
    with pytest.raises(InputError, match="past the cap of 0 MB per document"):
        read_corpus([big], Limits(file_bytes=1024))
    with pytest.raises(InputError, match="past the corpus cap"):
        read_corpus([big, _write(tmp_path / "b.txt", b"y" * 2048)], Limits(corpus_bytes=3000))


def test_a_corpus_goes_on_without_a_file_that_fails(tmp_path: Path) -> None:
    good = _write(tmp_path / "good.txt", b"Readable text here.")
    bad = write_pdf(tmp_path / "scan.pdf", [[]])
    corpus = read_corpus([good, bad])
    assert [d.name for d in corpus.documents] == ["good.txt"]
    [failure] = corpus.failed
    assert "scan.pdf has no text layer" in failure


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def _folder(path: Path) -> Path:
    path.mkdir()
    return path
