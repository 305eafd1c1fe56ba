"""Render one page of a document to a picture a vision model reads, run as an isolated
script in a child process, the document's bytes on stdin and the picture on stdout, exit 2
(a line on stderr) when the page cannot be rendered:

- ``python -I page_render.py pdf PAGE MAX_EDGE MAX_PIXELS``: a PDF page, as a PNG;
- ``python -I page_render.py image FRAME MAX_EDGE MAX_PIXELS MAX_SOURCE_PIXELS``: a frame of
  an image file (PNG, JPEG, TIFF; a TIFF's frames are its pages), scaled down within the
  same bounds and encoded again: as a JPEG when it was one (a photo of a page would grow
  several times as a PNG), else as a PNG. An image past ``MAX_SOURCE_PIXELS`` is refused
  before it is decoded.

A child process because pdfium is not thread-safe (a render in a thread could meet a
conversion in the main one) and a page built to render (or decode) slowly must be
stoppable: the parent kills the child past its time limit. It imports pypdfium2 and
Pillow, nothing of ralph-tui.
"""

from __future__ import annotations

import io
import sys
from typing import Any

JPEG_QUALITY = 90
"""A JPEG image is encoded again at this quality: small print stays legible."""


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


def render_image(
    data: bytes, frame: int, max_edge: int, max_pixels: int, max_source_pixels: int
) -> bytes:
    """Frame ``frame`` (from 1) of the image file ``data``, turned upright as its EXIF says
    (as OCR read it), transparency on white, within ``max_edge`` pixels a side and
    ``max_pixels`` in all: a JPEG when ``data`` is one, else a PNG."""
    from PIL import Image, ImageOps

    Image.MAX_IMAGE_PIXELS = max_source_pixels  # (Pillow's own bomb check, past twice this)
    image = Image.open(io.BytesIO(data))
    source = image.format
    frames = getattr(image, "n_frames", 1)
    if not 1 <= frame <= frames:
        raise ValueError(f"the image has no page {frame}")
    image.seek(frame - 1)
    width, height = image.size
    if width * height > max_source_pixels:
        raise ValueError(f"the image is {width:,} x {height:,} pixels, too large to decode")
    if source == "JPEG":
        # Decoded at a fraction of its size (never below the size it is scaled to): faster.
        image.draft(image.mode, _within(width, height, max_edge, max_pixels))
    picture = _flat(ImageOps.exif_transpose(image) or image)
    size = _within(picture.width, picture.height, max_edge, max_pixels)
    if size != picture.size:
        picture = picture.resize(size, Image.Resampling.LANCZOS, reducing_gap=3.0)
    buffer = io.BytesIO()
    if source == "JPEG":
        picture.save(buffer, format="JPEG", quality=JPEG_QUALITY)
    else:
        picture.save(buffer, format="PNG")
    return buffer.getvalue()


def _within(width: int, height: int, max_edge: int, max_pixels: int) -> tuple[int, int]:
    """``width`` x ``height`` scaled down (never up) to fit both bounds, in whole pixels."""
    fits = min(1.0, max_edge / max(width, height, 1), (max_pixels / max(width * height, 1)) ** 0.5)
    if fits >= 1.0:
        return width, height
    return max(int(width * fits), 1), max(int(height * fits), 1)


def _flat(image: Any) -> Any:
    """``image`` in grey or RGB: bilevel as grey, transparency laid on white."""
    from PIL import Image

    if image.mode in ("L", "RGB"):
        return image
    if image.mode == "1":
        return image.convert("L")
    if "A" in image.getbands() or "transparency" in image.info:
        rgba = image.convert("RGBA")
        white = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
        return Image.alpha_composite(white, rgba).convert("RGB")
    return image.convert("RGB")


def main(argv: list[str]) -> int:
    kind, numbers = argv[0], [int(arg) for arg in argv[1:]]
    try:
        if kind == "pdf":
            page, max_edge, max_pixels = numbers
            picture = render_png(sys.stdin.buffer.read(), page, max_edge, max_pixels)
        else:
            frame, max_edge, max_pixels, max_source = numbers
            picture = render_image(sys.stdin.buffer.read(), frame, max_edge, max_pixels, max_source)
    except Exception as exc:  # pdfium's or Pillow's errors, a damaged file: said in one line
        print(f"{type(exc).__name__}: {exc}".splitlines()[0][:200], file=sys.stderr)
        return 2
    sys.stdout.buffer.write(picture)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
