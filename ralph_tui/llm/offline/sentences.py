"""The offline baseline's sentence search, one implementation for both inner modes: the RLM
worker sends this module's source (with ``ralph_tui.words``, the terms it compares) to the
sandbox as the code that chooses what to read of ``context`` around the hits of its
searches, and ranks the sentences of what it read and of the passages ``retrieve()``
returned; the LCM worker calls it on the text its tools returned. It imports only the
standard library and ``ralph_tui.words``, so it runs as it is in the sandbox."""

import bisect
import itertools
import json
import math
import re
from collections.abc import Iterator

from ralph_tui.words import (
    FULL_STOPS,
    LEADING,
    WIDE_FULL_STOPS,
    label_terms,
    sentence_end,
    split_sentences,
    table_row,
    term_set,
    word_count,
)

SENTENCE_END = sentence_end()
WHOLE_END = re.compile(rf"""[{FULL_STOPS}{WIDE_FULL_STOPS}:：](?:["'`)\]*_」』）]*)$""")


def is_whole_sentence(text: str) -> bool:
    """Whether ``text`` reads as a whole sentence: it opens with a capital letter, a digit
    or a mark (quote, backtick, bracket) and ends at a full stop, a question or exclamation
    mark, or a colon — not a line cut out of a wrapped paragraph."""
    bare = text.strip()
    if not bare or bare[0].islower():
        return False
    return WHOLE_END.search(bare) is not None


def runs_of_prose(block: str, cut: bool = False) -> list[str]:
    """Consecutive prose lines of a paragraph, as they stand in the text: a sentence that a
    PDF or a narrow column wrapped over lines is still one sentence. A list item starts a
    new run; headings (marked; or a short capitalised line without a full stop, numbered or
    where no sentence is open and the next line does not go on in lower case, as HTML and
    PDF titles come) and table rows (Markdown's, a row whose
    cells a tab separates, as HTML, Word and PDF tables are converted, or a label followed
    by figures alone: ``ralph_tui.words.table_row``) are no prose. ``cut``: the block may
    start inside a line (a window read from an offset), so what its first line leaves open
    is not known, and it keeps no title after it from being one ("...ontents" of a page's
    "Table of Contents", then "Performance Graph")."""
    runs: list[str] = []
    run: list[str] = []
    lines = block.split("\n")
    for number, line in enumerate(lines):
        bare = line.strip()
        # A line the next one continues in lower case is the start of a wrapped sentence
        # ("If You\n institute patent litigation"), however short.
        wrapped = number + 1 < len(lines) and lines[number + 1].strip()[:1].islower()
        item = bool(re.match(r"([-*]|\d+[.)]) ", bare))
        ends = (*FULL_STOPS, *WIDE_FULL_STOPS, ":")
        unknown = cut and number == 1
        sentence_open = bool(run) and not run[-1].rstrip().endswith(ends) and not unknown
        numbered = re.match(r"\d+(\.\d+)*\.? [A-Z]", bare) is not None
        title = (
            len(bare.split()) < 4
            and not bare.endswith((".", ",", ";", ":"))
            and (bare[:1].isupper() or bare[:1].isdigit())
            and (numbered or not (sentence_open or wrapped))
        )
        row = bare[:1] in ("#", "|") or CELL in bare or table_row(bare) is not None
        if bare and not row and not item and not title:
            run.append(line)
            continue
        if run:
            runs.append("\n".join(run))
        run = [line] if item else []
    if run:
        runs.append("\n".join(run))
    return runs


def sentences_of(text: str) -> list[str]:
    """The sentences of ``text`` of five words or more (``word_count``), verbatim."""
    sentences = []
    for block in re.split(r"\n[ \t]*\n", text):
        for prose in runs_of_prose(block):
            for part in split_sentences(prose.strip()):
                if word_count(part) >= 5:
                    sentences.append(part)
    return sentences


HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*$")
TABLE_RULE = re.compile(r"^\|?[\s:|-]*-[\s:|-]*\|?$")
CELL = "\t"
"""Between the cells of a table row in the text of an HTML or Word table (one row a line)."""


