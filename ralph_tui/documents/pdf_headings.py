"""A PDF's headings: its outline (bookmarks) when it has one; else the lines that are
headings by the numbering and titles of an annual report ("PART II", "Item 7. Management's
Discussion ...", "Note 12 — Debt", "Consolidated Balance Sheets"); else, when the numbering
finds few or no part or item, the lines set as headings (larger, or bold:
``pdf_typography``).

Without an outline, a line is a heading only when it is nothing else, since a false heading
costs more than a missed one (its words are indexed with every passage below it):

- it is a whole line of its own, short, not a sentence (no closing full stop) and in title
  case or capitals after its number ("Item 7 of our Annual Report on Form 10-K" is no heading);
- it is not on a table of contents (a page with ``TOC_LINES`` part, item or note lines that
  end in a page number), nor a line that ends in a page number, nor a table's row;
- it is no running header or footer: a line found among the first or last lines of several
  pages ("PART II", "Item 7" above every page of a section; "Table of Contents") is none,
  nor is a title that stands as a line of its own on more than ``MAX_REPEATS`` pages.

Each heading is where its title stands in the text (``text[start:start + len(title)]``), as
HTML and Word headings are, so the retrieval's section paths and chunk breaks read PDFs as
they read those.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence

from ralph_tui.documents.pdf_styles import PageStyle
from ralph_tui.documents.pdf_typography import typography_headings
from ralph_tui.words import word_set

Outline = Sequence[tuple[int, str, int]]
"""``(level from 0, title, page index from 0)`` per bookmark, in order."""
Found = tuple[int, str, int, int]
"""A heading: its level (1 is the top), its title as it stands on its page, the page's index
and the title's offset in the page's text."""

MAX_HEADING = 120
"""The longest line taken for a heading (a longer one is a paragraph's line)."""
MAX_WORDS = 16
MAX_LINE = 4 * MAX_HEADING
"""The longest line looked at (white space runs count: a title may be spaced out)."""
EDGE_LINES = 3
"""How many lines at the top and the bottom of a page may be a running header or footer."""
RUNNING_PAGES = 3
"""A line at a page's edge on this many pages is a running header or footer."""
MAX_REPEATS = 2
"""A title standing as a line of its own on more pages than this is no heading."""
TOC_LINES = 3
"""A page with this many numbered lines that end in a page number is a table of contents."""
MAX_HEADINGS = 5000
OUTLINE_READS = 8
"""How many times over the pages' text finding a PDF's bookmarks may read at most."""
NUMBERED_ENOUGH = 3
"""A PDF without an outline whose numbering finds this many headings, a part or an item
among them, has them (a filing); with fewer, its typography may give more (a report, a
manual, a paper)."""
NUMBERED_WORDS = 8
"""The most words of a note's title numbered without the word "Note" ("12. Debt")."""

PART = re.compile(r"PART\s+(?:I{1,3}|IV)\b(?:\s*[.:—–-]\s*\S.*)?", re.IGNORECASE)
ITEM = re.compile(r"ITEM\s+\d{1,2}[A-C]?\s*(?:\.\s*|[:—–-]\s*|\s+)(?P<title>\S.*)", re.IGNORECASE)
NOTE = re.compile(r"NOTE\s+\d{1,2}\s*(?:\.\s*|[:—–-]\s*|\s+)(?P<title>\S.*)", re.IGNORECASE)
NUMBERED = re.compile(r"\d{1,2}\.\s+(?P<title>[A-Z].*)")
"""A note numbered without the word ("12. Debt"): taken only in title case, short."""
STATEMENT = re.compile(
    r"(?:CONSOLIDATED\s+)?(?:BALANCE\s+SHEETS?|STATEMENTS?\s+OF\s+(?:CONSOLIDATED\s+)?"
    r"(?:INCOME|OPERATIONS|EARNINGS|CASH\s+FLOWS|COMPREHENSIVE\s+(?:INCOME|LOSS|EARNINGS)"
    r"(?:\s*\((?:LOSS|INCOME)\))?|FINANCIAL\s+POSITION|(?:CHANGES\s+IN\s+)?(?:STOCKHOLDERS|"
    r"SHAREHOLDERS|SHAREOWNERS)[’']?\s+EQUITY(?:\s*\(DEFICIT\))?|(?:CHANGES\s+IN\s+)?EQUITY))"
    r"(?P<rest>.*)",
    re.IGNORECASE,
)
SECTION = re.compile(
    r"(?:LIQUIDITY\s+AND\s+CAPITAL\s+RESOURCES|RESULTS\s+OF\s+OPERATIONS|CRITICAL\s+ACCOUNTING"
    r"\s+(?:POLICIES|ESTIMATES)(?:\s+AND\s+ESTIMATES)?|RISK\s+FACTORS|HUMAN\s+CAPITAL|EMPLOYEES"
    r"|REPORT\s+OF\s+INDEPENDENT\s+REGISTERED\s+PUBLIC\s+ACCOUNTING\s+FIRM|SEGMENT\s+INFORMATION"
    r"|OVERVIEW)",
    re.IGNORECASE,
)
"""Section titles of an annual report that stand without a number."""
PAGE_NUMBER_END = re.compile(r"(?:\s|\t|\.{2,})\d{1,3}\s*$")
CONTENTS_LINE = re.compile(r"(?:PART|ITEM|NOTE|\d{1,2}\.).*?(?:\s|\.{2,})\d{1,3}", re.IGNORECASE)
"""A line of a table of contents: a part, item or note and its page number."""
CANDIDATE = re.compile(
    r"^[ \t\u00a0]*((?:PART|ITEM|NOTE|\d{1,2}\.|CONSOLIDATED|BALANCE|STATEMENTS?|LIQUIDITY"
    r"|RESULTS|CRITICAL|RISK|HUMAN|EMPLOYEES|REPORT|SEGMENT|OVERVIEW)[^\n]*)$",
    re.IGNORECASE | re.MULTILINE,
)
"""A line that begins as a heading may (the patterns below decide)."""
SMALL_WORDS = word_set("a an and as at by for from in into of on or the to with vs versus than")
"""Words a title leaves in lower case."""
DIGITS = re.compile(r"\d+")


def pdf_headings(
    pages: Sequence[str],
    outline: Outline = (),
    styles: Callable[[], Sequence[PageStyle]] | None = None,
) -> list[Found]:
    """The headings of a PDF whose pages' texts are ``pages``, in order: its outline's
    entries found on their pages, when it has an outline; else the lines that are headings
    by their numbering (see the module's doc); else, when the PDF has no outline at all and
    the numbering finds fewer than ``NUMBERED_ENOUGH`` headings or none of a filing's parts
    and items (a manual whose only numbered lines are its licence's clauses), the lines that
    are headings by their typography (``pdf_typography``), if those are more. ``styles``
    reads how each page's lines are set; it is called only then."""
    if outline:
        found = _outline_headings(pages, outline)
        if found:
            return found
    numbered = _numbered_headings(pages)
    filing = any(level <= 2 for level, _, _, _ in numbered)  # a part or an item
    if outline or styles is None or (len(numbered) >= NUMBERED_ENOUGH and filing):
        return numbered
    page_styles = styles()
    if len(page_styles) != len(pages):
        return numbered
    typed = typography_headings(pages, page_styles)
    return typed if len(typed) > len(numbered) else numbered


def _outline_headings(pages: Sequence[str], outline: Outline) -> list[Found]:
    """Each bookmark whose title is found on its page (white space and case aside; after
    the previous bookmark's, on the same page), at the place it stands."""
    headings: list[Found] = []
    after: dict[int, int] = {}
    budget = OUTLINE_READS * sum(len(page) for page in pages) + OUTLINE_READS * MAX_LINE
    for level, title, index in outline[:MAX_HEADINGS]:
        if not 0 <= index < len(pages):
            continue
        words = title.split()
        if not words or len(title) > 4 * MAX_HEADING:
            continue
        body = r"\s+".join(re.escape(word) for word in words)
        page, since = pages[index], after.get(index, 0)
        budget -= 2 * (len(page) - since)
        if budget < 0:
            break  # bookmarks by the thousand on long pages: the rest are not looked for
        # Where the title begins a line, else (a title run into its first line) anywhere.
        found = re.compile(rf"^[ \t\u00a0]*({body})", re.IGNORECASE | re.MULTILINE).search(
            page, since
        ) or re.compile(f"({body})", re.IGNORECASE).search(page, since)
        if found is None:
            continue
        after[index] = found.end()
        headings.append((max(1, level + 1), found.group(1), index, found.start(1)))
    return sorted(headings, key=lambda heading: (heading[2], heading[3]))


def _numbered_headings(pages: Sequence[str]) -> list[Found]:
    running = _running_lines(pages)
    candidates: list[tuple[int, int, str, str]] = []  # page, offset in page, title, key
    for number, page in enumerate(pages):
        found = []
        # Only the lines that begin as a heading can (most lines of a page do not).
        contents = 0
        for line in CANDIDATE.finditer(page):
            if len(line.group()) > MAX_LINE:
                continue  # a paragraph run into one line: no heading, no contents line
            contents += CONTENTS_LINE.fullmatch(line.group(1).rstrip(" \t\u00a0")) is not None
            kind = _heading_kind(line.group())
            if kind is not None and _key(line.group()) not in running:
                found.append((kind, line.start(1), line.group(1).rstrip(" \t\u00a0")))
        if contents >= TOC_LINES:
            continue  # a table of contents, or an index of notes
        candidates += [(number, at, title, f"{kind}") for kind, at, title in found]
    pages_of: dict[str, set[int]] = {}
    for number, _, title, _ in candidates:
        pages_of.setdefault(_key(title), set()).add(number)
    headings = [
        (int(level), title, number, at)
        for number, at, title, level in candidates
        if len(pages_of[_key(title)]) <= MAX_REPEATS
    ]
    return headings[:MAX_HEADINGS]


def _heading_kind(line: str) -> int | None:
    """The level of ``line`` as a heading (1 a part, 2 an item, 3 a note, statement or
    section), or ``None`` when it is none."""
    text = " ".join(line.split())
    if not text or len(text) > MAX_HEADING or len(text.split()) > MAX_WORDS:
        return None
    if "\t" in line.strip(" \t\u00a0") or PAGE_NUMBER_END.search(text):
        return None  # a table's row, or a contents line with its page number
    if PART.fullmatch(text):
        return 1
    item = ITEM.fullmatch(text)
    if item is not None:
        return 2 if _titled(item.group("title")) else None
    note = NOTE.fullmatch(text)
    if note is not None:
        return 3 if _titled(note.group("title")) else None
    numbered = NUMBERED.fullmatch(text)
    if numbered is not None:
        title = numbered.group("title")
        plain = not re.search(r"[\d.:;]", title) and len(title.split()) <= NUMBERED_WORDS
        return 3 if plain and _titled(title) else None
    statement = STATEMENT.fullmatch(text)
    if statement is not None and text[0].isupper() and not text.endswith((".", ",", ":")):
        rest = statement.group("rest").strip(" *")
        company = rest and rest.split()[0].lower() not in SMALL_WORDS and _titled(rest, True)
        return 3 if not rest or company else None
    if SECTION.fullmatch(text.rstrip(":")):
        return 3
    return None


def _titled(title: str, allow_stop: bool = False) -> bool:
    """Whether ``title`` reads as a heading's title: every word but the small ones begins
    with a capital (or is no word: a figure, a dash), and it does not end as a sentence."""
    title = title.strip()
    if not title or (title.endswith(".") and not allow_stop):
        return False
    for word in re.findall(r"[^\W\d_][\w’'&-]*", title):
        if word[0].islower() and word.lower() not in SMALL_WORDS:
            return False
    return True


def _running_lines(pages: Sequence[str]) -> set[str]:
    """The lines (by ``_key``) at the top or the bottom of at least ``RUNNING_PAGES`` pages."""
    seen: Counter[str] = Counter()
    reach = 3 * EDGE_LINES  # lines looked at from each end (some may be blank)
    for page in pages:
        top = [line for line in page.split("\n", reach)[:reach] if line.strip()][:EDGE_LINES]
        bottom = [line for line in page.rsplit("\n", reach)[-reach:] if line.strip()]
        seen.update({_key(line) for line in top + bottom[-EDGE_LINES:]})
    return {key for key, count in seen.items() if count >= RUNNING_PAGES and key}


def _key(line: str) -> str:
    """A line as compared for repeats: case and white space aside, numbers as one mark."""
    return DIGITS.sub("#", " ".join(line.casefold().split()))
