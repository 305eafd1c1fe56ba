"""A PDF page's tables as rows: each row one line, its cells separated by a tab, under one
line of column headers ("September 30, 2017", "2016", "(In millions)").

pdfium (the converter) gives the page's lines and where each character stands; in a line, a
gap wider than a character's height between two words splits it into cells. A table
is two or more lines with a figure (an amount, a per cent, a year, a dash for nil) in a cell
after the first, with the short label lines between them ("Current assets:"); its columns are
where those cells stand, and the lines just above it whose cells sit over the columns are its
headers, joined column by column from the top down. The rest of the page reads as its lines.

Pure functions over plain tuples, so the converter's child processes import nothing else.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

CELL = "\t"

Run = tuple[float, float, float, float, str]
"""A word on the page: left, bottom, right, top (PDF points, y up), its text."""

FIGURE = re.compile(r"^[$€£(]*\s*[-–—+]?\s*[$€£]?\s*\(?\d[\d,.]*\)?\s*%?\)?%?$|^[-–—]+$")
"""A cell that states a figure: 1,234 / $ (56.7) / 12 % / 2017 / — (nil)."""
YEAR = re.compile(r"^(19|20)\d\d$")
SYMBOL_BEFORE = frozenset({"$", "€", "£", "(", "$(", "($"})
SYMBOL_AFTER = frozenset({")", "%", ")%", "%)", "pts", "bps"})
LOOKS_TABULAR = re.compile(r"\S\s+(?!(?:19|20)\d\d\s*$)[$(]*\d[\d,.]*\)?%?\s*$", re.MULTILINE)
"""A line of pdfium's page text that ends in a figure after a word (a table row, read
without its gaps); a year that ends a sentence's line ("... in 2017") does not count."""
MIN_FIGURE_LINES = 3
MAX_LABEL_LINES = 3
"""Lines without figures a table may hold between two rows ("Current assets:")."""
MAX_HEADER_LINES = 16
MAX_COLUMNS = 40
"""More columns than this is no table a person reads (and would cost columns x cells)."""
SHORT_LINE = 80
"""Characters of a line that may be a label or a header line (longer ones are prose)."""


def looks_tabular(page_text: str) -> bool:
    """Whether a page's plain text has enough lines ending in a figure to hold a table:
    only such pages are laid out (the rest keep pdfium's text as it is)."""
    return len(LOOKS_TABULAR.findall(page_text)) >= MIN_FIGURE_LINES


def lines_to_place(lines: list[str]) -> set[int]:
    """The lines whose words' places are needed: each line ending in a figure (a row) and
    the short lines near one (labels between rows, header lines above); a long line of
    prose keeps its text as pdfium gives it, and ends a table's header where it stands."""
    rows = [number for number, line in enumerate(lines) if LOOKS_TABULAR.search(line)]
    wanted = set(rows)
    for number in rows:
        first = max(0, number - MAX_HEADER_LINES - MAX_LABEL_LINES - 1)
        near = range(first, min(len(lines), number + MAX_LABEL_LINES + 2))
        wanted.update(n for n in near if len(lines[n]) <= SHORT_LINE)
    return wanted


@dataclass
class Line:
    """Runs on one baseline, as cells (left, right, text), left to right."""

    top: float
    bottom: float
    cells: list[tuple[float, float, str]] = field(default_factory=list)

    @property
    def height(self) -> float:
        return max(self.top - self.bottom, 1.0)

    @property
    def text(self) -> str:
        return " ".join(cell[2] for cell in self.cells)

    def is_row(self) -> bool:
        """Two cells or more, a figure (not a year: that heads a column) after the first."""
        return len(self.cells) >= 2 and any(
            FIGURE.match(c[2]) and not YEAR.match(c[2]) for c in self.cells[1:]
        )