def cells(row: str) -> list[str]:
    """The cells of a table row (a Markdown row, or one whose cells a tab separates),
    stripped."""
    if CELL in row:
        return [cell.strip() for cell in row.split(CELL)]
    return [cell.strip() for cell in row.strip().strip("|").split("|")]


def _title_of(block: list[str]) -> str | None:
    """The heading a block holds: its last ``#`` line, or its one line when that is short
    and has no full stop (how an HTML or Word heading stands in their text)."""
    marked = [found.group(1) for line in block if (found := HEADING.match(line))]
    if marked or len(block) != 1:
        return marked[-1] if marked else None
    bare = block[0]
    short = 0 < len(bare.split()) < 10 and CELL not in bare
    return bare if short and not bare.endswith((".", ",", ";", ":")) else None


def table_rows_of(text: str) -> list[str]:
    """Each row of each table of ``text`` (a Markdown table with a rule under its header,
    or lines of tab-separated cells, the first the header) as one line that names its cells
    by the header, under the nearest heading above:
    "Planned maintenance schedule: Task: Isolation valves exercised; Frequency: Quarterly."
    Not the document's own text, so a brief may hold it and a quote may not."""
    rows: list[str] = []
    heading = ""
    for block in re.split(r"\n[ \t]*\n", text):
        # Spaces only: a row's last tab stands for its empty last cell.
        lines = [line.strip(" ") for line in block.split("\n") if line.strip()]
        heading = _title_of(lines) or heading
        for header, body in _tables_in(lines):
            for row in body:
                named = named_row(header, cells(row))
                rows.append(f"{heading}: {named}." if heading else f"{named}.")
    return rows


def named_row(header: list[str], row: list[str]) -> str:
    """A row's cells each named by its column's header cell ("Task: Isolation valves
    exercised; Frequency: Quarterly"; "Revenues; 2021: $ 9,699,819" where the labels'
    column has no header), empty cells left out."""
    pairs = itertools.zip_longest(header, row, fillvalue="")
    return "; ".join(f"{h}: {v}" if h else v for h, v in pairs if v)


def _header_at(run: list[str]) -> int:
    """Which line of a run of tab-separated lines is its header: the first, or where the
    run opens with lines of no label (a PDF table's "(in thousands)", "Year ended
    December 31,", then "2021 2020 2019"), the last of those, the one over the rows."""
    unlabelled = len(list(itertools.takewhile(lambda row: not cells(row)[0], run)))
    return max(unlabelled - 1, 0)


def _tables_in(lines: list[str]) -> list[tuple[list[str], list[str]]]:
    """The tables among a block's lines: each one's header cells and its body rows."""
    tables = []
    for n, line in enumerate(lines):
        if line.startswith("|") and n + 1 < len(lines) and TABLE_RULE.match(lines[n + 1]):
            body = list(itertools.takewhile(lambda row: row.startswith("|"), lines[n + 2 :]))
            tables.append((cells(line), body))
        elif CELL in line and (n == 0 or CELL not in lines[n - 1]):
            run = list(itertools.takewhile(lambda row: CELL in row, lines[n:]))
            at = _header_at(run)
            if run[at + 1 :]:
                tables.append((cells(run[at]), run[at + 1 :]))
    return tables


JUDGED_WINDOW = 220
"""Characters of the document around a quote that the QA judge reads with it (the width of
``ralph_tui.validate.qa.evidence_windows``): a header row farther above a quoted row than
that window reaches cannot support the column names read into the row. Stated again here
because this module runs in the sandbox, which has none of the validator."""
MAX_QUOTE_CHARS = 160
"""The validator's bound on one quote's length (``ralph_tui.validate.qa.MAX_QUOTE_CHARS``,
stated again for the sandbox as ``JUDGED_WINDOW`` is; a test keeps the two equal)."""


