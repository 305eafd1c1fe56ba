"""Text out of each supported format, as a person sees it in the source: per page for a
PDF; for HTML and Word the visible text, with the headings kept beside it (level, title,
offset), not as marks inside it. A table's row is one line, its cells separated by a tab
(as a browser copies a table)."""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib.metadata import version
from pathlib import Path
from typing import Any

from ralph_tui.documents import ocr
from ralph_tui.documents.detect import Format, UnreadableFile
from ralph_tui.documents.encoding import UndecodableText, decode_text
from ralph_tui.documents.pdf import PdfError, Source, pdf_outline, pdf_page_styles, pdf_pages
from ralph_tui.documents.pdf_headings import pdf_headings
from ralph_tui.documents.pdf_styles import PageStyle
from ralph_tui.documents.scans import OcrResult, read_image_file, read_scanned_pages

PAGE_SEPARATOR = "\n\n"
"""Between a PDF's pages in the extracted text (the page table gives each page's span)."""

OnPage = Callable[[int, int], None]
"""Progress of a long conversion: pages done, pages in all."""


class ConversionError(UnreadableFile):
    """The file cannot be read as its format says; the message says why, without the path."""


class OcrNeeded(ConversionError):
    """The file's text could be read only by OCR, which is not installed."""


CELL_SEPARATOR = "\t"
"""Between a table row's cells in the extracted text (each row is one line)."""


@dataclass(frozen=True)
class Heading:
    """A heading of a document: its level (1 is the top), its title as it stands in the
    text, and where: ``text[start:start + len(title)] == title``."""

    level: int
    title: str
    start: int

    def to_json(self) -> dict[str, Any]:
        return {"level": self.level, "title": self.title, "start": self.start}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Heading:
        return cls(int(data["level"]), str(data["title"]), int(data["start"]))


@dataclass
class Extracted:
    """A document's text; for a PDF, its pages (``text`` is them joined by the separator)."""

    text: str
    converter: str
    pages: list[str] | None = None
    empty_pages: list[int] = field(default_factory=list)
    """1-based numbers of pages with no text (no text layer, and none read by OCR):
    nothing to quote there."""
    headings: list[Heading] = field(default_factory=list)
    """The document's headings in text order (HTML, Word; a Markdown file's ``#`` lines; a
    PDF's outline, or its numbered headings, or its typography's: ``pdf_headings``)."""
    ocr_pages: list[int] = field(default_factory=list)
    """1-based numbers of the pages whose text OCR read (every page of an image file)."""
    unread_pages: list[int] = field(default_factory=list)
    """Of ``empty_pages``, those OCR did not try; ``unread_why`` says why."""
    unread_why: str = ""
    ocr_timed_out: bool = False
    """Whether a page went unread because OCR ran out of time on it: a busy machine's
    accident, so the conversion is not cached and the next run tries again."""


@dataclass(frozen=True)
class OcrPlan:
    """How many pages of a document OCR may read (0: none, as for an external page), where
    its progress goes (pages read, pages to read), and how long it may take a page."""

    max_pages: int = 0
    on_page: OnPage | None = None
    timeout_s: float | None = None


def extract(
    data: bytes,
    fmt: Format,
    on_page: OnPage | None = None,
    path: Path | None = None,
    ocr_plan: OcrPlan = OcrPlan(),
) -> Extracted:
    """The text of ``data`` read as ``fmt``; ``ConversionError`` when it cannot be read.

    ``path``, the file ``data`` was read from, lets a long PDF be converted in several
    processes that each open it, instead of each being sent the bytes. ``ocr_plan``: how
    far pages with no text layer (and image files) are read by OCR.
    """
    if fmt == "pdf":
        return _pdf(path if path is not None else data, on_page, ocr_plan)
    if fmt == "image":
        return _image(data, ocr_plan)
    if fmt == "html":
        return _html(data)
    if fmt == "docx":
        return _docx(data)
    extracted = _text(data)
    if fmt == "markdown":
        extracted.headings = markdown_headings(extracted.text)
    return extracted


