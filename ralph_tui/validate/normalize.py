"""A normalized copy of a text with a map back to the original, for near-miss quotes.

An evidence quote that is not a verbatim substring of the document often misses only by
typography: collapsed whitespace, straight instead of curly quote marks, a hyphen for a dash,
or a compatibility character (the ``ﬁ`` ligature, ``…``, a no-break space). Normalizing both
sides the same way finds such a quote; the position map then gives the exact span of the
original document, which the next attempt can copy character for character.

The normalization, applied identically to document and quote:

- every whitespace run becomes one space;
- soft hyphens and zero-width characters are dropped;
- every other character is NFKC-normalized (a base letter with its combining marks is
  composed as one unit), then curly/angled quote marks become ``'`` or ``"`` and the dash
  family (‐ ‑ ‒ – — ― − ⁃) becomes ``-``.

A quote that opens with a bare combining mark (half of a composed character) has no
normalized twin and is not found as a near miss.

Building it for a document is linear and mostly runs in C: whitespace and one-to-one
character replacements keep positions, so only length-changing spots (whitespace runs,
ligatures, combining sequences) become units of the position map. The result for the
last few documents is cached, so every later lookup is a plain ``str.find``.
"""

from __future__ import annotations

import re
import unicodedata
from array import array
from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import accumulate, chain

_QUOTE_MARKS = {
    "‘": "'",
    "’": "'",
    "‚": "'",
    "‛": "'",
    "‹": "'",
    "›": "'",
    "“": '"',
    "”": '"',
    "„": '"',
    "‟": '"',
    "«": '"',
    "»": '"',
}
_DASHES = dict.fromkeys("‐‑‒–—―−⁃", "-")
_PUNCTUATION = str.maketrans({**_QUOTE_MARKS, **_DASHES})
QUOTE_MARK_CHARS = frozenset(_QUOTE_MARKS) | {"'", '"'}
DASH_CHARS = frozenset(_DASHES) | {"-"}
_INVISIBLE = frozenset("\u00ad\u200b\u200c\u200d\u2060\ufeff")

_ASCII_WHITESPACE_CHARS = dict.fromkeys("\t\n\r\v\f\x1c\x1d\x1e\x1f", " ")
_ASCII_WHITESPACE = str.maketrans(_ASCII_WHITESPACE_CHARS)
_ASCII_BYTES = bytes(range(128))
_SPACE_RUN = re.compile("   *")  # two literal spaces first: searched much faster than " {2,}"
_MAX_LITERAL_SCANS = 24
_MAX_ALIGNMENT_TRIES = 16


def normalize_char(char: str) -> str:
    """The normalized form of one character (may be empty or several characters)."""
    if char in _INVISIBLE:
        return ""
    if char.isspace():
        return " "
    return unicodedata.normalize("NFKC", char).translate(_PUNCTUATION)


def _normalize_unit(unit: str) -> str:
    """The normalized form of a length-changing match: a space run, a ligature, ..."""
    if unit.isspace():
        return " "
    if len(unit) == 1:
        return normalize_char(unit)
    return unicodedata.normalize("NFKC", unit).translate(_PUNCTUATION)


@dataclass
class _CharPlan:
    """How the distinct non-ASCII characters of a text are normalized."""

    one_to_one: dict[str, str] = field(default_factory=dict)
    length_changing: set[str] = field(default_factory=set)
    combining: set[str] = field(default_factory=set)


def _non_ascii_chars(text: str) -> set[str]:
    """The distinct non-ASCII characters of ``text`` (deleting ASCII bytes is a C scan)."""
    if text.isascii():
        return set()
    encoded = text.encode("utf-8", "surrogatepass").translate(None, _ASCII_BYTES)
    return set(encoded.decode("utf-8", "surrogatepass"))


def _plan_for(chars: Iterable[str]) -> _CharPlan:
    plan = _CharPlan()
    for char in chars:
        if unicodedata.combining(char):
            plan.combining.add(char)
            continue
        normalized = normalize_char(char)
        if len(normalized) != 1:
            plan.length_changing.add(char)
        elif normalized != char:
            plan.one_to_one[char] = normalized
    return plan


def _char_class(chars: Iterable[str]) -> str:
    return "[" + "".join(re.escape(char) for char in sorted(chars)) + "]"


def _replace_one_to_one(source: str, plan: _CharPlan) -> str:
    """Apply every position-preserving replacement (whitespace, quote marks, dashes, ...).

    A few distinct characters are replaced with ``str.replace``, one fast scan each;
    many (a text full of full-width forms, say) with one regular-expression pass.
    """
    text = _replace_chars(source, plan.one_to_one)
    if text.isascii():
        return text.translate(_ASCII_WHITESPACE)
    return _replace_chars(text, _ASCII_WHITESPACE_CHARS)


def _replace_chars(text: str, mapping: dict[str, str]) -> str:
    if len(mapping) > _MAX_LITERAL_SCANS:
        return re.sub(_char_class(mapping), lambda match: mapping[match.group()], text)
    for char, replacement in mapping.items():
        text = text.replace(char, replacement)
    return text


def _find_all(text: str, chars: set[str]) -> list[tuple[int, int]]:
    """Spans of every occurrence of any of ``chars``: literal scans when they are few."""
    if len(chars) > _MAX_LITERAL_SCANS:
        return [match.span() for match in re.finditer(_char_class(chars), text)]
    spans = []
    for char in chars:
        spans += [match.span() for match in re.finditer(re.escape(char), text)]
    return spans


