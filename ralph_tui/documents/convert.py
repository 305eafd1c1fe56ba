"""Text out of each supported format: per page for a PDF, headings and tables kept."""

from __future__ import annotations

import io
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib.metadata import version
from pathlib import Path

from ralph_tui.documents.detect import Format, UnreadableFile
from ralph_tui.documents.encoding import UndecodableText, decode_text
from ralph_tui.documents.pdf import PdfError, Source, pdf_pages

PAGE_SEPARATOR = "\n\n"
"""Between a PDF's pages in the extracted text (the page table gives each page's span)."""

OnPage = Callable[[int, int], None]
"""Progress of a long conversion: pages done, pages in all."""


class ConversionError(UnreadableFile):
    """The file cannot be read as its format says; the message says why, without the path."""


@dataclass
class Extracted:
    """A document's text; for a PDF, its pages (``text`` is them joined by the separator)."""

    text: str
    converter: str
    pages: list[str] | None = None
    empty_pages: list[int] = field(default_factory=list)
    """1-based numbers of pages without a text layer (a scan): nothing to quote there."""


def extract(
    data: bytes, fmt: Format, on_page: OnPage | None = None, path: Path | None = None
) -> Extracted:
    """The text of ``data`` read as ``fmt``; ``ConversionError`` when it cannot be read.

    ``path``, the file ``data`` was read from, lets a long PDF be converted in several
    processes that each open it, instead of each being sent the bytes.
    """
    if fmt == "pdf":
        return _pdf(path if path is not None else data, on_page)
    if fmt == "html":
        return _html(data)
    if fmt == "docx":
        return _docx(data)
    return _text(data)


def converter_version(fmt: Format) -> str:
    """The converter a format goes through, with its version (a cache key part)."""
    package = {"pdf": "pypdfium2", "html": "trafilatura", "docx": "python-docx"}.get(fmt)
    return f"{package} {version(package)}" if package else "utf-8"


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
    return "\n".join(line.rstrip() for line in lines).strip()


def _pdf(source: Source, on_page: OnPage | None) -> Extracted:
    try:
        pages = [_normalize(text) for text in pdf_pages(source, on_page)]
    except PdfError as exc:
        if exc.encrypted:
            raise ConversionError("is an encrypted PDF: remove its password first") from None
        raise ConversionError(f"is a damaged or truncated PDF ({exc})") from None
    empty = [number for number, text in enumerate(pages, 1) if not text]
    if not pages or len(empty) == len(pages):
        raise ConversionError(
            f"has no text layer on any of its {len(pages)} pages (a scan?): OCR is not built "
            "in; run it through an OCR tool first"
        )
    return Extracted(PAGE_SEPARATOR.join(pages), converter_version("pdf"), pages, empty)


def _html(data: bytes) -> Extracted:
    import trafilatura

    main = trafilatura.extract(
        data,
        output_format="markdown",
        include_tables=True,
        include_comments=False,
        include_links=False,
        favor_recall=True,
    )
    text = _normalize(main or trafilatura.html2txt(data) or "")
    if not text:
        raise ConversionError("is an HTML page with no text")
    return Extracted(text, converter_version("html"))


def _docx(data: bytes) -> Extracted:
    import docx
    from docx.table import Table

    try:
        document = docx.Document(io.BytesIO(data))
    except Exception as exc:  # python-docx raises several kinds for a damaged package
        raise ConversionError(f"is a damaged Word file ({type(exc).__name__})") from None
    blocks: list[str] = []
    for item in document.iter_inner_content():
        if isinstance(item, Table):
            rows = [" | ".join(cell.text.strip() for cell in row.cells) for row in item.rows]
            blocks.append("\n".join(rows))
        elif item.text.strip():
            blocks.append(_heading_prefix(item.style.name if item.style else "") + item.text)
    text = _normalize("\n\n".join(blocks))
    if not text:
        raise ConversionError("is a Word file with no text")
    return Extracted(text, converter_version("docx"))


def _heading_prefix(style: str) -> str:
    """``# `` marks for a Word heading style (``Heading 2`` -> ``## ``; ``Title`` -> ``# ``)."""
    if style == "Title":
        return "# "
    level = style.removeprefix("Heading ").strip()
    return "#" * int(level) + " " if style.startswith("Heading ") and level.isdigit() else ""