LAYOUT = {"pdf": " tables-2 headings-2 rows-2"}
"""How our own layout over a converter reads its output (tables as rows): a change to it
makes cached conversions stale, as a new converter version does."""


def converter_version(fmt: Format) -> str:
    """The converter a format goes through, with its version (a cache key part)."""
    if fmt == "image":
        return f"OCR {ocr.engine_name() or 'not installed'}"
    package = {"pdf": "pypdfium2", "html": "trafilatura", "docx": "python-docx"}.get(fmt)
    return f"{package} {version(package)}{LAYOUT.get(fmt, '')}" if package else "utf-8"


def cache_key(fmt: Format, ocr_plan: OcrPlan) -> str:
    """What a cached conversion of ``fmt`` depends on: its converter, and for a PDF the
    OCR engine and its page bound (a scan read without OCR is read again once it is
    installed)."""
    if fmt not in ("pdf", "image"):
        return converter_version(fmt)
    engine = ocr.engine_name() if ocr_plan.max_pages else None
    return f"{converter_version(fmt)} ocr {engine or 'none'} {ocr_plan.max_pages}"


def with_ocr(converter: str, engine: str | None) -> str:
    """How a document some of whose pages OCR read names its converter."""
    return f"{converter}; OCR {engine}" if engine else converter


def _text(data: bytes) -> Extracted:
    """Plain text (or Markdown) in UTF-8, or in the encoding its byte-order mark declares;
    the converter is named by that encoding."""
    try:
        text, encoding = decode_text(data)
    except UndecodableText as exc:
        raise ConversionError(exc.found.what, exc.found.hint) from None
    if not text.strip():
        raise ConversionError(f"holds no text ({encoding}, white space only): nothing to analyse")
    return Extracted(text, converter=encoding.lower())


def _normalize(text: str) -> str:
    lines = text.replace("\r\n", "\n").replace("\r", "\n").replace("\f", "\n").split("\n")
    # A table row keeps the tab of an empty last cell.
    return "\n".join(line.rstrip(" \u00a0") for line in lines).strip()


def _pdf(source: Source, on_page: OnPage | None, ocr_plan: OcrPlan) -> Extracted:
    try:
        pages = [_normalize(text) for text in pdf_pages(source, on_page)]
    except PdfError as exc:
        if exc.encrypted:
            raise ConversionError("is an encrypted PDF: remove its password first") from None
        raise ConversionError(f"is a damaged or truncated PDF ({exc})") from None
    empty = [number for number, text in enumerate(pages, 1) if not text]
    if not pages:
        raise ConversionError("has no pages")
    read = OcrResult(untried=empty)
    if empty and ocr_plan.max_pages:
        try:
            read = read_scanned_pages(
                source, empty, ocr_plan.max_pages, ocr_plan.on_page, ocr_plan.timeout_s
            )
        except ocr.OcrUnavailable as exc:
            read = OcrResult(untried=empty, why_untried=str(exc))
    elif empty:
        read.why_untried = "OCR is off here"
    for number, text in read.texts.items():
        pages[number - 1] = _normalize(text)
    ocr_pages = [number for number in sorted(read.texts) if pages[number - 1]]
    empty = [number for number in empty if not pages[number - 1]]
    if len(empty) == len(pages):
        raise _no_text(len(pages), read)
    starts = [0]
    for page in pages[:-1]:
        starts.append(starts[-1] + len(page) + len(PAGE_SEPARATOR))
    headings = [
        Heading(level, title, starts[page] + offset)
        for level, title, page, offset in pdf_headings(
            pages, _outline(source), lambda: _page_styles(source)
        )
    ]
    return Extracted(
        PAGE_SEPARATOR.join(pages),
        with_ocr(converter_version("pdf"), read.engine if ocr_pages else None),
        pages,
        empty,
        headings,
        ocr_pages=ocr_pages,
        unread_pages=[number for number in read.untried if number in empty],
        unread_why=read.why_untried,
        ocr_timed_out=read.timed_out,
    )


