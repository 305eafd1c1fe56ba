"""How a PDF page's lines are set: the size and weight of the page's body text, and the lines
that stand out from it (set larger, or bold where the body is not), for the headings of a
PDF that has neither an outline nor a filing's numbering (``pdf_typography``).

Bounded cost: a line's style is read from three of its characters (its first, middle and
last), four pdfium calls each, a few hundred calls a page against the tens of thousands its
text page costs. A line's size is its font size as printed: the font's size times the scale
of the character's matrix (a page drawn at a quarter of its size has 3-point text set in a
12-point font).

Pure functions over pdfium's raw calls and plain tuples, so the converter's child processes
import nothing else of ralph-tui.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from typing import Any, NamedTuple

MAX_LINE = 200
"""The longest line told as standing out (a longer one is a paragraph's line)."""
MAX_RUN = 3
"""The most lines of one style joined into one title (a heading set over two lines)."""
MAX_STANDING = 200
"""The most lines a page tells as standing out (a page set all in bold tells none more)."""
LARGER = 1.15
"""A line is set larger than the body when its size is at least this many times the body's."""
SAME_SIZE = 0.02
"""Sizes within this share of each other are one size."""
BOLD_NAME = re.compile(r"bold|black|heavy|demi|semibold|extrabold|ultrabold", re.IGNORECASE)
"""A font name that says its face is bold ("Arial-BoldMT", "Helvetica-Bold", "Inter-Black")."""
BOLD_WEIGHT = 600
FORCE_BOLD = 1 << 18
"""The font descriptor's flag of a face drawn bold."""


class Style(NamedTuple):
    size: float
    bold: bool


class Standing(NamedTuple):
    """Lines of a page set in one style that stands out from its body (their texts joined
    by a line break, as they stand on the page), and that style."""

    text: str
    size: float
    bold: bool


class PageStyle(NamedTuple):
    """A page's body style (the size and weight most of its characters are set in; size 0
    when the page has no text) and its lines that stand out, in page order."""

    body_size: float = 0.0
    body_bold: bool = False
    body_chars: int = 0
    """How many characters of the page are set in the body's style."""
    standing: tuple[Standing, ...] = ()

    @classmethod
    def from_json(cls, data: list[Any]) -> PageStyle:
        """A page's style as the converter's child process printed it (a JSON array)."""
        size, bold, chars, standing = data
        lines = tuple(Standing(str(t), float(s), bool(b)) for t, s, b in standing[:MAX_STANDING])
        return cls(float(size), bool(bold), int(chars), lines)


CharStyle = Callable[[int], Style]
"""The style of a page's character, by its index in the page's text."""


def page_style(text: str, style: CharStyle) -> PageStyle:
    """The style of the page whose text is ``text`` (one character an index, as pdfium gives
    it), read through ``style``."""
    sizes: Counter[Style] = Counter()
    lines: list[tuple[str, Style] | None] = []  # None: a line of mixed styles, or too long
    at = 0
    for line in text.splitlines(keepends=True):
        shown = line.rstrip()
        first = len(shown) - len(shown.lstrip())
        if first < len(shown):
            last = len(shown) - 1
            middle = (first + last) // 2
            while shown[middle].isspace():
                middle += 1
            styles = [style(at + first), style(at + middle), style(at + last)]
            sizes[_rounded(styles[1])] += last - first + 1
            uniform = all(_same_size(s.size, styles[1].size) for s in styles)
            bold = sum(s.bold for s in styles) >= 2  # (a numeral or a bullet may be plain)
            fits = uniform and last - first < MAX_LINE
            lines.append((shown[first:], Style(styles[1].size, bold)) if fits else None)
        at += len(line)
    if not sizes:
        return PageStyle()
    body, chars = sizes.most_common(1)[0]
    return PageStyle(body.size, body.bold, chars, _standing(lines, body))


def _standing(lines: list[tuple[str, Style] | None], body: Style) -> tuple[Standing, ...]:
    """The runs of consecutive lines of one style that stands out from ``body``."""
    runs: list[Standing] = []
    run: list[str] = []
    run_style: Style | None = None

    def close() -> None:
        # (more lines than a title takes: a paragraph set bold, none of it a heading)
        if run and run_style is not None and len(run) <= MAX_RUN and len(runs) < MAX_STANDING:
            runs.append(Standing("\n".join(run), run_style.size, run_style.bold))

    for line in lines:
        stands = line is not None and (
            line[1].size >= body.size * LARGER or (line[1].bold and not body.bold)
        )
        if not stands or line is None:
            close()
            run, run_style = [], None
            continue
        text, line_style = line
        same = run_style is not None and (
            _same_size(line_style.size, run_style.size) and line_style.bold == run_style.bold
        )
        if same:
            run.append(text)
        else:
            close()
            run, run_style = [text], line_style
    close()
    return tuple(runs)


def _same_size(one: float, other: float) -> bool:
    return abs(one - other) <= SAME_SIZE * max(one, other)


def _rounded(style: Style) -> Style:
    """``style`` with its size to a tenth of a point (sizes drawn through a matrix vary in
    their last digits)."""
    return Style(round(style.size, 1), style.bold)


def char_style(text_page) -> CharStyle:  # type: ignore[no-untyped-def]
    """The style of a character of the page, by index: its font size times its matrix's
    scale, and whether its font is bold (by its weight, its descriptor's flag or its name);
    pdfium's calls with their out-values reused."""
    import ctypes
    import math

    import pypdfium2.raw as pdfium_c

    raw = text_page.raw
    matrix = pdfium_c.FS_MATRIX()
    matrix_ref = ctypes.byref(matrix)
    name = ctypes.create_string_buffer(128)
    flags = ctypes.c_int()
    flags_ref = ctypes.byref(flags)
    font_size, get_matrix = pdfium_c.FPDFText_GetFontSize, pdfium_c.FPDFText_GetMatrix
    weight, font_info = pdfium_c.FPDFText_GetFontWeight, pdfium_c.FPDFText_GetFontInfo
    bold_names: dict[bytes, bool] = {}

    def style(index: int) -> Style:
        size = font_size(raw, index)
        if get_matrix(raw, index, matrix_ref):
            size *= math.sqrt(abs(matrix.a * matrix.d - matrix.b * matrix.c))
        bold = weight(raw, index) >= BOLD_WEIGHT
        if not bold and font_info(raw, index, name, len(name), flags_ref):
            found = name.value
            if found not in bold_names:
                bold_names[found] = BOLD_NAME.search(found.decode("latin-1")) is not None
            bold = bold_names[found] or bool(flags.value & FORCE_BOLD)
        return Style(size, bold)

    return style
