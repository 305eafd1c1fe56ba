"""What a file is, told from its bytes (never from its name alone)."""

from __future__ import annotations

import io
import re
import zipfile
from pathlib import Path
from typing import ClassVar, Literal

from ralph_tui.documents.encoding import bom_encoding, not_text

Format = Literal["text", "markdown", "pdf", "html", "docx", "image"]

SUPPORTED = "plain text, Markdown, PDF, HTML, Word (.docx) and images of pages (PNG, JPEG, TIFF)"
IMAGE_SIGNATURES = (b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff", b"II*\x00", b"MM\x00*")
"""PNG, JPEG and TIFF (either byte order): pictures of pages, read by OCR."""
SNIFF_BYTES = 8192
MARKDOWN_SUFFIXES = frozenset({".md", ".markdown", ".mdown", ".mkd"})
_HTML_START = re.compile(r"^\s*(<!--.*?-->\s*)*<(!doctype\s+html|html|head|body)\b", re.I | re.S)


class UnreadableFile(ValueError):
    """A file ralph-tui cannot read: the message says what it is (after the file's name,
    which it leaves out), ``hint`` what to do about it."""

    default_hint: ClassVar[str | None] = None

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.hint = hint or self.default_hint


class UnsupportedFormat(UnreadableFile):
    """Not a format ralph-tui reads; the message names what the bytes look like."""

    default_hint = f"ralph-tui reads {SUPPORTED}"


def detect_format(data: bytes, path: Path) -> Format:
    """The format of ``data`` (the content of ``path``), or ``UnsupportedFormat``.

    A PDF, a Word file and an image (PNG, JPEG, TIFF) are recognised by their signatures,
    HTML by its opening tags; other text is text (Markdown when the name says so: the two
    read the same), in UTF-8 or in the UTF-8, UTF-16 or UTF-32 its byte-order mark
    declares. What is not text is refused saying what it looks like.
    """
    head = data[:SNIFF_BYTES]
    if head.lstrip()[:5] == b"%PDF-":
        return "pdf"
    if head.startswith(IMAGE_SIGNATURES):
        return "image"
    if head.startswith(b"PK\x03\x04"):
        return _zip_format(data)
    bom = bom_encoding(head)
    if bom is None and (found := not_text(head)) is not None:
        raise UnsupportedFormat(found.what, found.hint)
    if _HTML_START.match(head.decode(bom[0] if bom else "utf-8", errors="ignore")):
        return "html"
    return "markdown" if path.suffix.lower() in MARKDOWN_SUFFIXES else "text"


def _zip_format(data: bytes) -> Format:
    try:
        names = set(zipfile.ZipFile(io.BytesIO(data)).namelist())
    except zipfile.BadZipFile:
        raise UnsupportedFormat("is a damaged ZIP archive") from None
    if "word/document.xml" in names:
        return "docx"
    if any(name.startswith(("xl/", "ppt/")) for name in names):
        raise UnsupportedFormat("is an Excel or PowerPoint file")
    raise UnsupportedFormat("is a ZIP archive")