def row_readings(text: str) -> dict[str, tuple[str, str]]:
    """Each table row of ``text`` (``ralph_tui.words.table_row``, the line stripped) with
    its quote and what a reader of the table reads in it: its cells named by the header
    row above (``named_row``, ``_header_of``) — the row itself its quote where the judge's
    window around it holds that header (``JUDGED_WINDOW``), else the text from the header
    down to the row, where that fits in one quote — or else the row itself (its cells
    apart, or its white space made single): no column name the quote's window cannot show.
    Every quote is verbatim. The first and last lines of ``text`` are neither header nor
    row: a passage or a window read from an offset may cut them (a caller that knows they
    are whole adds a line break before or after)."""
    readings: dict[str, tuple[str, str]] = {}
    header: tuple[int, list[str], bool] | None = None
    rows_under = False
    lines = text.split("\n")
    offset = len(lines[0]) + 1
    for n, line in enumerate(lines[1:-1], start=1):
        start, offset = offset, offset + len(line) + 1
        bare = line.strip(" \r")
        found = _header_of(bare, lines[n + 1], rows_under)
        if found is not None:
            header, rows_under = (start + len(line) - len(line.lstrip()), *found), False
            continue
        if CELL not in bare and not bare.startswith("|"):
            header, rows_under = (header if _is_group(bare) else None), False
        own = line.strip()
        if not own or table_row(bare) is None or own in readings:
            continue
        rows_under = CELL in bare or bare.startswith("|")
        row = cells(bare) if rows_under else []
        at = start + line.index(own[0])
        quote, names = own, None
        if header is not None and row and (not header[2] or len(header[1]) == len(row)):
            if at - header[0] <= (JUDGED_WINDOW - len(own)) // 2:
                names = header[1]
            elif at + len(own) - header[0] <= MAX_QUOTE_CHARS:
                quote, names = text[header[0] : at + len(own)], header[1]
        if names is not None:
            readings[own] = (quote, named_row(names, row))
        else:
            readings[own] = (quote, named_row([], row) if row else " ".join(own.split()))
    return readings


def read_in(whole: str, row: str) -> tuple[str, str] | None:
    """The quote and reading of ``row`` (``row_readings``) where it first stands in
    ``whole``, the documents' text, where the judge will find its quote; ``None`` when the
    row is no whole line there, or its quote stands first elsewhere ("Net sales $ 229,234"
    inside a five-year row's line): a quote of it would be placed there. Only the row's
    first place and the lines above it that a quote reaches are looked at (slices of
    ``whole``, so a run's record of what it read holds them)."""
    at = whole.find(row)
    end = at + len(row)
    if at < 0 or whole[end : end + MAX_LABEL_AFTER].split("\n", 1)[0].strip():
        return None  # not there, or the start of a longer line
    begin = max(0, at - MAX_QUOTE_CHARS - 2)
    above = whole[begin:at]
    if above[above.rfind("\n") + 1 :].strip():
        return None  # the end of a longer line
    # The slice starts inside a line unless it starts the text: row_readings skips it.
    found = row_readings(("\n" if begin == 0 else "") + above + row + "\n\n").get(row)
    if found is None:
        return None
    quote = found[0]
    return found if whole.find(quote) == end - len(quote) else None


MAX_LABEL_AFTER = 200
"""Characters after a row looked at to tell that its line ends there."""
GROUP_WORDS = 8
"""Words of a group's label inside a table, at most."""
YEAR = re.compile(r"(?:19|20)\d\d")


def _is_group(bare: str) -> bool:
    """Whether a line with no cells is the label of a group of rows inside a table, which
    keeps the table's header: short, and ending in a colon ("Current assets:"), in capitals
    ("REVENUE") or a year alone ("2022", over a segment table's rows of that year)."""
    short = 0 < len(bare.split()) <= GROUP_WORDS
    return short and (bare.endswith(":") or bare.isupper() or YEAR.fullmatch(bare) is not None)


def _header_of(bare: str, below: str, rows_under: bool) -> tuple[list[str], bool] | None:
    """The column names a line gives when it is a table's header, and whether a row must
    have as many cells to be named by them: a Markdown row over a rule line; a line of
    tab-separated cells with no label above a table's rows (the last of such lines counts:
    "(in thousands)", "Year ended December 31,", then "2021 2020 2019"); or a line a PDF
    table kept without cells, of two years or more and words ("2017 Change 2016 Change
    2015"), naming a row's cells only when it has one name for each cell after the label."""
    if bare.startswith("|") and TABLE_RULE.match(below.strip()):
        return cells(bare), False
    if CELL in bare:
        return (cells(bare), False) if not cells(bare)[0] and not rows_under else None
    words = bare.split()
    years = sum(YEAR.fullmatch(word) is not None for word in words)
    plain = all(YEAR.fullmatch(word) or word.isalpha() for word in words)
    return (["", *words], True) if years >= 2 and plain and len(words) <= 12 else None


