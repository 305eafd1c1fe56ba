"""How a PDF page's lines are set: the size and weight of the page's body text, and the lines
that stand out from it (set larger, or bold where the body is not), for the headings of a
PDF that has neither an outline nor a filing's numbering (``pdf_typography``).

Bounded cost: a line's style is read from its middle character (four pdfium calls), and
from its first and last only where the middle stands out: a few hundred calls a page,
against the tens of thousands its text page costs. A line's size is its font size as
printed: the font's size times the scale of the character's matrix (a page drawn at a
quarter of its size has 3-point text set in a 12-point font).

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
MAX_BLOCK = 4
"""The most lines in a row of one standing-out style told as titles (more: a paragraph)."""
JOINING = frozenset(
    {"a", "an", "and", "as", "at", "by", "for", "from", "in", "into", "of", "on", "or", "the"}
    | {"to", "with", "&", "—", "–", "-"}
)
"""Words that end a line of a title wrapped over two lines ("Research and / Development")."""
MAX_STANDING = 200
"""The most lines a page tells as standing out (a page set all in bold tells none more)."""
LARGER = 1.15
"""A line is set larger than the body when its size is at least this many times the body's."""
SAME_SIZE = 0.02
"""Sizes within this share of each other are one size."""
BOLD_NAME = re.compile(r"bold|black|heavy|demi|semibold|extrabold|ultrabold", re.IGNORECASE)
"""A font name that says its face is bold ("Arial-BoldMT", "Helvetica-Bold", "Inter-Black")."""
BOLD_WEIGHT = 600
LINE = re.compile(r"^[^\S\r\n]*(\S(?:[^\r\n]*\S)?)", re.MULTILINE)
"""A line of a page's text, from its first to its last character that is not a space."""
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
    sizes: Counter[tuple[float, bool]] = Counter()
    middles: list[tuple[int, int, Style]] = []  # a line's first and last characters, style
    for line in LINE.finditer(text):
        first, end = line.span(1)
        middle = (first + end - 1) // 2
        while text[middle].isspace():
            middle += 1
        found = style(middle)
        # (to a tenth of a point: sizes drawn through a matrix vary in their last digits)
        sizes[round(found.size, 1), found.bold] += end - first
        middles.append((first, end - 1, found))
    if not sizes:
        return PageStyle()
    (body_size, body_bold), chars = sizes.most_common(1)[0]
    body = Style(body_size, body_bold)
    # Only a line whose middle stands out has its first and last characters read: set in
    # one size throughout, and bold in two of the three (a numeral or a bullet may be plain).
    lines: list[tuple[str, Style] | None] = []  # None: a line of mixed styles, or too long
    for first, last, found in middles:
        if not _stands_out(found, body) or last - first >= MAX_LINE:
            lines.append(None)
            continue
        styles = [style(first), found, style(last)]
        uniform = all(_same_size(s.size, found.size) for s in styles)
        bold = sum(s.bold for s in styles) >= 2
        lines.append((text[first : last + 1], Style(found.size, bold)) if uniform else None)
    return PageStyle(body.size, body.bold, chars, _standing(lines, body))


def _stands_out(style: Style, body: Style) -> bool:
    return style.size >= body.size * LARGER or (style.bold and not body.bold)


def _standing(lines: list[tuple[str, Style] | None], body: Style) -> tuple[Standing, ...]:
    """The titles set in a style that stands out from ``body``: each a line, or lines of one
    style where a line runs on into the next (``_runs_on``: a title wrapped over lines). A
    block of more than ``MAX_BLOCK`` lines of one such style is a paragraph or a list set
    bold (a contents page): none of it is told."""
    found: list[Standing] = []
    block: list[str] = []
    block_style: Style | None = None

    def close() -> None:
        if not block or block_style is None or len(block) > MAX_BLOCK:
            return
        titles = [block[0]]
        for text in block[1:]:
            if _runs_on(titles[-1], text):
                titles[-1] += "\n" + text
            else:
                titles.append(text)
        for title in titles[: MAX_STANDING - len(found)]:
            found.append(Standing(title, block_style.size, block_style.bold))

    for line in lines:
        if line is None or not _stands_out(line[1], body):
            close()
            block, block_style = [], None
            continue
        text, line_style = line
        same = block_style is not None and (
            _same_size(line_style.size, block_style.size) and line_style.bold == block_style.bold
        )
        if same:
            block.append(text)
        else:
            close()
            block, block_style = [text], line_style
    close()
    return tuple(found)


def _runs_on(line: str, following: str) -> bool:
    """Whether ``line`` runs on into ``following`` (one title wrapped over two lines): it
    ends in a word that joins ("and", "of", a dash, a comma), or the next begins in lower
    case."""
    last = line.split()[-1].casefold()
    return last in JOINING or last.endswith((",", "-", "—", "–")) or following[:1].islower()


def _same_size(one: float, other: float) -> bool:
    return abs(one - other) <= SAME_SIZE * max(one, other)


def char_style(text_page) -> CharStyle:  # type: ignore[no-untyped-def]
    """The style of a character of the page, by index: its font size times its matrix's
    scale, and whether its font is bold (by its name, its descriptor's flag or its weight,
    told once a font); pdfium's calls with their out-values reused."""
    import ctypes

    import pypdfium2.raw as pdfium_c

    raw = text_page.raw
    matrix = pdfium_c.FS_MATRIX()
    matrix_ref = ctypes.byref(matrix)
    name = ctypes.create_string_buffer(128)
    flags = ctypes.c_int()
    flags_ref = ctypes.byref(flags)
    font_size, get_matrix = pdfium_c.FPDFText_GetFontSize, pdfium_c.FPDFText_GetMatrix
    weight, font_info = pdfium_c.FPDFText_GetFontWeight, pdfium_c.FPDFText_GetFontInfo
    bold_fonts: dict[tuple[bytes, int], bool] = {}

    def style(index: int) -> Style:
        size = font_size(raw, index)
        if get_matrix(raw, index, matrix_ref):
            size *= abs(matrix.a * matrix.d - matrix.b * matrix.c) ** 0.5
        if not font_info(raw, index, name, 128, flags_ref):
            return Style(size, weight(raw, index) >= BOLD_WEIGHT)
        font = (name.value, flags.value)
        bold = bold_fonts.get(font)
        if bold is None:
            bold = bold_fonts[font] = (
                BOLD_NAME.search(font[0].decode("latin-1")) is not None
                or bool(font[1] & FORCE_BOLD)
                or weight(raw, index) >= BOLD_WEIGHT
            )
        return Style(size, bold)

    return style
