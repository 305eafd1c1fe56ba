"""PDF text per page with pypdfium2, on every core for a long document; a page that holds a
table gets its rows as tab-separated lines under their column headers (``pdf_tables``).

Building a page's text is nearly all the cost (pdfium's text page), and pdfium is not
thread-safe, so a long PDF on disk is split into page ranges, each converted by a child
Python process (this file run as a script: ``python pdf.py PATH START END WHAT``, which opens
the file itself and prints the pages as JSON); a short one is converted in this process. Plain child
processes, not a multiprocessing pool: nothing (no resource tracker) outlives the call.

How each page's lines are set (``pdf_styles``) is read the same way, in a second read made
only for a PDF whose headings its typography alone can give (no outline, no filing's
numbering).
"""

from __future__ import annotations

import bisect
import contextlib
import itertools
import json
import os
import re
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

if __package__:
    from ralph_tui.documents import pdf_styles, pdf_tables
else:  # run as the converter's child script: its siblings loaded from their files, no more
    import importlib.util
    from types import ModuleType

    def _sibling(name: str) -> ModuleType:
        spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name(f"{name}.py"))
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # (its dataclasses look their module up)
        spec.loader.exec_module(module)
        return module

    pdf_tables = _sibling("pdf_tables")
    pdf_styles = _sibling("pdf_styles")

WORD = re.compile(r"\S+")
PARALLEL_FROM_PAGES = 200
MAX_WORKERS = 4

Source = Path | bytes
OnPage = Callable[[int, int], None]
TEXT, STYLES = "text", "styles"
"""What a read of a PDF gives of each page."""
Box = Callable[[int], tuple[float, float, float, float]]
"""The box (left, bottom, right, top) of a page's character, by its index in the text."""
PDFIUM_LOCK = threading.RLock()
"""Held by every use of pdfium in this process (here, OCR's page pictures, a report's page
pictures): pdfium is not thread-safe, not even over two documents, and two threads in it
at once end the process (the app's estimate read a PDF while a run started on it: the
process died of a segmentation fault). Long PDFs are read in child processes, which need
no lock; a thread that waits for it waits for the other's document."""


class PdfError(ValueError):
    """The PDF cannot be opened: ``encrypted`` says whether a password is why."""

    def __init__(self, message: str, *, encrypted: bool) -> None:
        super().__init__(message)
        self.encrypted = encrypted


def pdf_pages(source: Source, on_page: OnPage | None = None) -> list[str]:
    """The raw text of each page of the PDF at ``source`` (a path or its bytes)."""
    return [str(text) for text in _each_page(source, TEXT, on_page)]


def pdf_page_styles(source: Source) -> list[pdf_styles.PageStyle]:
    """How each page's lines are set (``pdf_styles``): a second read of the PDF, made only
    for one whose headings its typography alone can give (most PDFs never pay for it)."""
    return [pdf_styles.PageStyle.from_json(style) for style in _each_page(source, STYLES)]