def label_asks(row: str, asked: set[str]) -> int:
    """How many of the ``asked`` terms the label of ``row`` holds, when every term of the
    label (less a leading "Total" or "Net") is one of them and it holds the "total" or
    "net" they ask for (a segment's "Revenues" is not the total revenues asked); else 0:
    the row is not what they ask about."""
    label = (table_row(row) or ("", ""))[0]
    core, held = label_terms(label), term_set(label)
    if not core or not set(core) <= asked or not (asked & LEADING) <= held:
        return 0
    return len(held & asked)


def asked_rows(readings: dict[str, tuple[str, str]], terms: list[str]) -> list[str]:
    """The rows whose label names what ``terms`` ask about (``label_asks``), only those
    whose label holds the most of them ("Total revenues" for "total revenues in 2021", not
    the regions' "Revenues"). A total first ("Total net sales" before a product table's
    "Net sales"), then those whose reading holds more of the terms (the year a header
    names)."""
    asked = set(terms)
    scored: list[tuple[int, bool, int, int, str]] = []
    for row, (_, reading) in readings.items():
        named = label_asks(row, asked)
        if named:
            total = row.casefold().startswith(("total", "| total"))
            held = len(term_set(reading) & asked)
            scored.append((-named, not total, -held, len(scored), row))
    scored.sort()
    best = scored[0][0] if scored else 0
    return [row for named, *_, row in scored if named == best]


def rank_sentences(
    sentences: list[str],
    terms: list[str],
    focus: list[str],
    leave_out: list[str],
    need: int,
    present: list[str],
) -> list[str]:
    """The sentences holding enough of ``terms`` (or the rarest of those the text holds at
    all, ``present``, or a ``focus`` term) and none of ``leave_out``, best first: a term
    in few sentences says more about the question than one in many."""
    held_sets = [term_set(text) for text in sentences]
    weight = {
        t: math.log(1 + len(held_sets) / (1 + sum(t in held for held in held_sets))) for t in terms
    }
    rarest = max((t for t in terms if t in present), key=lambda t: weight[t], default=None)
    scored = []
    for n, holds in enumerate(held_sets):
        if any(t in holds for t in leave_out):
            continue
        held = [t for t in terms if t in holds]
        hits = sum(t in holds for t in focus)
        if len(held) >= need or rarest in held or hits:
            scored.append((-hits, -len(held), -sum(weight[t] for t in held), n, sentences[n]))
    scored.sort()
    return [text for *_, text in scored]


def candidates(retrieved: list[str], read: list[str], tables: bool) -> list[str]:
    """The sentences (and with ``tables``, the table rows) to rank, each once: the whole
    sentences of the ``retrieved`` passages (each from where it can be quoted:
    ``quotable``), then those of the texts ``read`` (from a sentence's start)."""
    pool = [s for text in retrieved for s in sentences_of(text) if is_whole_sentence(s)]
    pool += [s for text in read for s in sentences_of(text)]
    if tables:
        pool += [row for text in [*retrieved, *read] for row in table_rows_of(text)]
    return list(dict.fromkeys(pool))


OPENS_SENTENCE = re.compile(r"(?:\n[ \t]*\n|[.!?:]\s)\s*$")
"""The end of what stands before a sentence's start: a blank line, or a sentence's end."""


def quotable(passage: dict[str, object], context: str) -> str:
    """What of a ``retrieve()`` passage a quote may start in: all of it when it opens its
    page or document, or follows a blank line or a sentence's end in the documents
    (``context``); else from its second sentence, as a chunk cut at a character count may
    start inside a sentence, at a capital letter as well ("... each\nContributor hereby
    grants")."""
    text = str(passage.get("text") or "")
    span = passage.get("span")
    start = span[0] if isinstance(span, list | tuple) and span else None
    opens = start == 0 or (
        passage.get("source") == "doc"
        and isinstance(start, int)
        and OPENS_SENTENCE.search(context, max(0, start - 40), start) is not None
    )
    return text if opens else sentences_from_second(text)