def page_with_tables(runs: list[list[Run]]) -> str | None:
    """The page's text with its tables as tab-separated rows under their headers, or
    ``None`` when no table is found (the caller keeps pdfium's own text)."""
    lines = _lines(runs)
    tables = _tables(lines)
    if not tables:
        return None
    out: list[str] = []
    at = 0
    for first, last, header_from in tables:
        out.extend(line.text for line in lines[at:header_from])
        out.extend(_table_text(lines[header_from:first], lines[first : last + 1]))
        at = last + 1
    out.extend(line.text for line in lines[at:])
    return "\n".join(line for line in out if line.strip())


def _lines(lines: list[list[Run]]) -> list[Line]:
    """pdfium's lines (its reading order kept), each with its words closer than a
    character's height joined into one cell, and a lone currency sign or closing mark
    joined to its figure ("$" "20,289" -> "$ 20,289")."""
    laid = []
    for words in lines:
        if not words:
            continue
        line = Line(max(w[3] for w in words), min(w[1] for w in words))
        line.cells = _cells(words, max(line.top - line.bottom, 4.0))
        laid.append(line)
    return laid


def _cells(words: list[Run], gap: float) -> list[tuple[float, float, str]]:
    cells: list[tuple[float, float, str]] = []
    for left, _, right, _, text in words:
        if cells:
            last_left, last_right, last_text = cells[-1]
            close = left - last_right < gap and text not in SYMBOL_BEFORE
            if close or last_text in SYMBOL_BEFORE or text in SYMBOL_AFTER:
                joiner = "" if text in SYMBOL_AFTER or last_text.endswith("(") else " "
                cells[-1] = (last_left, max(right, last_right), last_text + joiner + text)
                continue
        cells.append((left, right, text))
    return cells


def _tables(lines: list[Line]) -> list[tuple[int, int, int]]:
    """Each table as (first row, last row, first header line) indexes into ``lines``."""
    tables: list[tuple[int, int, int]] = []
    index = 0
    while index < len(lines):
        if not lines[index].is_row():
            index += 1
            continue
        first = last = index
        gap = 0
        probe = index + 1
        while probe < len(lines) and gap <= MAX_LABEL_LINES:
            if lines[probe].is_row():
                last, gap = probe, 0
            elif len(lines[probe].cells) == 1:
                gap += 1
            else:
                break
            probe += 1
        rows = sum(1 for line in lines[first : last + 1] if line.is_row())
        if rows >= 2 and len(_columns(lines[first : last + 1])) <= MAX_COLUMNS:
            start = tables[-1][1] + 1 if tables else 0
            header, labels = _header_from(lines, first, start)
            tables.append((labels, last, header))
        index = last + 1
    return tables


def _columns(rows: list[Line]) -> list[tuple[float, float]]:
    """Where the table's columns stand: the spans of every cell after a row's first, merged
    where they overlap."""
    spans = sorted((c[0], c[1]) for row in rows if row.is_row() for c in row.cells[1:])
    columns: list[tuple[float, float]] = []
    for left, right in spans:
        if columns and left <= columns[-1][1]:
            columns[-1] = (columns[-1][0], max(columns[-1][1], right))
        else:
            columns.append((left, right))
    return columns


def _over(cell: tuple[float, float, str], column: tuple[float, float]) -> bool:
    """Whether a cell stands over a column (overlapping half of either's width)."""
    overlap = min(cell[1], column[1]) - max(cell[0], column[0])
    return overlap > 0 and overlap >= 0.5 * min(cell[1] - cell[0], column[1] - column[0])


def _header_from(lines: list[Line], first: int, start: int) -> tuple[int, int]:
    """The column headers of the table whose first row is ``first``: the lines above it
    (below ``start``) whose cells all stand over the table's columns, with the short label
    lines between them and the row ("ASSETS:", "Current assets:"); as (first header line,
    first label line), both ``first`` when there is no header."""
    columns = _columns([line for line in lines[first : first + 12] if line.is_row()])
    label_edge = columns[0][0] if columns else 0.0
    labels = header = first
    probe = first - 1
    while (
        probe >= start and first - probe <= MAX_LABEL_LINES and _is_label(lines[probe], label_edge)
    ):
        probe -= 1
    labels = probe + 1
    while probe >= start and labels - probe <= MAX_HEADER_LINES:
        cells = [c for c in lines[probe].cells if c[1] > label_edge]
        if not cells or not all(_within(c, columns) for c in cells):
            break
        header = probe
        probe -= 1
    return (header, labels) if header < labels else (first, first)


