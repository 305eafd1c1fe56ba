"""A PDF's headings by their typography, for a PDF with neither an outline nor a filing's
numbering (a report, a manual, a paper saved without bookmarks): the lines set noticeably
larger than the body text, or bold where the body is not (``pdf_styles`` reads them).

As with numbered headings, a line is a heading only when it is nothing else:

- it is short (at most ``MAX_HEADING`` characters and ``MAX_WORDS`` words; a title
  wrapped over lines is one), begins with a capital or a number, holds more letters than
  figures (two figures after its first word make it a table's row), and does not end as a
  sentence or a label does (``.``, ``!``, ``,``, ``;``, ``:``);
- it stands as whole lines of its own in the page's text: a table's row (its cells apart by
  a tab) is none, nor a contents line (one that ends in its page number);
- it is no running header or footer: a title set out on more than ``MAX_REPEATS`` pages
  ("ACME CORPORATION — ANNUAL REPORT 2023" in bold above every page) is none, nor a line
  set bold that stands at the top or bottom of ``RUNNING_PAGES`` pages in any type
  ("Annual Report 2023 ii" in bold, "... 12" in plain); nor is an
  entry of a table of contents set in the titles' style (a page with ``TOC_LINES`` titles
  found again on other pages).

Its size is told against the larger of its page's body size and the document's, so a page
that is all small print (a table) does not raise its plain lines to headings, and a cover
set all large raises only what is larger still. Levels go by size: the largest size is level
1, the next 2, and so on; bold at the body's size is the level after the sizes.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from ralph_tui.documents.pdf_styles import LARGER, PageStyle, Standing
from ralph_tui.documents.pdf_tables import FIGURE

Found = tuple[int, str, int, int]
"""A heading: its level, its title as it stands on its page, the page's index and the
title's offset in the page's text (as ``pdf_headings.Found``)."""

MAX_HEADING = 120
MAX_WORDS = 16
MAX_LINE = 4 * MAX_HEADING
"""The longest line looked at (white space runs count: a title may be spaced out)."""
MAX_REPEATS = 2
"""A title set out on more pages than this is no heading."""
EDGE_LINES = 3
RUNNING_PAGES = 3
"""A line among the first or last ``EDGE_LINES`` of this many pages is a running header or
footer: set bold (not larger), it is no heading."""
TOC_LINES = 3
MAX_LEVELS = 6
"""Sizes beyond this many share the deepest level."""
SIZE_STEP = 0.05
"""Heading sizes within this share of each other are one level."""
MAX_HEADINGS = 5000
MAX_PER_PAGE = 60
"""The most titles looked for on a page."""
SENTENCE_END = (".", "!", ",", ";", ":")
PAGE_NUMBER_END = re.compile(r"(?:\s|\.{2,}|…)\d{1,3}$")
LETTER = re.compile(r"[^\W\d_]")
DIGIT = re.compile(r"\d")
DIGITS = re.compile(r"\d+")
ROMAN_END = re.compile(r"(?<=\s)[ivxlc]{1,6}$")
"""A page number in lower-case roman numerals at a line's end."""
LINE = re.compile(r"^[ \t\u00a0]*(\S(?:[^\n]*\S)?)", re.MULTILINE)
"""A line of a page's text, from its first to its last character that is not a space."""
OPENING = re.compile(r"[\"“‘'(\[]?[^\W_]")
"""How a title begins: a letter or a figure, after a quote or a bracket at most."""


def typography_headings(pages: Sequence[str], styles: Sequence[PageStyle]) -> list[Found]:
    """The headings of a PDF whose pages' texts are ``pages`` (normalised, as the corpus
    holds them) and whose pages' styles are ``styles``, in order (see the module's doc)."""
    body = _document_body(styles)
    running = _running_lines(pages)
    candidates: list[tuple[int, Standing]] = []
    for number, (page, style) in enumerate(zip(pages, styles, strict=False)):
        reference = max(style.body_size, body)
        for line in style.standing[:MAX_PER_PAGE]:
            larger = line.size >= reference * LARGER
            bold = line.bold and not style.body_bold and line.size >= reference / LARGER
            if not (larger or bold) or not page or not _reads_as_title(line.text):
                continue
            if larger or _key(line.text) not in running:
                candidates.append((number, line))
    pages_of: dict[str, set[int]] = {}
    for number, line in candidates:
        pages_of.setdefault(_key(line.text), set()).add(number)
    # A contents page: titles of its own found again on later pages, TOC_LINES or more.
    elsewhere = Counter(
        number
        for number, line in candidates
        if len(pages_of[_key(line.text)]) > 1 and number == min(pages_of[_key(line.text)])
    )
    kept = [
        (number, line)
        for number, line in candidates
        if len(pages_of[_key(line.text)]) <= MAX_REPEATS and elsewhere[number] < TOC_LINES
    ]
    placed: list[tuple[Standing, int, int, int]] = []  # a title, its page, start, end
    lines_of: dict[int, _Lines] = {}
    for number, line in kept:
        if number not in lines_of:
            lines_of[number] = _Lines(pages[number])
        found = lines_of[number].take(line.text)
        if found is not None:
            placed.append((line, number, *found))
    levels = _levels([line for line, *_ in placed], body)
    return [
        (levels[round(line.size, 1), line.bold], pages[number][start:end], number, start)
        for line, number, start, end in placed[:MAX_HEADINGS]
    ]