def sentences_from_second(text: str) -> str:
    """``text`` from the first place a sentence surely starts in it: past its first
    sentence's end or blank line, or past its first line when that is no prose (a heading,
    a list item, a table row: ``runs_of_prose`` keeps none of it), whichever comes first —
    what can be quoted of a text read from an offset that may fall inside a sentence."""
    first_line, _, rest = text.partition("\n")
    if rest and not runs_of_prose(first_line):
        return rest
    boundary = FIRST_BOUNDARY.search(text)
    return text[boundary.end() :] if boundary else ""


FIRST_BOUNDARY = re.compile(rf"(?<=[{FULL_STOPS}{WIDE_FULL_STOPS}])\s+|\n[ \t]*\n")
"""The first place after which a sentence starts: a full stop and white space, or a blank
line."""


BLANK_LINE = re.compile(r"\n[ \t]*\n")
NEAR_CHARS = 600
"""How near a hit of another term must stand to count as meeting it (either side)."""
TABLE_START = re.compile(r"\||[^\n]*\t")
"""A block opening a table: a Markdown row, or a line of tab-separated cells."""
MARKED_HEADING = re.compile(r"^#{1,6}[ \t]", re.MULTILINE)
PARAGRAPH_REACH = 3000
"""How far from a hit its paragraph's ends are looked for before the window is cut at a
sentence instead."""
PLACES = 40
"""Paragraphs read around the best hits, at most (besides each term's best one)."""


def ranked_hits(hits: dict[str, list[int]]) -> list[tuple[int, str]]:
    """Every hit (``hits``: each searched term's match offsets) as (offset, term), best
    first: where the most of the terms meet within ``NEAR_CHARS``, a term counting the more
    the fewer hits it has; then the earlier."""
    weight = {term: 1 / len(spots) for term, spots in hits.items() if spots}
    spots = sorted((at, term) for term, found in hits.items() for at in found)
    score: list[float] = []
    low = high = 0
    counts: dict[str, int] = {}
    for at, _ in spots:
        while high < len(spots) and spots[high][0] <= at + NEAR_CHARS:
            counts[spots[high][1]] = counts.get(spots[high][1], 0) + 1
            high += 1
        while spots[low][0] < at - NEAR_CHARS:
            counts[spots[low][1]] -= 1
            low += 1
        score.append(sum(weight[term] for term, count in counts.items() if count))
    # Among equals, a hit of the rarer term itself first: its paragraph holds that term.
    order = sorted(range(len(spots)), key=lambda n: (-score[n], -weight[spots[n][1]], n))
    return [spots[n] for n in order]


def paragraph_span(text: str, at: int, reach: int = PARAGRAPH_REACH) -> tuple[int, int]:
    """The paragraph of ``text`` around offset ``at`` (between blank lines), a table from
    the heading above it; where its end lies beyond ``reach``, the window ends at the
    sentence end farthest within it (or at the reach itself). Found with compiled patterns
    bounded to the reach: nothing outside it is read."""
    low, high = max(0, at - reach), min(len(text), at + reach)
    start = _last(BLANK_LINE.finditer(text, low, at))
    if start is None and low > 0:
        start = SENTENCE_END.search(text, low, at)
    end = BLANK_LINE.search(text, at, high)
    if end is None and high < len(text):
        end = _last(SENTENCE_END.finditer(text, at, high))
    begin = start.end() if start else low
    if TABLE_START.match(text, begin, high):
        # A table's rows are named by the heading above it (``table_rows_of``).
        heading = _last(MARKED_HEADING.finditer(text, low, begin))
        begin = heading.start() if heading else begin
    return begin, (end.start() if end else high)


def _last(matches: Iterator[re.Match[str]]) -> re.Match[str] | None:
    return next(reversed(list(matches)), None)


