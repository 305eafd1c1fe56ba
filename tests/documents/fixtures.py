"""Documents made by the tests themselves, with known text on known pages."""

from __future__ import annotations

import io
from pathlib import Path

import docx
from fpdf import FPDF


def pdf_bytes(pages: list[list[str]], *, password: str | None = None) -> bytes:
    """A PDF whose page ``i`` holds the lines ``pages[i]`` (an empty list: a page with no
    text layer, as a scan has)."""
    pdf = FPDF()
    pdf.set_font("Helvetica", size=11)
    if password is not None:
        pdf.set_encryption(owner_password="owner", user_password=password)
    for lines in pages:
        pdf.add_page()
        if not lines:
            pdf.rect(20, 20, 100, 60, style="F")  # ink, but no text
        for line in lines:
            pdf.cell(0, 8, text=line, new_x="LMARGIN", new_y="NEXT")
    return bytes(pdf.output())


def write_pdf(path: Path, pages: list[list[str]], **options: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(pdf_bytes(pages, **options))
    return path


def docx_bytes(title: str, paragraphs: list[str], table: list[list[str]]) -> bytes:
    """A Word file: a level-1 heading, paragraphs, a level-2 heading and a table."""
    document = docx.Document()
    document.add_heading(title, level=1)
    for text in paragraphs:
        document.add_paragraph(text)
    document.add_heading("Figures", level=2)
    grid = document.add_table(rows=len(table), cols=len(table[0]))
    for row, values in zip(grid.rows, table, strict=True):
        for cell, value in zip(row.cells, values, strict=True):
            cell.text = value
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


HTML_PAGE = """<!DOCTYPE html>
<html><head><title>Pump manual</title></head>
<body>
<nav><a href="/">Home</a> | <a href="/about">About us</a> | <a href="/shop">Shop</a></nav>
<article>
<h1>Pump maintenance</h1>
<p>The pump seals are inspected every three months by the duty fitter on shift.</p>
<p>A seal that weeps more than ten drops a minute is replaced before the next start.</p>
<h2>Spare parts</h2>
<table>
<tr><th>Part</th><th>Stock</th></tr>
<tr><td>Mechanical seal</td><td>4</td></tr>
<tr><td>Impeller</td><td>1</td></tr>
</table>
<p>Spare parts are counted on the first working day of every month.</p>
</article>
<footer>Copyright 2026 Example Water. All rights reserved.</footer>
</body></html>
"""
