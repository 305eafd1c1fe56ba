"""A fetched body as text, through the documents layer's converters (one converter per
format in the whole program), with the page's title and its links."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import PurePosixPath
from urllib.parse import urlsplit

from ralph_tui.documents import SUPPORTED
from ralph_tui.documents.convert import ConversionError, Heading, extract
from ralph_tui.documents.detect import Format, UnsupportedFormat, detect_format
from ralph_tui.documents.pdf import PdfError, pdf_outline
from ralph_tui.external.urls import resolve

HTML_TYPES = ("text/html", "application/xhtml+xml")


@dataclass
class Converted:
    format: Format
    text: str
    title: str = ""
    pages: list[str] | None = None
    links: list[str] = field(default_factory=list)
    outline: list[tuple[int, str, int]] = field(default_factory=list)
    headings: list[Heading] = field(default_factory=list)


class NotADocument(ValueError):
    """The body is not a format ralph-tui reads (or cannot be read as its format says)."""


def convert_page(body: bytes, content_type: str, url: str) -> Converted:
    """The text, title and links of ``body`` fetched from ``url``; ``NotADocument`` says
    why not."""
    fmt = _format_of(body, content_type, url)
    try:
        extracted = extract(body, fmt)
    except ConversionError as exc:
        raise NotADocument(f"{fmt} that {exc}") from None
    title, links = _html_title_and_links(body, url) if fmt == "html" else ("", [])
    if not title:
        # A PDF's first heading is a part or an item ("PART I"), not its title: its name is.
        first = extracted.headings[0].title if extracted.headings and fmt != "pdf" else ""
        title = first or PurePosixPath(urlsplit(url).path).name
    outline = _outline(body) if fmt == "pdf" else []
    return Converted(
        fmt, extracted.text, title, extracted.pages, links, outline, extracted.headings
    )


def _outline(body: bytes) -> list[tuple[int, str, int]]:
    try:
        return pdf_outline(body)
    except PdfError:
        return []


def _format_of(body: bytes, content_type: str, url: str) -> Format:
    kind = content_type.split(";", 1)[0].strip().lower()
    try:
        fmt = detect_format(body, PurePosixPath(urlsplit(url).path or "/"))  # type: ignore[arg-type]
    except UnsupportedFormat as exc:
        raise NotADocument(f"{kind or 'the body'} {exc}; ralph-tui reads {SUPPORTED}") from None
    if fmt == "image":  # pictures on a site are not its documentation: no OCR while crawling
        raise NotADocument(f"{kind or 'the body'} is an image, not a page of text")
    if kind in HTML_TYPES and fmt in ("text", "markdown"):
        return "html"
    if (
        kind
        and fmt in ("text", "markdown")
        and not (kind.startswith("text/") or kind in ("application/json", "application/xml"))
    ):
        raise NotADocument(f"{kind} is not a document; ralph-tui reads {SUPPORTED}")
    return fmt


def _html_title_and_links(body: bytes, base: str) -> tuple[str, list[str]]:
    import lxml.html

    try:
        tree = lxml.html.fromstring(body)
    except (ValueError, lxml.etree.ParserError):
        return "", []
    title = " ".join((tree.findtext(".//title") or "").split())
    hrefs = (a.get("href") or "" for a in tree.iter("a"))
    links = [url for url in (resolve(base, href) for href in hrefs if href) if url]
    return title, list(dict.fromkeys(links))
