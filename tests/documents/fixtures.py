"""Documents made by the tests themselves, with known text on known pages."""

from __future__ import annotations

import io
from pathlib import Path

import docx
from pypdf import PdfReader, PdfWriter

FONT = b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"
BOLD_FONT = (
    b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>"
)


def pdf_bytes(pages: list[list[str]], *, password: str | None = None) -> bytes:
    """A PDF whose page ``i`` holds the lines ``pages[i]`` (an empty list: a page with no
    text layer, as a scan has), in Helvetica, so Latin-1 text only."""
    data = _plain_pdf(pages)
    if password is None:
        return data
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(data)))
    writer.encrypt(user_password=password, owner_password="owner", algorithm="RC4-128")
    buffer = io.BytesIO()
    writer.write(buffer)
    return buffer.getvalue()


def _plain_pdf(pages: list[list[str]]) -> bytes:
    """Each page's lines in Helvetica, one below the other."""
    return _pdf_of([_page_content(lines) for lines in pages])


def _pdf_of(streams: list[bytes], bold_font: bytes = BOLD_FONT) -> bytes:
    """A PDF of one page per content stream (its fonts: ``/F1`` Helvetica, ``/F2``
    ``bold_font``, Helvetica-Bold unless said), written object by object with a correct
    cross-reference table; no PDF library."""
    kids = " ".join(f"{4 + 2 * i} 0 R" for i in range(len(streams)))
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        f"<< /Type /Pages /Kids [{kids}] /Count {len(streams)} >>".encode(),
        FONT,
    ]
    bold = 4 + 2 * len(streams)
    for i, stream in enumerate(streams):
        objects.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] "
            b"/Resources << /Font << /F1 3 0 R /F2 %d 0 R >> >> /Contents %d 0 R >>"
            % (bold, 5 + 2 * i)
        )
        objects.append(b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream))
    objects.append(bold_font)
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n%s\nendobj\n" % (number, body))
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1))
    out.writelines(b"%010d 00000 n \n" % offset for offset in offsets)
    trailer = b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n"
    out.write(trailer % (len(objects) + 1, xref))
    return out.getvalue()


def _page_content(lines: list[str]) -> bytes:
    """Each line on its own baseline; no lines: a filled box, ink but no text layer."""
    if not lines:
        return b"0 0 0 rg 56 600 280 170 re f"
    shown = [f"({_escape(line)}) Tj T*" for line in lines]
    return "\n".join(["BT", "/F1 10 Tf", "14 TL", "56 786 Td", *shown, "ET"]).encode("latin-1")


def _escape(line: str) -> str:
    return line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


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


SAMPLES = Path(__file__).parent / "samples"
"""Committed documents: the tests read them, and ``./dev test`` converts them through the
installed wheel."""

HTML_PAGE = (SAMPLES / "pump.html").read_text(encoding="utf-8")


BALANCE_ROWS = [
    ("Cash and cash equivalents", "$ 3,412", "$ 2,950"),
    ("Accounts receivable, net", "6,588", "5,904"),
    ("Inventories", "5,754", "5,346"),
    ("Total current assets", "15,754", "14,200"),
]
SEGMENT_ROWS = [
    (f"Region {n:02d} revenue", f"{1000 + 37 * n:,}", f"{900 + 29 * n:,}") for n in range(1, 61)
]


def tables_pdf(path: Path) -> Path:
    """A filing-like PDF: a ruled balance sheet (every cell boxed; each column's header on
    two lines, drawn column by column as filings often are) on page 1, then an unruled
    segment table (whitespace only, a header spanning its columns, the label column's
    own header "Segment") that runs on into page 2 without repeating its headers."""
    from fpdf import FPDF

    pdf = FPDF(format="letter")
    pdf.set_auto_page_break(False)
    pdf.set_font("Helvetica", size=9)
    pdf.add_page()
    pdf.set_xy(20, 15)
    pdf.cell(170, 6, "CONSOLIDATED BALANCE SHEETS", align="C")
    pdf.set_xy(20, 21)
    pdf.cell(170, 6, "(In millions)", align="C")
    pdf.rect(20, 30, 170, 10)
    for column, year in enumerate(("2023", "2022")):
        pdf.set_xy(110 + 40 * column, 30)
        pdf.cell(40, 5, "December 31,", align="R")
        pdf.set_xy(110 + 40 * column, 35)
        pdf.cell(40, 5, year, align="R")
    pdf.set_xy(20, 40)
    for label, *cells in BALANCE_ROWS:
        pdf.cell(90, 7, label, border=1)
        for cell in cells:
            pdf.cell(40, 7, cell, border=1, align="R")
        pdf.ln(7)
        pdf.set_x(20)
    pdf.set_xy(20, 75)
    pdf.multi_cell(170, 5, "Cash rose on higher collections from customers in every region.")
    pdf.set_xy(20, 90)
    pdf.cell(170, 6, "REVENUE BY SEGMENT", align="C")
    pdf.set_xy(110, 97)
    pdf.cell(80, 5, "Year ended December 31", align="C")
    y = 103.0
    for label, *cells in [("Segment", "2023", "2022"), *SEGMENT_ROWS]:
        if y > 265:
            pdf.add_page()
            y = 20.0
        pdf.set_xy(20, y)
        pdf.cell(90, 5, label)
        for cell in cells:
            pdf.cell(40, 5, cell, align="R")
        y += 5
    path.write_bytes(bytes(pdf.output()))
    return path