def _no_text(count: int, read: OcrResult) -> ConversionError:
    """A PDF none of whose ``count`` pages gave text, with why OCR did not help."""
    pages = f"{count} page{'s' if count != 1 else ''}"
    if not read.untried:
        found = "OCR found no text on them" if read.texts else "no picture for OCR to read"
        return ConversionError(f"has no text layer on any of its {pages}, and {found}")
    if read.why_untried == ocr.missing_note():
        return OcrNeeded(
            f"has no text layer on any of its {pages} (a scan) and OCR is not installed",
            hint=f"{ocr.INSTALL_STEP} reads scanned pages",
        )
    return ConversionError(
        f"has no text layer on any of its {pages} (a scan?), and OCR did not read them: "
        f"{read.why_untried}"
    )


def _image(data: bytes, ocr_plan: OcrPlan) -> Extracted:
    """An image file's text by OCR, each frame (a TIFF's pages) a page."""
    if not ocr_plan.max_pages:
        raise ConversionError("is an image: OCR is off here")
    try:
        read = read_image_file(data, ocr_plan.max_pages, ocr_plan.on_page, ocr_plan.timeout_s)
    except ocr.OcrUnavailable:
        raise OcrNeeded(
            "is an image and OCR is not installed", hint=f"{ocr.INSTALL_STEP} reads images"
        ) from None
    count = len(read.texts) + len(read.untried)
    pages = [_normalize(read.texts.get(number, "")) for number in range(1, count + 1)]
    empty = [number for number, text in enumerate(pages, 1) if not text]
    if len(empty) == len(pages):
        if read.untried:
            raise ConversionError(f"is an image OCR did not read: {read.why_untried}")
        raise ConversionError("is an image in which OCR found no text")
    return Extracted(
        PAGE_SEPARATOR.join(pages),
        converter_version("image"),
        pages,
        empty,
        ocr_pages=[number for number in sorted(read.texts) if pages[number - 1]],
        unread_pages=[number for number in read.untried if number in empty],
        unread_why=read.why_untried,
        ocr_timed_out=read.timed_out,
    )


def _outline(source: Source) -> list[tuple[int, str, int]]:
    """The PDF's bookmarks, or none when they cannot be read (the pages could)."""
    try:
        return pdf_outline(source)
    except PdfError:
        return []


def _page_styles(source: Source) -> list[PageStyle]:
    """How the PDF's pages' lines are set, or nothing when they cannot be read (the pages
    could)."""
    try:
        return pdf_page_styles(source)
    except PdfError:
        return []


def _html(data: bytes) -> Extracted:
    """The page's main text (boilerplate such as menus and footers left out), read from
    the element tree trafilatura extracts, so no Markdown mark enters the text."""
    import trafilatura

    main = trafilatura.bare_extraction(
        data,
        include_tables=True,
        include_comments=False,
        include_links=False,
        favor_recall=True,
        with_metadata=False,
    )
    body = getattr(main, "body", None)  # a Document (a dict only when asked for one)
    blocks = _tree_blocks(body) if body is not None else []
    if not any(block.text.strip() for block in blocks):
        blocks = [Block(trafilatura.html2txt(data) or "")]
    text, headings = _joined(blocks)
    if not text:
        raise ConversionError("is an HTML page with no text")
    return Extracted(text, converter_version("html"), headings=headings)


@dataclass(frozen=True)
class Block:
    """A paragraph, list, table or heading (``level`` > 0) of a document, as its text."""

    text: str
    level: int = 0


def _joined(blocks: list[Block]) -> tuple[str, list[Heading]]:
    """The blocks' text, separated by blank lines, with where each heading stands in it."""
    parts: list[str] = []
    headings: list[Heading] = []
    offset = 0
    for block in blocks:
        text = _visible_lines(block.text)
        if not text:
            continue
        if parts:
            parts.append("\n\n")
            offset += 2
        if block.level:
            headings.append(Heading(block.level, text, offset))
        parts.append(text)
        offset += len(text)
    return "".join(parts), headings