def _combining_spans(text: str, plan: _CharPlan) -> list[tuple[int, int]]:
    """Each run of combining marks together with its base character.

    A run after a space or a length-changing character is left alone, so that no two
    spans overlap.
    """
    spans = []
    for match in re.finditer(_char_class(plan.combining) + "+", text):
        start, end = match.span()
        if start and text[start - 1] != " " and text[start - 1] not in plan.length_changing:
            spans.append((start - 1, end))
    return spans


def _length_changing_spans(text: str, plan: _CharPlan) -> list[tuple[int, int]]:
    """Disjoint spans, in order, whose normalized form has a different length.

    Each kind gets its own scan: a pattern that starts with literal text is searched far
    faster than an alternation.
    """
    spans = [match.span() for match in _SPACE_RUN.finditer(text)]
    if plan.length_changing:
        spans += _find_all(text, plan.length_changing)
    if plan.combining:
        spans += _combining_spans(text, plan)
    spans.sort()
    return spans


@dataclass(frozen=True)
class NormalizedText:
    """A normalized text and the map from its positions back to the source's.

    The map lists the *units*: spans of the source whose normalized form has a different
    length (a whitespace run, a ligature, a dropped character, a combining sequence), each
    with its span in the normalized text. Between units, positions map one to one.
    """

    text: str
    source_length: int
    norm_starts: array[int]
    norm_ends: array[int]
    orig_starts: array[int]
    orig_ends: array[int]

    def _unit_before(self, position: int) -> int:
        """Index of the last unit starting at or before normalized ``position``, or -1."""
        return bisect_right(self.norm_starts, position) - 1

    def source_start(self, position: int) -> int:
        """Source index of the character at normalized ``position``."""
        index = self._unit_before(position)
        if index < 0:
            return position
        if position < self.norm_ends[index]:
            return self.orig_starts[index]
        return self.orig_ends[index] + position - self.norm_ends[index]

    def source_end(self, end: int) -> int:
        """Source index just past the character before normalized ``end``."""
        index = self._unit_before(end - 1)
        if index < 0:
            return end
        if end - 1 < self.norm_ends[index]:
            return self.orig_ends[index]
        return self.orig_ends[index] + end - self.norm_ends[index]

    def cuts_a_unit(self, start: int, end: int) -> bool:
        """Whether the normalized span ``[start, end)`` begins or ends inside a unit."""
        first = self._unit_before(start)
        if first >= 0 and self.norm_starts[first] < start < self.norm_ends[first]:
            return True
        last = self._unit_before(end - 1)
        return last >= 0 and self.norm_starts[last] < end < self.norm_ends[last]

    def source_span(self, start: int, end: int) -> tuple[int, int]:
        """The source span ``[a, b)`` that the normalized span ``[start, end)`` came from."""
        return self.source_start(start), self.source_end(end)


def normalize_text(source: str) -> NormalizedText:
    """Normalize ``source`` (see the module docstring) and keep the map back to it.

    Every step is a C-level scan or a list comprehension over the length-changing units;
    no Python code runs per character.
    """
    plan = _plan_for(_non_ascii_chars(source))
    text = _replace_one_to_one(source, plan)
    spans = _length_changing_spans(text, plan)
    orig_starts = [start for start, _ in spans]
    orig_ends = [end for _, end in spans]
    units = [text[start:end] for start, end in spans]
    replacement_of = {unit: _normalize_unit(unit) for unit in set(units)}
    replacements = [replacement_of[unit] for unit in units]
    gaps = [text[a:b] for a, b in zip([0, *orig_ends], [*orig_starts, len(text)], strict=True)]
    normalized = "".join(chain.from_iterable(zip(gaps, replacements, strict=False))) + gaps[-1]
    lengths = [len(replacement) for replacement in replacements]
    shrinkage = accumulate(
        (
            end - start - length
            for start, end, length in zip(orig_starts, orig_ends, lengths, strict=True)
        ),
        initial=0,
    )
    norm_starts = [start - shift for start, shift in zip(orig_starts, shrinkage, strict=False)]
    norm_ends = [start + length for start, length in zip(norm_starts, lengths, strict=True)]
    return NormalizedText(
        text=normalized,
        source_length=len(source),
        norm_starts=array("q", norm_starts),
        norm_ends=array("q", norm_ends),
        orig_starts=array("q", orig_starts),
        orig_ends=array("q", orig_ends),
    )


@lru_cache(maxsize=2)
def normalized_document(document: str) -> NormalizedText:
    """``normalize_text`` of a document, cached: a run validates the same document often.

    The key is the document string itself; CPython caches a string's hash, and a lookup
    with the same string object is decided by identity, so a hit costs nothing.
    """
    return normalize_text(document)


def normalize_quote(quote: str) -> str:
    """A quote normalized the same way as the document, without surrounding spaces."""
    return normalize_text(quote).text.strip()


def find_near_miss(document: str, quote: str) -> tuple[int, int] | None:
    """Span of ``document`` that equals ``quote`` once both are normalized, if any."""
    needle = normalize_quote(quote)
    if not needle:
        return None
    normalized = normalized_document(document)
    first = position = normalized.text.find(needle)
    for _ in range(_MAX_ALIGNMENT_TRIES):
        if position < 0 or not normalized.cuts_a_unit(position, position + len(needle)):
            break
        position = normalized.text.find(needle, position + 1)
    if position < 0:
        position = first  # only matches that cut into a ligature or space run: take the first
    if position < 0:
        return None
    return normalized.source_span(position, position + len(needle))
