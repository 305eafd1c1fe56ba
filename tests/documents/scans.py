"""Scanned documents the OCR tests read: pages written with fpdf2, rendered to pictures with
pypdfium2 (as a scanner would give them), and saved as an image-only PDF or an image file,
so the text OCR must find is known."""

from __future__ import annotations

import io
from pathlib import Path

import pypdfium2 as pdfium
from fpdf import FPDF
from PIL import Image

PAGE_MM = (105.0, 74.0)
"""A small page (A7 across): a few lines, so OCR of it takes a fraction of a second."""
DPI = 150


SEAL_KIT = [
    "The seal kit part number is 4471-B.",
    "The seal kit is replaced every 2,000 running hours.",
    "Spare seal kits are kept in store room 3.",
]
"""Page 7 of the log (the last page, when fewer): what the questions ask about."""


def scan_pages(count: int) -> list[list[str]]:
    """``count`` pages of a maintenance log, each with lines found nowhere else; page 7 (or
    the last, when fewer) holds ``SEAL_KIT``."""
    pages = [
        [
            f"Maintenance log, sheet {number}.",
            f"Pump station {number} was inspected on day {number * 3}.",
            f"Its intake screen was cleaned {number * 11} times.",
        ]
        for number in range(1, count + 1)
    ]
    pages[min(7, count) - 1] = list(SEAL_KIT)
    return pages


def text_pdf(pages: list[list[str]]) -> bytes:
    """A PDF with a text layer: each page its lines, in Helvetica."""
    pdf = FPDF(format=PAGE_MM)
    pdf.set_margins(6, 6)
    pdf.set_font("Helvetica", size=10)
    for lines in pages:
        pdf.add_page()
        for line in lines:
            pdf.multi_cell(0, 6, line, new_x="LMARGIN", new_y="NEXT")
    return bytes(pdf.output())


def pictures(pdf: bytes) -> list[Image.Image]:
    """Each page of ``pdf`` rendered at ``DPI``, in grey, as a scanner gives a page."""
    document = pdfium.PdfDocument(pdf)
    try:
        return [
            document[index].render(scale=DPI / 72, grayscale=True).to_pil().convert("RGB")
            for index in range(len(document))
        ]
    finally:
        document.close()


def image_pdf(images: list[Image.Image]) -> bytes:
    """A PDF of pictures only: no text layer on any page."""
    buffer = io.BytesIO()
    images[0].save(buffer, format="PDF", save_all=True, append_images=images[1:], resolution=DPI)
    return buffer.getvalue()


def write_scan(path: Path, pages: list[list[str]]) -> Path:
    """An image-only PDF of ``pages`` at ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(image_pdf(pictures(text_pdf(pages))))
    return path


def mixed_pdf(text_page: list[str], scanned: list[list[str]]) -> bytes:
    """A PDF whose first page has a text layer and whose other pages are scans."""
    result = pdfium.PdfDocument(text_pdf([text_page]))
    scans = pdfium.PdfDocument(image_pdf(pictures(text_pdf(scanned))))
    result.import_pages(scans)
    buffer = io.BytesIO()
    result.save(buffer)
    return buffer.getvalue()
