"""Pages with no text layer, and image files, read by OCR: the text found on a page rendered
and rasterised from known text, marked as OCR wherever it is shown, bounded, cached; and
without the engine, the pages listed as unread with the install step, never silently
empty."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest
from rapidfuzz.fuzz import ratio

from ralph_tui.documents import InputError, Limits, read_corpus
from ralph_tui.documents import ocr as ocr_module
from ralph_tui.documents.cache import ExtractionCache
from ralph_tui.documents.detect import detect_format
from ralph_tui.documents.ocr import Box, lay_out
from tests.documents.fixtures import write_pdf
from tests.documents.scans import SEAL_KIT, pictures, scan_pages, text_pdf, write_scan

INSTALL = "pip install 'ralph-tui[ocr]'"


def _cache(scans: Path) -> ExtractionCache:
    return ExtractionCache(scans / "out" / "cache" / "documents")


def test_a_scanned_pdf_is_read_by_ocr_page_by_page_and_marked_as_ocr(scans: Path) -> None:
    progress: list[tuple[str, int, int]] = []
    corpus = read_corpus(
        [scans / "log.pdf"],
        on_progress=lambda *step: progress.append(step),
        cache=_cache(scans),
    )
    [document] = corpus.documents
    assert document.pages is not None and len(document.pages) == 10
    for number, lines in enumerate(scan_pages(10), 1):
        # OCR is read, not copied: each page as written, up to a stray character or space.
        assert ratio(document.pages[number - 1], "\n".join(lines)) > 95, number
    assert SEAL_KIT[0] in document.pages[6]
    assert document.ocr_pages == list(range(1, 11))
    assert document.empty_pages == [] and document.unread_pages == []
    assert document.converter.endswith(f"; OCR {ocr_module.engine_name()}")
    assert [page.get("ocr") for page in corpus.table[0]["pages"]] == [True] * 10
    seal = corpus.text.index("4471-B")
    assert corpus.source_of(seal).label == "log.pdf p. 7 (OCR)"  # type: ignore[union-attr]
    assert corpus.notices() == [
        "log.pdf: pages 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 read by OCR; quotes from them are "
        "marked (OCR)"
    ]
    assert ("log.pdf (OCR)", 10, 10) in progress  # (the loading's progress, named as OCR)


def test_a_second_load_reads_the_ocr_text_from_the_cache(
    scans: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    read_corpus([scans / "log.pdf"], cache=_cache(scans))

    def no_ocr(_image: object) -> str:
        raise AssertionError("OCR ran again")

    monkeypatch.setattr(ocr_module, "read_picture", no_ocr)
    started = time.monotonic()
    corpus = read_corpus([scans / "log.pdf"], cache=_cache(scans))
    assert time.monotonic() - started < 2.0
    assert corpus.documents[0].ocr_pages == list(range(1, 11))
    assert SEAL_KIT[0] in corpus.text


def test_an_image_file_is_a_document_read_by_ocr(scans: Path) -> None:
    corpus = read_corpus([scans / "sheet.png"], cache=_cache(scans))
    [document] = corpus.documents
    assert document.format == "image"
    assert ratio(document.text, "\n".join(scan_pages(10)[6])) > 95
    assert document.ocr_pages == [1]
    assert document.converter == f"OCR {ocr_module.engine_name()}"
    assert corpus.source_of(0).label == "sheet.png p. 1 (OCR)"  # type: ignore[union-attr]


def test_only_the_pages_without_a_text_layer_are_read_by_ocr(scans: Path) -> None:
    corpus = read_corpus([scans / "mixed.pdf"], cache=_cache(scans))
    [document] = corpus.documents
    assert document.pages == [
        "Typed cover page: station report.",
        "Handwritten sheet: valve 12 shut.",
    ]
    assert document.ocr_pages == [2]
    assert corpus.source_of(0).label == "mixed.pdf p. 1"  # type: ignore[union-attr]
    assert corpus.source_of(corpus.text.index("valve")).label == "mixed.pdf p. 2 (OCR)"  # type: ignore[union-attr]


def test_ocr_reads_at_most_the_page_bound_and_lists_the_rest_as_unread(tmp_path: Path) -> None:
    scan = write_scan(tmp_path / "three.pdf", scan_pages(3))
    corpus = read_corpus([scan], Limits(ocr_pages=1))
    [document] = corpus.documents
    assert document.ocr_pages == [1]
    assert document.unread_pages == [2, 3] and document.empty_pages == [2, 3]
    assert document.pages is not None and document.pages[1:] == ["", ""]
    [read, unread] = corpus.notices()
    assert read == "three.pdf: page 1 read by OCR; quotes from it are marked (OCR)"
    assert unread.startswith("three.pdf: pages 2, 3 not read (no text layer): past the 1 page a")
    assert "RALPH_OCR_MAX_PAGES" in unread


@pytest.fixture
def no_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    """The OCR engine not installed: importing it fails."""
    monkeypatch.setitem(sys.modules, "rapidocr", None)
    assert ocr_module.engine_name() is None


@pytest.mark.usefixtures("no_engine")
def test_without_the_engine_a_scanned_page_is_listed_as_unread_naming_the_install_step(
    scans: Path, tmp_path: Path
) -> None:
    corpus = read_corpus([scans / "mixed.pdf"], cache=ExtractionCache(tmp_path / "cache"))
    [document] = corpus.documents
    assert document.pages == ["Typed cover page: station report.", ""]
    assert document.unread_pages == [2] and document.ocr_pages == []
    assert document.converter == document.converter.split(";")[0]  # no OCR named
    assert corpus.notices() == [
        f"mixed.pdf: page 2 not read (no text layer): OCR is not installed ({INSTALL} reads "
        "such pages); it cannot be quoted"
    ]


@pytest.mark.usefixtures("no_engine")
@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("log.pdf", "has no text layer on any of its 10 pages (a scan) and OCR is not installed"),
        ("sheet.png", "is an image and OCR is not installed"),
    ],
)
def test_without_the_engine_a_scan_alone_is_refused_naming_the_install_step(
    scans: Path, tmp_path: Path, name: str, said: str
) -> None:
    with pytest.raises(InputError) as refused:
        read_corpus([scans / name], cache=ExtractionCache(tmp_path / "cache"))
    assert said in str(refused.value)
    assert INSTALL in refused.value.one_line()


def test_a_folder_lists_its_images_as_skipped_and_a_glob_reads_them(scans: Path) -> None:
    folder = read_corpus([scans], Limits(ocr_pages=0))
    assert "sheet.png" not in [document.name for document in folder.documents]
    assert any(
        note.startswith("skipped (a folder's images are not read by OCR") and "sheet.png" in note
        for note in folder.notices()
    )
    globbed = read_corpus([scans / "*.png"], cache=_cache(scans))
    assert [document.format for document in globbed.documents] == ["image"]


@pytest.mark.parametrize(
    "head",
    [
        b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
        b"\xff\xd8\xff\xe0\x00\x10JFIF",
        b"II*\x00\x08",
        b"MM\x00*\x00",
    ],
)
def test_png_jpeg_and_tiff_are_images(head: bytes) -> None:
    assert detect_format(head, Path("page")) == "image"


def test_a_damaged_or_huge_image_is_refused_in_one_line(tmp_path: Path) -> None:
    damaged = tmp_path / "torn.png"
    damaged.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    with pytest.raises(InputError, match="is a damaged image"):
        read_corpus([damaged])
    from PIL import Image

    huge = tmp_path / "poster.png"
    Image.new("1", (12_000, 9_000)).save(huge)  # 108 million pixels, a few KB on disk
    with pytest.raises(InputError, match=r"is an image of 12,000 x 9,000 pixels, past the 100"):
        read_corpus([huge])


def test_boxes_are_laid_out_as_lines_a_table_row_with_tabs_and_paragraphs_apart() -> None:
    boxes = [
        Box("Total current assets", 10, 100, 200, 120),
        Box("15,754", 400, 101, 460, 121),
        Box("14,210", 520, 99, 580, 119),
        Box("Balance sheet", 10, 40, 130, 60),
        Box("(in millions)", 140, 41, 240, 61),
        Box("Cash", 10, 125, 50, 145),
    ]
    assert lay_out(boxes) == (
        "Balance sheet (in millions)\n\nTotal current assets\t15,754\t14,210\nCash"
    )
    assert lay_out([]) == ""


def test_a_tiff_is_read_frame_by_frame_as_pages_and_a_jpeg_as_one(tmp_path: Path) -> None:
    pages = [["Sheet one: filter F2 replaced."], ["Sheet two: filter F3 cleaned."]]
    first, second = pictures(text_pdf(pages))
    first.save(tmp_path / "sheets.tiff", save_all=True, append_images=[second])
    second.save(tmp_path / "sheet.jpg", quality=90)
    tiff = read_corpus([tmp_path / "sheets.tiff"], Limits(ocr_pages=1)).documents[0]
    assert tiff.format == "image" and tiff.pages is not None and len(tiff.pages) == 2
    assert ratio(tiff.pages[0], pages[0][0]) > 95
    assert tiff.ocr_pages == [1] and tiff.unread_pages == [2]
    jpeg = read_corpus([tmp_path / "sheet.jpg"]).documents[0]
    assert ratio(jpeg.text, pages[1][0]) > 95 and jpeg.ocr_pages == [1]


def test_a_long_conversion_reports_progress_every_few_seconds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from ralph_tui.loops import runner

    clock = iter([0.0, 1.0, 6.5, 7.0, 20.0])
    monkeypatch.setattr(runner.time, "monotonic", lambda: next(clock))
    said: list[str] = []
    report = runner._conversion_progress(lambda event: said.append(event.message))  # type: ignore[arg-type, attr-defined]
    for done in (1, 2, 3, 4):
        report("log.pdf (OCR)", done, 4)
    assert said == ["converting log.pdf (OCR): 2/4 pages", "converting log.pdf (OCR): 4/4 pages"]


def test_a_page_that_cannot_be_rendered_is_listed_as_unread_not_a_crash(
    scans: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ralph_tui.documents import scans as scans_module

    def broken(_document: object, _number: int) -> object:
        raise RuntimeError("damaged page")

    monkeypatch.setattr(scans_module, "_rendered", broken)
    corpus = read_corpus([scans / "mixed.pdf"], cache=ExtractionCache(tmp_path / "cache"))
    assert corpus.documents[0].unread_pages == [2]
    assert (
        "mixed.pdf: page 2 not read (no text layer): a page could not be rendered or read "
        "(RuntimeError); it cannot be quoted"
    ) in corpus.notices()


def test_a_page_with_no_picture_is_not_sent_to_ocr(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_ocr(_image: object) -> str:
        raise AssertionError("a blank page was sent to OCR")

    monkeypatch.setattr(ocr_module, "read_picture", no_ocr)
    report = write_pdf(tmp_path / "report.pdf", [["Typed page."], [], []])  # (a box: ink, no text)
    corpus = read_corpus([report])
    [document] = corpus.documents
    assert document.empty_pages == [2, 3] and document.unread_pages == []
    assert corpus.notices() == ["report.pdf: pages 2, 3 (no text layer): nothing to quote there"]


@pytest.mark.parametrize("turned", [90, -90, 180])
def test_a_page_scanned_sideways_or_upside_down_is_read_the_right_way_up(
    turned: int, tmp_path: Path
) -> None:
    [picture] = pictures(text_pdf([SEAL_KIT]))
    scan = tmp_path / "turned.png"
    picture.rotate(turned, expand=True).save(scan)
    corpus = read_corpus([scan])
    [document] = corpus.documents
    assert document.pages is not None
    assert ratio(document.pages[0], "\n".join(SEAL_KIT)) > 95, document.pages[0]