def _tree_blocks(body: Any) -> list[Block]:
    """The blocks of trafilatura's element tree (``<head rend="h2">``, ``<p>``, ``<list>``,
    ``<table>``, ``<quote>``, ...), each as the text it shows."""
    blocks = []
    for element in body:
        if not isinstance(element.tag, str):
            continue
        if element.tag == "head":
            level = (element.get("rend") or "h2").removeprefix("h")
            blocks.append(Block(_shown(element), int(level) if level.isdigit() else 2))
        else:
            blocks.append(Block(_shown(element)))
    return blocks


LINE_ELEMENTS = frozenset({"item", "row", "p", "head", "quote", "list", "table"})
"""Elements that start a new line when nested in another (a list item, a table row)."""


def _shown(element: Any, in_cell: bool = False) -> str:
    """The text ``element`` shows: inline markup dropped, a line break or a nested block
    as a new line (a space inside a table cell, which stays on its row's line), a table
    row's cells separated by ``CELL_SEPARATOR``."""
    in_cell = in_cell or element.tag == "cell"
    parts = [element.text or ""]
    for child in element:
        if not isinstance(child.tag, str):
            parts.append(child.tail or "")
            continue
        breaks = child.tag == "lb" or child.tag in LINE_ELEMENTS
        if breaks:
            parts.append(" " if in_cell else "\n")
        elif child.tag == "cell" and len(parts) > 1:
            parts.append(CELL_SEPARATOR)
        if child.tag != "lb":
            parts.append(_shown(child, in_cell))
        if breaks and child.tag != "lb":
            parts.append(" " if in_cell else "\n")
        parts.append(child.tail or "")
    return _visible_lines("".join(parts))


def _visible_lines(text: str) -> str:
    """``text`` without blank lines, each run of white space in a line one space (a table
    cell's tab kept, also after an empty last cell)."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return "\n".join(_one_line(line) for line in lines if line.strip())


def _one_line(line: str) -> str:
    """A line with each run of white space one space, cells kept apart by their tab."""
    return CELL_SEPARATOR.join(" ".join(cell.split()) for cell in line.split(CELL_SEPARATOR))


def _docx(data: bytes) -> Extracted:
    import docx
    from docx.table import Table

    try:
        document = docx.Document(io.BytesIO(data))
    except Exception as exc:  # python-docx raises several kinds for a damaged package
        raise ConversionError(f"is a damaged Word file ({type(exc).__name__})") from None
    blocks: list[Block] = []
    for item in document.iter_inner_content():
        if isinstance(item, Table):
            rows = [
                CELL_SEPARATOR.join(" ".join(cell.text.split()) for cell in row.cells)
                for row in item.rows
            ]
            blocks.append(Block("\n".join(rows)))
        elif item.text.strip():
            blocks.append(Block(item.text, _heading_level(item.style.name if item.style else "")))
    text, headings = _joined(blocks)
    if not text:
        raise ConversionError("is a Word file with no text")
    return Extracted(text, converter_version("docx"), headings=headings)


def _heading_level(style: str) -> int:
    """The heading level of a Word paragraph style (``Heading 2`` -> 2; ``Title`` -> 1),
    0 for a paragraph that is no heading."""
    if style == "Title":
        return 1
    level = style.removeprefix("Heading ").strip()
    return int(level) if style.startswith("Heading ") and level.isdigit() else 0


MARKDOWN_HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t#]*$", re.MULTILINE)


def markdown_headings(text: str) -> list[Heading]:
    """The ``#`` heading lines of Markdown ``text`` (the marks are its own text, so they
    stay in it; the title is the line without them)."""
    return [
        Heading(len(found.group(1)), found.group(2), found.start(2))
        for found in MARKDOWN_HEADING.finditer(text)
    ]