def _running_lines(pages: Sequence[str]) -> set[str]:
    """The lines (by ``_key``) among the first or last ``EDGE_LINES`` of at least
    ``RUNNING_PAGES`` pages."""
    seen: Counter[str] = Counter()
    reach = 3 * EDGE_LINES  # lines looked at from each end (some may be blank)
    for page in pages:
        top = [line for line in page.split("\n", reach)[:reach] if line.strip()][:EDGE_LINES]
        bottom = [line for line in page.rsplit("\n", reach)[-reach:] if line.strip()]
        edges = top + bottom[-EDGE_LINES:]
        seen.update({_key(line) for line in edges if len(line) <= MAX_LINE})
    return {key for key, count in seen.items() if count >= RUNNING_PAGES and key}


def _document_body(styles: Sequence[PageStyle]) -> float:
    """The size most of the document's body text is set in (by characters)."""
    sizes: Counter[float] = Counter()
    for style in styles:
        if style.body_size > 0:
            sizes[round(style.body_size, 1)] += style.body_chars
    return sizes.most_common(1)[0][0] if sizes else 0.0


def _levels(lines: list[Standing], body: float) -> dict[tuple[float, bool], int]:
    """Each heading style's level: larger sizes first (sizes close together are one
    level), then bold at the body's size."""
    sizes = sorted({round(line.size, 1) for line in lines}, reverse=True)
    level_of_size: dict[float, int] = {}
    level, last = 0, None
    for size in sizes:
        if size < body * LARGER:
            continue
        if last is None or size < last * (1 - SIZE_STEP):
            level, last = min(level + 1, MAX_LEVELS), size
        level_of_size[size] = level
    body_level = min(level + 1, MAX_LEVELS)
    return {
        (round(line.size, 1), line.bold): level_of_size.get(round(line.size, 1), body_level)
        for line in lines
    }


def _reads_as_title(text: str) -> bool:
    flat = " ".join(text.split())
    if not flat or len(flat) > MAX_HEADING or len(flat.split()) > MAX_WORDS:
        return False
    if flat.endswith(SENTENCE_END) or PAGE_NUMBER_END.search(flat) or "\t" in text:
        return False
    if sum(FIGURE.match(word) is not None for word in flat.split()[1:]) >= 2:
        return False  # a table's row read without its tabs ("Total revenue 3,456 3,210")
    letters = len(LETTER.findall(flat))
    if letters < 2 or letters <= len(DIGIT.findall(flat)):
        return False  # a figure set large ("$4.2 billion" on a cover), a drop cap
    first = LETTER.search(flat)
    # Begins with a capital or a number ("2.1 Results"), or a quote or bracket before one:
    # not a line run on from a sentence, nor a bullet's item.
    return first is not None and flat[first.start()].isupper() and OPENING.match(flat) is not None


class _Lines:
    """A page's lines, for finding titles as whole lines of their own in it, in order,
    white space aside (but no tab: a table's row is laid out with tabs); one read of the
    page, then a look-up a title."""

    def __init__(self, page: str) -> None:
        self.spans: list[tuple[int, int]] = []
        self.flat: list[str] = []
        self.at: dict[str, list[int]] = {}  # a line (as flat) -> its indexes, in order
        for found in LINE.finditer(page):
            text = found.group(1)
            flat = "" if "\t" in text or len(text) > MAX_LINE else " ".join(text.split())
            if flat:
                self.at.setdefault(flat, []).append(len(self.flat))
            self.spans.append(found.span(1))
            self.flat.append(flat)
        self.next = 0  # the first line a title may still stand on

    def take(self, title: str) -> tuple[int, int] | None:
        """Where ``title`` (its lines) stands from the line after the last title found."""
        wanted = [" ".join(line.split()) for line in title.split("\n") if line.strip()]
        if not wanted:
            return None
        for index in self.at.get(wanted[0], []):
            end = index + len(wanted)
            if index >= self.next and self.flat[index:end] == wanted:
                self.next = end
                return self.spans[index][0], self.spans[end - 1][1]
        return None


def _key(text: str) -> str:
    """A title as compared for repeats: case and white space aside, numbers as one mark (a
    page number in lower-case roman numerals too: "Annual Report ii" is "Annual Report 12",
    but "Part II" is not "Part III")."""
    return DIGITS.sub("#", ROMAN_END.sub("#", " ".join(text.split())).casefold())