def reading_spans(
    text: str, hits: dict[str, list[int]], limit: int = PLACES
) -> list[tuple[int, int]]:
    """What to read of ``text``: the paragraphs (``paragraph_span``) of the best ``limit``
    hits (``ranked_hits``), then of each term's best hit where none of its hits lies in
    them yet (so every term found is read once); in order, overlapping ones joined."""
    ranked = ranked_hits(hits)
    read: list[tuple[int, int]] = []
    chosen = 0
    for at, _ in ranked:
        if chosen == limit:
            break
        if not _inside(at, read):
            read, chosen = joined([*read, paragraph_span(text, at)]), chosen + 1
    covered = {term for term, spots in hits.items() if any(_inside(at, read) for at in spots)}
    for at, term in ranked:
        if term not in covered:
            read = joined([*read, paragraph_span(text, at)])
            covered.add(term)
    return read


def joined(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """``spans`` sorted, overlapping and touching ones joined."""
    result: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if result and start <= result[-1][1]:
            result[-1] = (result[-1][0], max(end, result[-1][1]))
        else:
            result.append((start, end))
    return result


def _inside(at: int, spans: list[tuple[int, int]]) -> bool:
    """Whether offset ``at`` lies in one of ``spans`` (sorted, disjoint)."""
    n = bisect.bisect_right(spans, (at, math.inf)) - 1
    return n >= 0 and spans[n][0] <= at < spans[n][1]


def search_lines(
    read: list[str],
    retrieved: list[str],
    terms: list[str],
    focus: list[str],
    leave_out: list[str],
    need: int,
    shown: int,
    found_prefix: str,
    tables: bool = False,
    whole: str | None = None,
) -> list[str]:
    """What the search prints: the terms the sources (the windows ``read`` and the
    ``retrieved`` passages) hold, how many sentences hold enough of them, then the best
    sentences (and with ``tables``, table rows named by their header) as JSON strings —
    those of the retrieved passages first among equals. Without ``tables`` (for an answer),
    first the table rows whose label names what the terms ask (``asked_rows``), each as a
    JSON string of its own text and a line after it of what a reader reads in it
    (``READS_PREFIX``, ``row_readings``; from ``whole``, the documents' text, when given)."""
    held = set().union(*(term_set(text) for text in [*read, *retrieved]))
    found = [t for t in terms + focus if t in held]
    sentences = candidates(retrieved, read, tables)
    best = rank_sentences(sentences, terms, focus, leave_out, need, found)
    lines = [found_prefix + json.dumps(found)]
    lines.append(f"{len(sentences)} sentences; {len(best)} hold enough of the terms")
    rows = [] if tables else answering_rows([*read, *retrieved], terms, leave_out, whole)
    for quote, reading in rows[:shown]:
        lines += [json.dumps(quote), READS_PREFIX + json.dumps([quote, reading])]
    sources = [*read, *retrieved]
    return lines + [
        ("" if verbatim(text, sources) else COMPOSED_PREFIX) + json.dumps(text)
        for text in best[: max(0, shown - len(rows))]
    ]


def answering_rows(
    texts: list[str], terms: list[str], leave_out: list[str], whole: str | None = None
) -> list[tuple[str, str]]:
    """The quotes and readings (``row_readings``) of the table rows of ``texts`` that
    ``asked_rows`` keeps, none holding a left-out term. With ``whole``, the documents'
    text: any line of the texts whose label asks what ``terms`` ask, however the texts
    were cut, read where it first stands there (``read_in``)."""
    asked = set(terms)
    readings: dict[str, tuple[str, str]] = {}
    if whole is not None:
        lines = dict.fromkeys(line.strip() for text in texts for line in text.split("\n"))
        for row in lines:
            if label_asks(row, asked) and (found := read_in(whole, row)) is not None:
                readings[row] = found
    else:
        for text in texts:
            for row, found in row_readings(text).items():
                readings.setdefault(row, found)
    kept = {
        row: found
        for row, found in readings.items()
        if not any(term in term_set(found[0]) for term in leave_out)
    }
    return [kept[row] for row in asked_rows(kept, terms)]


READS_PREFIX = "reads: "
"""Before a printed pair of a table row's quote and what a reader reads in the row (its
cells named by the header row): the quote is verbatim, the reading the answer line it
backs."""


COMPOSED_PREFIX = "composed: "
"""Before a printed line that is not the sources' own words (a table row named by its
header), so that it is never passed off as a passage of the document."""


def verbatim(text: str, sources: list[str]) -> bool:
    """Whether ``text`` stands character for character in one of ``sources``."""
    return any(text in source for source in sources)
