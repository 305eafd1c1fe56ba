"""Render one PDF page to a PNG, run as an isolated script in a child process:
``python -I page_render.py PAGE MAX_EDGE MAX_PIXELS`` with the PDF's bytes on stdin, the PNG
on stdout, exit 2 (a line on stderr) when the page cannot be rendered.

A child process because pdfium is not thread-safe (a render in a thread could meet a
conversion in the main one) and a page built to render slowly must be stoppable: the
parent kills the child past its time limit. It imports pypdfium2 and Pillow, nothing of
ralph-tui.
"""

from __future__ import annotations

import io
import sys


def render_png(data: bytes, page_number: int, max_edge: int, max_pixels: int) -> bytes:
    """Page ``page_number`` (from 1) of the PDF ``data`` as an RGB PNG within ``max_edge``
    pixels a side and ``max_pixels`` in all."""
    import pypdfium2 as pdfium

    pdf = pdfium.PdfDocument(data)
    try:
        if not 1 <= page_number <= len(pdf):
            raise ValueError(f"the PDF has no page {page_number}")
        page = pdf[page_number - 1]
        try:
            width, height = page.get_size()
            area = max(width * height, 1)
            fits = min(max_edge / max(width, height, 1), (max_pixels / area) ** 0.5)
            # pdfium rounds each side up to a whole pixel: a hair less keeps it within bounds.
            image = page.render(scale=fits * 0.99).to_pil().convert("RGB")
        finally:
            page.close()
    finally:
        pdf.close()
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def main(argv: list[str]) -> int:
    page, max_edge, max_pixels = (int(arg) for arg in argv)
    try:
        png = render_png(sys.stdin.buffer.read(), page, max_edge, max_pixels)
    except Exception as exc:  # pdfium's errors, a damaged file: said in one line
        print(f"{type(exc).__name__}: {exc}".splitlines()[0][:200], file=sys.stderr)
        return 2
    sys.stdout.buffer.write(png)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