SMALL_PRINT_ROWS = [
    ("Cash and cash equivalents", "$ 4,500", "$ 5,309"),
    ("Inventories", "1,385", "1,322"),
    ("Total current assets", "8,269", "10,238"),
    ("Investments", "1,975", "1,801"),
]
SMALL_PRINT_SECTION = "Current Assets"
ROW_INDENT = 72
"""The rows under the section's title start just left of where the title ends: pdfium puts
no space between the title and the first row ("Current AssetsCash and cash equivalents")."""
SMALL_PRINT_WRAPPED = (("Net cash provided", "by operating", "activities"), ("2,809", "4,709"))
"""A row whose label wraps over three lines, its figures on the last (a cash flow statement's
narrow label column)."""
SMALL_PRINT_PROSE = [
    "Cash fell as the company bought back its own shares during the year",
    "and paid for two acquisitions in Asia.",
]


def small_print_pdf(path: Path) -> Path:
    """A filing printed to PDF at a quarter of its size, as some are: the page drawn through
    a flipped, scaled matrix, each line and each table cell its own text object, glyphs 3
    points high. pdfium's text of such a page runs its rows together (it takes objects that
    small for one line): a heading, a balance sheet and a paragraph, rows apart on paper."""
    out = [b"q 0.25 0 0 -0.25 20 780 cm"]
    y = 40

    def show(x: int, text: str) -> None:
        out.append(
            b"q 1 0 0 -1 %d %d cm BT /F1 12 Tf (%s) Tj ET Q" % (x, y, _escape(text).encode())
        )

    show(0, "Item 8. Financial Statements and Supplementary Data")
    y += 24
    show(600, "Consolidated Balance Sheets")
    y += 16
    show(1400, "2015")
    show(1700, "2014")
    y += 16
    show(0, SMALL_PRINT_SECTION)
    y += 16
    for label, *cells in SMALL_PRINT_ROWS:
        show(ROW_INDENT, label)
        for x, cell in zip((1400, 1700), cells, strict=True):
            show(x, cell)
        y += 16
    label, cells = SMALL_PRINT_WRAPPED
    for part in label[:-1]:
        show(0, part)
        y += 16
    show(0, label[-1])
    for x, cell in zip((1400, 1700), cells, strict=True):
        show(x, cell)  # on the label's last line
    y += 16
    for line in SMALL_PRINT_PROSE:
        show(0, line)
        y += 16
    out.append(b"Q")
    path.write_bytes(_pdf_of([b"\n".join(out)]))
    return path


SIDEWAYS_LINES = ["Segment revenue by region 2023 2022", "North America 1,234 1,100"]


def sideways_pdf(path: Path) -> Path:
    """A page whose lines are set sideways, reading down the page (a landscape table turned
    on a portrait page): each character stands below the one before it."""
    shown = [
        b"BT /F1 10 Tf 0 -1 1 0 %d 700 Tm (%s) Tj ET" % (100 + 14 * i, _escape(line).encode())
        for i, line in enumerate(SIDEWAYS_LINES)
    ]
    path.write_bytes(_pdf_of([b"\n".join(shown)]))
    return path


Styled = tuple[str, str, float]
"""A line of a page set in type: its text, its font (``F1`` regular, ``F2`` bold), its size;
a text with tabs is a table's row, each cell drawn in its column."""


def bold_by_descriptor(descriptor: bytes) -> bytes:
    """A font whose name does not say it is bold ("Caslon"), its descriptor's entries
    ``descriptor`` (``/FontWeight 700``, or the ForceBold flag) saying it is."""
    widths = b"500 " * 95
    return (
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Caslon /Encoding /WinAnsiEncoding "
        b"/FirstChar 32 /LastChar 126 /Widths [%s] /FontDescriptor << /Type /FontDescriptor "
        b"/FontName /Caslon %s /FontBBox [0 -200 1000 900] /ItalicAngle 0 /Ascent 900 "
        b"/Descent -200 /CapHeight 700 /StemV 80 >> >>" % (widths, descriptor)
    )


def styled_pdf(
    path: Path, pages: list[list[Styled]], scale: float = 1.0, bold_font: bytes = BOLD_FONT
) -> Path:
    """A PDF whose pages hold the lines ``pages[i]``, each in its font and size, one below
    the other (spaced by its size), as a report sets its titles, headings and body text;
    with ``scale``, each page drawn through a matrix of that scale (its sizes as printed are
    the fonts' sizes times ``scale``)."""
    streams = []
    for lines in pages:
        out, y = [b"q %.3f 0 0 %.3f 0 0 cm" % (scale, scale)], 800.0 / scale
        for text, font, size in lines:
            y -= size * 1.5
            cells = text.split("\t")
            for column, cell in enumerate(cells):
                x = 56 if column == 0 else 300 + 90 * (column - 1)
                shown = _escape(cell).encode("latin-1")
                out.append(
                    b"BT /%s %.1f Tf %d %.1f Td (%s) Tj ET" % (font.encode(), size, x, y, shown)
                )
        out.append(b"Q")
        streams.append(b"\n".join(out))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(_pdf_of(streams, bold_font))
    return path