def _each_page(source: Source, what: str, on_page: OnPage | None = None) -> list[Any]:
    """``what`` of each page (``TEXT``, or ``STYLES``), in child processes for a long PDF."""
    total = page_count(source)
    workers = min(os.cpu_count() or 1, MAX_WORKERS)
    if not isinstance(source, Path) or total < PARALLEL_FROM_PAGES or workers < 2:
        return _pages_of(source, 0, total, on_page, total, what)
    step = -(-total // workers)
    ranges = [(first, min(first + step, total)) for first in range(0, total, step)]
    children = [
        subprocess.Popen(
            # This file as an isolated script (-I: no script dir or env on sys.path): the
            # child imports pypdfium2 and, of ralph-tui, only its siblings pdf_tables and
            # pdf_styles.
            [sys.executable, "-I", __file__, str(source), str(first), str(last), what],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        for first, last in ranges
    ]
    pages: list[Any] = []
    try:
        for child in children:
            output, _ = child.communicate()
            if child.returncode != 0:
                raise PdfError("a page range could not be converted", encrypted=False)
            pages.extend(json.loads(output))
            if on_page is not None:
                on_page(len(pages), total)
    finally:
        for child in children:
            if child.poll() is None:
                child.kill()
                child.wait()
    return pages


def pdf_outline(source: Source) -> list[tuple[int, str, int]]:
    """The PDF's outline (bookmarks): ``(level, title, page index)`` in order; empty when it
    has none (or its entries point nowhere)."""
    with _opened(source) as document:
        entries = []
        for bookmark in document.get_toc():
            destination = bookmark.get_dest()
            index = destination.get_index() if destination is not None else None
            title = " ".join((bookmark.get_title() or "").split())
            if index is not None and title:
                entries.append((int(bookmark.level), title, int(index)))
        return entries


def page_count(source: Source) -> int:
    with _opened(source) as document:
        return len(document)


def _pages_of(
    source: Source,
    start: int,
    end: int,
    on_page: OnPage | None = None,
    total: int = 0,
    what: str = TEXT,
) -> list[Any]:
    pages: list[Any] = []
    read = _page_text if what == TEXT else _page_style
    with _opened(source) as document:
        for index in range(start, end):
            page = document[index]
            text_page = page.get_textpage()
            pages.append(read(text_page))
            text_page.close()
            page.close()
            if on_page is not None:
                on_page(index + 1, total)
    return pages


def _page_text(text_page) -> str:  # type: ignore[no-untyped-def]
    """pdfium's text of a page, or, when it looks like it holds a table, the page with its
    tables as rows (``pdf_tables``), from where each word stands on the lines near a line
    that ends in a figure: two character boxes a word, a few milliseconds a page."""
    text: str = text_page.get_text_range()
    if len(text) != text_page.count_chars():
        return text  # (a text that does not map one character to one box stays as it is)
    box = _cached(_char_box(text_page))
    text, origin = _rows_apart(text, box)
    return _with_tables(text, box if origin is None else lambda index: box(origin(index)))


def _page_style(text_page) -> pdf_styles.PageStyle:  # type: ignore[no-untyped-def]
    """How the lines of a page are set, its rows apart as its text has them (before its
    tables are laid out: a title stands on a line of its own either way)."""
    text: str = text_page.get_text_range()
    if len(text) != text_page.count_chars():
        return pdf_styles.PageStyle()  # (characters without boxes: no style either)
    text, origin = _rows_apart(text, _cached(_char_box(text_page)))
    style = pdf_styles.char_style(text_page)
    return pdf_styles.page_style(text, style if origin is None else lambda i: style(origin(i)))


def _with_tables(text: str, box: Box) -> str:
    """``text`` with its tables as rows, when it looks like it holds one."""
    if not pdf_tables.looks_tabular(text):
        return text
    raw_lines = text.splitlines(keepends=True)
    placed = pdf_tables.lines_to_place([line.rstrip("\r\n") for line in raw_lines])
    lines: list[list[pdf_tables.Run]] = []
    at = 0
    for number, line in enumerate(raw_lines):
        shown = line.rstrip("\r\n")
        if number in placed:
            words = []
            for word in WORD.finditer(shown):
                left, bottom, _, top = box(at + word.start())
                _, low, right, high = box(at + word.end() - 1)
                words.append((left, min(bottom, low), right, max(top, high), word.group()))
            lines.append(words)
        else:  # far from any table: its words' places are not needed
            lines.append([(0.0, 0.0, 0.0, 0.0, shown)] if shown.strip() else [])
        at += len(line)
    laid = pdf_tables.page_with_tables(lines)
    return text if laid is None else laid


def _rows_apart(text: str, box: Box) -> tuple[str, Origin | None]:
    """``text`` with a line break before each word that stands on another row of the page
    than the words before it on pdfium's line: pdfium runs a page's rows together when its
    text is drawn in glyphs too small for its line test (a filing printed to PDF at a
    quarter of its size: a whole balance sheet as one line), or a bullet list's items into
    one line. The break replaces the white space before the word, so each character keeps
    its index (and its box); pdfium's order of the words is kept. Where pdfium put no white
    space at all between two rows (a row that starts just left of where the row above it
    ends: "Current AssetsCash and cash equivalents"), a line break is put in, and the text
    comes with its ``Origin``: where each of its characters is in pdfium's text.

    A line is looked into only when its last character stands wholly below its first, and
    its first word reads left to right (in text set sideways, reading down the page, its
    second character stands below its first: such a line is one line); a word's height is its
    first character's (one box a word: this is most of the cost of such a page)."""
    chars: list[str] | None = None
    breaks: list[int] = []  # where a line break goes in, before pdfium's character there
    at = 0
    for line in text.splitlines(keepends=True):
        found = list(WORD.finditer(line))
        if len(found) > 1:
            first = found[0].start()
            _, bottom, _, top = box(at + first)
            last = len(line.rstrip()) - 1
            second = at + first + 1  # (a word pdfium joined across two rows ends below)
            sideways = found[0].end() - first > 1 and box(second)[3] < bottom
            if box(at + last)[3] < bottom and not sideways:
                for before, word in itertools.pairwise(found):
                    _, low, _, high = box(at + word.start())
                    if high < bottom or low > top:  # wholly below (or above) the row so far
                        before_word = range(at + before.start(), at + before.end())
                        joined = _row_within(text, box, before_word, (bottom, top))
                        if joined is not None:
                            breaks.append(joined)
                        else:
                            chars = chars if chars is not None else list(text)
                            chars[at + word.start() - 1] = "\n"
                        bottom, top = low, high
                    else:  # (comparisons: min and max cost a call each, 10^5 a long filing)
                        bottom = low if low < bottom else bottom
                        top = high if high > top else top
        at += len(line)
    if chars is None and not breaks:
        return text, None
    out = chars if chars is not None else list(text)
    for index in reversed(breaks):
        out.insert(index, "\n")
    return "".join(out), _origin(breaks)


Origin = Callable[[int], int]
"""Where a character of a page's text is in pdfium's text of the page (by index)."""


def _row_within(text: str, box: Box, word: range, row: tuple[float, float]) -> int | None:
    """Where in ``word`` (its indices) the next row begins, when pdfium ran two rows together
    without a space: its first character that stands wholly off ``row`` (the bottom and top
    of the row it starts on), or ``None`` when it ends on that row, or goes on after a hyphen
    (a word hyphenated over two rows stays whole)."""
    bottom, top = row
    if len(word) < 2 or not _off_row(box(word[-1]), bottom, top):
        return None
    for index in word[1:]:
        if _off_row(box(index), bottom, top):
            return None if text[index - 1] in HYPHENS else index
    return None


def _off_row(char: tuple[float, float, float, float], bottom: float, top: float) -> bool:
    return char[3] < bottom or char[1] > top


def _origin(breaks: list[int]) -> Origin:
    """The ``Origin`` of a text with a line break put in before each of ``breaks`` (indices
    in pdfium's text, in order); a break put in stands where the character before it is."""
    placed = [index + count for count, index in enumerate(breaks)]
    return lambda index: index - bisect.bisect_right(placed, index)


HYPHENS = "-\u00ad\u2010\u2011\ufffe"
"""The characters that end a row in the middle of a word: hyphen, soft and hard hyphens, and
pdfium's mark of a hyphen at a row's end."""


def _cached(box: Box) -> Box:
    """``box`` remembering the boxes it gave (the table layout asks again for the boxes of
    the words the row breaks looked at)."""
    seen: dict[int, tuple[float, float, float, float]] = {}

    def cached(index: int) -> tuple[float, float, float, float]:
        if index in seen:
            return seen[index]
        found = seen[index] = box(index)
        return found

    return cached


def _char_box(text_page) -> Box:  # type: ignore[no-untyped-def]
    """The box (left, bottom, right, top) of a character of the page, by index: pdfium's
    call with its four numbers reused (several times quicker than a wrapper per call)."""
    import ctypes

    import pypdfium2.raw as pdfium_c

    numbers = [ctypes.c_double() for _ in range(4)]
    left, right, bottom, top = (ctypes.byref(number) for number in numbers)
    raw, call = text_page.raw, pdfium_c.FPDFText_GetCharBox

    def box(index: int) -> tuple[float, float, float, float]:
        call(raw, index, left, right, bottom, top)
        return numbers[0].value, numbers[2].value, numbers[1].value, numbers[3].value

    return box


@contextlib.contextmanager
def _opened(source: Source) -> Iterator[Any]:
    """The PDF at ``source`` open, under ``PDFIUM_LOCK`` until it is closed again."""
    with PDFIUM_LOCK:
        document = _open(source)
        try:
            yield document
        finally:
            document.close()


def _open(source: Source):  # type: ignore[no-untyped-def]
    import pypdfium2 as pdfium

    try:
        return pdfium.PdfDocument(str(source) if isinstance(source, Path) else source)
    except pdfium.PdfiumError as exc:
        raise PdfError(str(exc), encrypted="password" in str(exc).lower()) from None


if __name__ == "__main__":
    # A child of ``_each_page``: print WHAT of pages START..END-1 of PATH as JSON.
    path, first, last, what = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    json.dump(_pages_of(Path(path), first, last, what=what), sys.stdout)