def _within(cell: tuple[float, float, str], columns: list[tuple[float, float]]) -> bool:
    """Whether a cell stands over the table's columns: over one of them, its middle within
    their span, widened by half a column each side (a header may be wider than its
    figures; a title centred over the whole page is not)."""
    slack = 0.5 * max(right - left for left, right in columns)
    middle = (cell[0] + cell[1]) / 2
    inside = columns[0][0] - slack <= middle <= columns[-1][1] + slack
    return inside and any(_over(cell, col) for col in columns)


def _is_label(line: Line, label_edge: float) -> bool:
    return len(line.cells) == 1 and line.cells[0][1] <= label_edge


def _table_text(headers: list[Line], body: list[Line]) -> list[str]:
    """The header line (each column's header lines joined top-down; a header spanning
    several columns as its own line first) and a line per row, cells by column."""
    columns = _columns(body)
    label_edge = columns[0][0]
    stub: list[str] = []
    spanning: list[str] = []
    per_column = [""] * len(columns)
    for band in _bands(headers):
        if len(band) == 1 < len(columns) and band[0][1] > label_edge:
            spanning.append(CELL + band[0][2])
            continue
        for cell in band:
            over = [i for i, col in enumerate(columns) if _over(cell, col)]
            if cell[1] <= label_edge:
                stub.append(cell[2])  # the label column's own header ("December 31,")
            elif len(over) == 1:
                per_column[over[0]] = f"{per_column[over[0]]} {cell[2]}".strip()
            else:
                spanning.append(CELL + cell[2])
    text = [*stub, *spanning, CELL + CELL.join(per_column)] if headers else []
    pending = ""
    for index, line in enumerate(body):
        if not line.is_row():
            following = body[index + 1] if index + 1 < len(body) else None
            label = line.text
            if following is not None and _continues(label, following):
                pending = f"{pending} {label}".strip()
            else:
                text.append(f"{pending} {label}".strip() if pending else label)
                pending = ""
            continue
        label = " ".join(c[2] for c in line.cells if c[1] <= label_edge)
        cells = [""] * len(columns)
        for cell in line.cells:
            if cell[1] <= label_edge:
                continue
            at = min(
                range(len(columns)),
                key=lambda i: abs((cell[0] + cell[1]) / 2 - sum(columns[i]) / 2),
            )
            cells[at] = f"{cells[at]} {cell[2]}".strip()
        text.append(f"{pending} {label}".strip() + CELL + CELL.join(cells))
        pending = ""
    return text


def _bands(lines: list[Line]) -> list[list[tuple[float, float, str]]]:
    """The cells of header lines grouped by the height they stand at, top down, each band
    left to right (pdfium may read a header column by column: "September 30," "2017"
    "September 24," "2016")."""
    bands: list[tuple[Line, list[tuple[float, float, str]]]] = []
    for line in sorted(lines, key=lambda line: -line.top):
        middle = (line.top + line.bottom) / 2
        if bands and bands[-1][0].bottom <= middle <= bands[-1][0].top:
            bands[-1][1].extend(line.cells)
        else:
            bands.append((line, list(line.cells)))
    return [sorted(cells) for _, cells in bands]


def _continues(label: str, row: Line) -> bool:
    """Whether a label line is the first part of the next line's label, wrapped (it does not
    end a heading with a colon, and the next line goes on in lower case or a figure): a
    label wrapped over several lines ("Net cash provided" / "by operating" / "activities
    2,809") is read as one, as the row a person reads."""
    if label.endswith(":") or not row.cells:
        return False
    start = row.cells[0][2][:1]
    return start.islower() or start.isdigit()
