"""What a file is, told from its bytes (never from its name alone)."""

from __future__ import annotations

import io
import re
import zipfile
from pathlib import Path
from typing import Literal

Format = Literal["text", "markdown", "pdf", "html", "docx"]

SUPPORTED = "plain text, Markdown, PDF, HTML and Word (.docx)"
SNIFF_BYTES = 8192
MARKDOWN_SUFFIXES = frozenset({".md", ".markdown", ".mdown", ".mkd"})
_HTML_START = re.compile(rb"^\s*(<!--.*?-->\s*)*<(!doctype\s+html|html|head|body)\b", re.I | re.S)


class UnsupportedFormat(ValueError):
    """Not a format ralph-tui reads; the message names what the bytes look like."""


def detect_format(data: bytes, path: Path) -> Format:
    """The format of ``data`` (the content of ``path``), or ``UnsupportedFormat``.

    A PDF and a Word file are recognised by their signatures, HTML by its opening tags;
    other UTF-8 text is text (Markdown when the name says so: the two read the same).
    """
    head = data[:SNIFF_BYTES]
    if head.lstrip()[:5] == b"%PDF-":
        return "pdf"
    if head.startswith(b"PK\x03\x04"):
        return _zip_format(data)
    if b"\x00" in head:
        raise UnsupportedFormat("looks like a binary file")
    if _HTML_START.match(head.removeprefix(b"\xef\xbb\xbf")):
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
