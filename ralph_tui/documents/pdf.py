"""PDF text per page with pypdfium2, on every core for a long document.

Building a page's text is nearly all the cost (pdfium's text page), and pdfium is not
thread-safe, so a long PDF is split into page ranges converted in separate processes
(each opens the file itself); a short one is converted in this process.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path

PARALLEL_FROM_PAGES = 200
PAGES_PER_TASK = 100
MAX_WORKERS = 4

Source = Path | bytes
OnPage = Callable[[int, int], None]


class PdfError(ValueError):
    """The PDF cannot be opened: ``encrypted`` says whether a password is why."""

    def __init__(self, message: str, *, encrypted: bool) -> None:
        super().__init__(message)
        self.encrypted = encrypted


def pdf_pages(source: Source, on_page: OnPage | None = None) -> list[str]:
    """The raw text of each page of the PDF at ``source`` (a path or its bytes)."""
    total = page_count(source)
    workers = min(os.cpu_count() or 1, MAX_WORKERS)
    if total < PARALLEL_FROM_PAGES or workers < 2:
        return _pages_of(source, 0, total, on_page, total)
    ranges = [(s, min(s + PAGES_PER_TASK, total)) for s in range(0, total, PAGES_PER_TASK)]
    pages: list[str] = []
    # spawn, not fork: the app runs threads, and a forked child would inherit their locks.
    with ProcessPoolExecutor(workers, mp_context=get_context("spawn")) as pool:
        for chunk in pool.map(_pages_of, *zip(*((source, s, e) for s, e in ranges), strict=True)):
            pages.extend(chunk)
            if on_page is not None:
                on_page(len(pages), total)
    return pages


def page_count(source: Source) -> int:
    document = _open(source)
    try:
        return len(document)
    finally:
        document.close()


def _pages_of(
    source: Source,
    start: int,
    end: int,
    on_page: OnPage | None = None,
    total: int = 0,
) -> list[str]:
    document = _open(source)
    pages = []
    try:
        for index in range(start, end):
            page = document[index]
            text_page = page.get_textpage()
            pages.append(text_page.get_text_range())
            text_page.close()
            page.close()
            if on_page is not None:
                on_page(index + 1, total)
    finally:
        document.close()
    return pages


def _open(source: Source):  # type: ignore[no-untyped-def]
    import pypdfium2 as pdfium

    try:
        return pdfium.PdfDocument(str(source) if isinstance(source, Path) else source)
    except pdfium.PdfiumError as exc:
        raise PdfError(str(exc), encrypted="password" in str(exc).lower()) from None
