"""A PDF quote's page as a picture, with the boxes of the quote's characters where they
stand on it: pypdfium2 renders the page and gives each character's box.

The page is rendered in grey 900 pixels wide, reduced to 16 shades and written as a 4-bit PNG
(Pillow): a dense text page comes to about 35 KB (50 KB in base64), so a report quoting seven
pages stays under 400 KB.
"""

from __future__ import annotations

import io
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ralph_tui.documents.pdf import PDFIUM_LOCK
from ralph_tui.evidence import QuoteLocation

PAGE_WIDTH_PX = 900
"""The width pages are rendered at: sharp enough to read a table, small enough to embed."""

GREY_SHADES = 16

Box = tuple[float, float, float, float]
"""``(left, top, width, height)`` in the picture's pixels."""


@dataclass
class PagePicture:
    """One rendered page and, for each quote placed on it, its highlight boxes (one per line
    of the quote)."""

    document: str
    page: int
    png: bytes
    width: int
    height: int
    boxes: dict[int, list[Box]] = field(default_factory=dict)
    """By quote number; a quote whose characters could not be found on the page has none."""


def page_pictures(quotes: Sequence[QuoteLocation], paths: dict[str, Path]) -> list[PagePicture]:
    """The pictures of the pages the PDF quotes stand on, each page once, in quote order.
    ``paths`` gives each PDF document's file by name; a file that is missing or cannot be
    opened gives no pictures."""
    with PDFIUM_LOCK:
        return _pictures(quotes, paths)


def _pictures(quotes: Sequence[QuoteLocation], paths: dict[str, Path]) -> list[PagePicture]:
    import pypdfium2 as pdfium

    pictures: dict[tuple[str, int], PagePicture] = {}
    opened: dict[str, Any] = {}
    try:
        for quote in quotes:
            if quote.source not in paths or quote.page is None:
                continue
            if quote.source not in opened:
                try:
                    opened[quote.source] = pdfium.PdfDocument(str(paths[quote.source]))
                except (pdfium.PdfiumError, OSError):
                    opened[quote.source] = None
            pdf = opened[quote.source]
            if pdf is None or not 1 <= quote.page <= len(pdf):
                continue
            key = (quote.source, quote.page)
            if key not in pictures:
                pictures[key] = _render(pdf, quote.source, quote.page)
            pictures[key].boxes[quote.number] = _quote_boxes(pdf, quote, pictures[key])
    finally:
        for pdf in opened.values():
            if pdf is not None:
                pdf.close()
    return list(pictures.values())


def _render(pdf: Any, document: str, page_number: int) -> PagePicture:
    page = pdf[page_number - 1]
    try:
        scale = PAGE_WIDTH_PX / page.get_width()
        image = page.render(scale=scale, grayscale=True).to_pil()
    finally:
        page.close()
    return PagePicture(document, page_number, grey_png(image), image.width, image.height)


def grey_png(image: Any) -> bytes:
    """A grey Pillow image as a 4-bit PNG of ``GREY_SHADES`` evenly spaced greys: each
    pixel's grey is mapped to its shade's index, under a palette of those greys (a fixed
    mapping is several times faster than Pillow's ``quantize`` and as small)."""
    from PIL import Image

    step = 256 // GREY_SHADES
    indices = image.point([grey // step for grey in range(256)])
    shades = Image.frombytes("P", image.size, indices.tobytes())
    shades.putpalette(
        [level for shade in range(GREY_SHADES) for level in (shade * 255 // (GREY_SHADES - 1),) * 3]
    )
    buffer = io.BytesIO()
    shades.save(buffer, format="PNG", bits=4)
    return buffer.getvalue()


def _quote_boxes(pdf: Any, quote: QuoteLocation, picture: PagePicture) -> list[Box]:
    """The quote's characters' boxes on the picture, merged into one box per line."""
    page = pdf[quote.page - 1 if quote.page else 0]
    text_page = page.get_textpage()
    try:
        indices = char_indices(text_page.get_text_range(), quote)
        scale = picture.width / page.get_width()
        page_height = page.get_height()
        char_boxes = []
        for index in indices:
            left, bottom, right, top = text_page.get_charbox(index)
            if right > left and top > bottom:
                char_boxes.append(
                    (left * scale, (page_height - top) * scale, right * scale,
                     (page_height - bottom) * scale)
                )  # fmt: skip
        return merge_lines(char_boxes)
    finally:
        text_page.close()
        page.close()


def char_indices(raw: str, quote: QuoteLocation) -> list[int]:
    """The indices of pdfium's characters that make up ``quote`` on its page.

    The page text quotes are located in is pdfium's, with line ends and trailing blanks
    normalised, so the quote is searched in pdfium's own text with any run of white space
    matching any other, the match nearest the quote's recorded page offset kept.
    """
    words = quote.text.split()
    if not words:
        return []
    pattern = re.compile(r"\s+".join(re.escape(word) for word in words))
    matches = list(pattern.finditer(raw))
    if not matches:
        return []
    near = quote.page_start or 0
    best = min(matches, key=lambda match: abs(match.start() - near))
    return [i for i in range(best.start(), best.end()) if not raw[i].isspace()]


def merge_lines(char_boxes: list[tuple[float, float, float, float]]) -> list[Box]:
    """Character boxes ``(x0, y0, x1, y1)`` in reading order joined into one box per line:
    a box starting left of the previous one's end, or off its line, starts a new line."""
    lines: list[list[float]] = []
    for x0, y0, x1, y1 in char_boxes:
        last = lines[-1] if lines else None
        same_line = last is not None and x0 >= last[0] and y0 < last[3] and y1 > last[1]
        if last is not None and same_line:
            last[1], last[2], last[3] = min(last[1], y0), max(last[2], x1), max(last[3], y1)
        else:
            lines.append([x0, y0, x1, y1])
    return [(x0, y0, x1 - x0, y1 - y0) for x0, y0, x1, y1 in lines]
