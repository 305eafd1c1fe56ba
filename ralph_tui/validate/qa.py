"""Deterministic checks of a QA candidate: bullet answer and verbatim evidence quotes.

Each rule yields one ``RuleResult`` with a stable name. Failure messages name the line or
quote at fault (number, length, text, and for a near-miss quote the document's exact span)
so that they can go straight into the constraints of the next attempt.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence

from rapidfuzz.distance import Levenshtein

from ralph_tui.events import RuleResult
from ralph_tui.validate.claims import BULLET_PREFIX, check_line_quotes
from ralph_tui.validate.evidence import EvidenceMinimum, check_quote_anywhere
from ralph_tui.validate.normalize import DASH_CHARS, QUOTE_MARK_CHARS, find_near_miss

MIN_BULLETS, MAX_BULLETS = 3, 7
MIN_QUOTES, MAX_QUOTES = 3, 8
MAX_QUOTE_CHARS = 160
_PREVIEW_CHARS = 80
_MAX_LISTED_DIFFERENCES = 4
_RUN = re.compile(r"\s+|\S")


def all_ok(results: Iterable[RuleResult]) -> bool:
    """Whether every rule passed."""
    return all(result.ok for result in results)


def preview(text: str, limit: int = _PREVIEW_CHARS) -> str:
    """``text`` in double quotes, cut to ``limit`` characters with an ellipsis."""
    clipped = text if len(text) <= limit else text[: limit - 1] + "…"
    return f'"{clipped}"'


def hard_validate_qa(
    answer: str,
    evidence: Sequence[str],
    document: str,
    minimum: EvidenceMinimum | None = None,
    external: Mapping[str, str] | None = None,
    line_quotes: Sequence[Sequence[int]] | None = None,
) -> list[RuleResult]:
    """All QA rules, in a fixed order: answer format first, then the evidence quotes, then
    the quotes each answer line names (``line_quotes``; ``None``: it named none)."""
    return [
        check_bullet_format(answer),
        check_bullet_count(answer),
        check_evidence_count(evidence),
        check_quote_length(evidence),
        check_no_duplicate_quotes(evidence),
        check_quotes_verbatim(evidence, document, minimum, external),
        check_line_quotes(answer, line_quotes, len(evidence)),
    ]


def _answer_lines(answer: str) -> list[tuple[int, str]]:
    """Non-empty lines of the answer with their 1-based line numbers."""
    lines = answer.strip("\n").splitlines()
    return [(number, line.rstrip()) for number, line in enumerate(lines, 1) if line.strip()]


def _is_bullet(line: str) -> bool:
    return line.startswith(BULLET_PREFIX) and bool(line[len(BULLET_PREFIX) :].strip())


def check_bullet_format(answer: str) -> RuleResult:
    """Every non-empty answer line must be a bullet: ``- `` followed by text."""
    problems = []
    for number, line in _answer_lines(answer):
        if _is_bullet(line):
            continue
        if line.strip() in ("-", "*", "•"):
            problems.append(f"line {number} is an empty bullet")
        else:
            problems.append(f'line {number} does not start with "- ": {preview(line)}')
    if problems:
        return RuleResult(name="bullet_format", ok=False, message="; ".join(problems))
    return RuleResult(name="bullet_format", ok=True, message='every line starts with "- "')


def check_bullet_count(answer: str) -> RuleResult:
    """The answer must have between 3 and 7 bullet lines."""
    count = sum(1 for _, line in _answer_lines(answer) if _is_bullet(line))
    ok = MIN_BULLETS <= count <= MAX_BULLETS
    message = f"{count} bullet lines" + (
        "" if ok else f'; write {MIN_BULLETS} to {MAX_BULLETS} lines starting with "- "'
    )
    return RuleResult(name="bullet_count", ok=ok, message=message)


def check_evidence_count(evidence: Sequence[str]) -> RuleResult:
    """There must be between 3 and 8 evidence quotes."""
    count = len(evidence)
    ok = MIN_QUOTES <= count <= MAX_QUOTES
    message = f"{count} evidence quotes" + (
        "" if ok else f"; give {MIN_QUOTES} to {MAX_QUOTES} quotes"
    )
    return RuleResult(name="evidence_count", ok=ok, message=message)


def check_quote_length(evidence: Sequence[str]) -> RuleResult:
    """Every quote must be at most 160 characters."""
    problems = [
        f"quote {number} is {len(quote)} characters (max {MAX_QUOTE_CHARS}): {preview(quote)}"
        for number, quote in enumerate(evidence, 1)
        if len(quote) > MAX_QUOTE_CHARS
    ]
    if problems:
        return RuleResult(name="quote_length", ok=False, message="; ".join(problems))
    return RuleResult(
        name="quote_length", ok=True, message=f"every quote is at most {MAX_QUOTE_CHARS} chars"
    )


def check_no_duplicate_quotes(evidence: Sequence[str]) -> RuleResult:
    """No quote may repeat an earlier one (compared without surrounding whitespace)."""
    first_seen: dict[str, int] = {}
    problems = []
    for number, quote in enumerate(evidence, 1):
        key = quote.strip()
        if key in first_seen:
            problems.append(f"quote {number} repeats quote {first_seen[key]}: {preview(key)}")
        else:
            first_seen[key] = number
    if problems:
        return RuleResult(name="no_duplicate_quotes", ok=False, message="; ".join(problems))
    return RuleResult(name="no_duplicate_quotes", ok=True, message="all quotes are distinct")


def check_quotes_verbatim(
    evidence: Sequence[str],
    document: str,
    minimum: EvidenceMinimum | None = None,
    external: Mapping[str, str] | None = None,
) -> RuleResult:
    """Every quote must be acceptable evidence: long enough, and verbatim in the document
    (or in one of the ``external`` pages' cached text, by URL)."""
    minimum = minimum or EvidenceMinimum()
    if not evidence:
        return RuleResult(name="quotes_verbatim", ok=False, message="no quotes to check")
    problems = []
    from_pages = 0
    for number, quote in enumerate(evidence, 1):
        check = check_quote_anywhere(quote, document, external, minimum)
        from_pages += check.url is not None
        if check.problem == "not_found":
            problems.append(_describe_missing_quote(number, quote, document))
        elif check.problem == "empty":
            problems.append(f"quote {number} {check.describe(minimum)}")
        elif check.problem is not None:
            problems.append(f"quote {number} {check.describe(minimum)}: {preview(quote)}")
    if problems:
        return RuleResult(name="quotes_verbatim", ok=False, message="; ".join(problems))
    where = f" ({from_pages} in external pages)" if from_pages else ""
    return RuleResult(
        name="quotes_verbatim", ok=True, message=f"every quote is in the document{where}"
    )


def _describe_missing_quote(number: int, quote: str, document: str) -> str:
    span = find_near_miss(document, quote)
    if span is None:
        return f"quote {number} is not in the document: {preview(quote)}"
    exact = document[span[0] : span[1]]
    return (
        f"quote {number} differs from the document only in {describe_differences(exact, quote)}"
        "; copy the document's exact text instead, here as a JSON string: "
        + json.dumps(exact, ensure_ascii=False)
        + _too_long_note(exact)
    )


def _too_long_note(exact: str) -> str:
    if len(exact) <= MAX_QUOTE_CHARS:
        return ""
    return f" (that text is {len(exact)} characters, over {MAX_QUOTE_CHARS}: quote part of it)"


def _difference_kind(document_part: str, quote_part: str) -> str:
    both = document_part + quote_part
    if not both.strip():
        return "whitespace"
    if set(both) <= QUOTE_MARK_CHARS:
        return "quote marks"
    if set(both) <= DASH_CHARS:
        return "dashes"
    return "character forms"


def _runs(text: str) -> list[str]:
    """Whitespace runs and single other characters: the units differences are told in."""
    return _RUN.findall(text)


def _show(part: str, kind: str) -> str:
    if kind != "character forms" or part.isascii():
        return repr(part)
    return f"{part!r} ({' '.join(f'U+{ord(char):04X}' for char in part)})"


def _differing_parts(
    doc_runs: list[str], quote_runs: list[str]
) -> Iterable[tuple[int, int, int, int]]:
    """The parts of the two that differ, between the parts they share: each a span of
    ``doc_runs`` and the span of ``quote_runs`` in its place.

    Levenshtein's bit-parallel alignment (rapidfuzz), not difflib's: on long texts that
    differ in many places difflib's cost grows with the cube of the length (52 s for 3,600
    characters). Its edits next to each other are merged, so ``ﬁ`` read as ``fi`` is one part.
    """
    part: list[int] | None = None
    for opcode in Levenshtein.opcodes(doc_runs, quote_runs):
        if opcode.tag == "equal":
            if part is not None:
                yield part[0], part[1], part[2], part[3]
            part = None
        elif part is None:
            part = [opcode.src_start, opcode.src_end, opcode.dest_start, opcode.dest_end]
        else:
            part[1], part[3] = opcode.src_end, opcode.dest_end
    if part is not None:
        yield part[0], part[1], part[2], part[3]


def describe_differences(document_text: str, quote: str) -> str:
    """Name what differs between a near-miss quote and the document, with examples.

    For example ``quote marks (document has '’' where the quote has "'")``.
    """
    doc_runs, quote_runs = _runs(document_text), _runs(quote)
    examples: dict[str, list[str]] = {}
    for doc_start, doc_end, quote_start, quote_end in _differing_parts(doc_runs, quote_runs):
        document_part = "".join(doc_runs[doc_start:doc_end])
        quote_part = "".join(quote_runs[quote_start:quote_end])
        kind = _difference_kind(document_part, quote_part)
        example = (
            f"document has {_show(document_part, kind)} "
            f"where the quote has {_show(quote_part, kind)}"
        )
        found = examples.setdefault(kind, [])
        if example not in found:
            found.append(example)
    if not examples:
        return "surrounding whitespace"
    return ", ".join(
        f"{kind} ({'; '.join(found[:_MAX_LISTED_DIFFERENCES])})" for kind, found in examples.items()
    )


def _quote_span(document: str, quote: str) -> tuple[int, int] | None:
    start = document.find(quote) if quote else -1
    if start >= 0:
        return start, start + len(quote)
    return find_near_miss(document, quote)


Bounds = Callable[[int], tuple[int, int]]
"""The span of the document (of a corpus) holding an offset: a window stays inside it."""


def _window(document: str, span: tuple[int, int], width: int, bounds: Bounds | None) -> str:
    start, end = span
    low, high = bounds(start) if bounds else (0, len(document))
    if end - start >= width:
        return document[start:end]
    begin = max(low, min(start - (width - (end - start)) // 2, high - width))
    return document[begin : min(begin + width, high)]


def evidence_windows(
    document: str,
    quotes: Sequence[str],
    width: int = 220,
    bounds: Bounds | None = None,
    external: Mapping[str, str] | None = None,
) -> list[str]:
    """For each quote, the ``width``-character window of the document centred on it.

    The window always contains the whole quote, and never crosses the bounds of the
    document holding it (``bounds``, for a corpus of several). A quote found only as a near
    miss gets the window around its near match; a quote found in an ``external`` page
    instead gets the window around it there; a quote not found at all gets "".
    """
    windows = []
    for quote in quotes:
        span = _quote_span(document, quote)
        if span is not None:
            windows.append(_window(document, span, width, bounds))
            continue
        found = check_quote_anywhere(quote, "", external)
        page = (external or {}).get(found.url or "")
        windows.append(_window(page, found.span, width, None) if page and found.span else "")
    return windows
