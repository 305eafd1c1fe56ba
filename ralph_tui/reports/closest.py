"""The passage of a text most like a quote that is no longer in it, so a person sees what the
source says there now.

Comparing the quote with every window of a long document character by character would be
slow (a 500-page PDF is millions of characters), so the search is in two steps: a sliding
count of the quote's words over the text's words picks a few candidate windows in one linear
pass, then ``difflib`` compares the quote with each candidate and trims it to the part that
matches. Among equally alike passages, the one nearest the quote's saved place wins.
"""

from __future__ import annotations

import bisect
import difflib
import heapq
import re
from dataclasses import dataclass
from itertools import accumulate

_WORD = re.compile(r"\w+")
_CANDIDATES = 5
_MIN_BLOCK = 3
"""Matching runs shorter than this (a shared letter or space) do not stretch the passage."""


@dataclass(frozen=True)
class Closest:
    """A span of the text and how alike it is to the quote (``difflib`` ratio, 0 to 1)."""

    start: int
    end: int
    similarity: float


def closest_passage(text: str, quote: str, near: int | None = None) -> Closest | None:
    """The span of ``text`` most like ``quote``; ``None`` when they share no word.

    ``near``: the quote's saved offset, which decides between equally alike passages.
    """
    wanted = {word.lower() for word in _WORD.findall(quote)}
    tokens = [(m.start(), m.end(), m.group().lower()) for m in _WORD.finditer(text)]
    if not wanted or not tokens:
        return None
    width = min(len(_WORD.findall(quote)), len(tokens))
    prefix = list(accumulate((word in wanted for _, _, word in tokens), initial=0))
    scores = [prefix[i + width] - prefix[i] for i in range(len(tokens) - width + 1)]
    starts = _candidate_starts(scores, width, tokens, near)
    if not starts or max(scores[i] for i in starts) == 0:
        return None
    margin = len(quote) // 2
    found = [
        _refine(text, quote, tokens[i][0] - margin, tokens[i + width - 1][1] + margin)
        for i in starts
    ]
    hint = near if near is not None else 0
    return max(found, key=lambda c: (c[0], -abs(c[1].start - hint)))[1]


def _candidate_starts(
    scores: list[int], width: int, tokens: list[tuple[int, int, str]], near: int | None
) -> list[int]:
    """The best-scoring window starts that do not overlap, and the window at ``near``."""
    chosen: list[int] = []
    for index in heapq.nlargest(_CANDIDATES * width, range(len(scores)), key=scores.__getitem__):
        if all(abs(index - other) >= width for other in chosen):
            chosen.append(index)
        if len(chosen) == _CANDIDATES:
            break
    if near is not None:
        at = bisect.bisect_left([start for start, _, _ in tokens], near)
        chosen.append(min(at, len(scores) - 1))
    return chosen


def _refine(text: str, quote: str, start: int, end: int) -> tuple[float, Closest]:
    """The part of ``text[start:end]`` that matches ``quote``, widened to whole words, and
    how alike they are with letter case aside (what ranks the candidates); the passage's
    own similarity counts letter case."""
    start, end = max(start, 0), min(end, len(text))
    window = _folded(text[start:end])
    matcher = difflib.SequenceMatcher(None, _folded(quote), window, autojunk=False)
    blocks = [b for b in matcher.get_matching_blocks() if b.size >= _MIN_BLOCK]
    if blocks:
        end = start + blocks[-1].b + blocks[-1].size
        start += blocks[0].b
    start, end = _whole_words(text, start, end)
    passage = text[start:end]
    rank = difflib.SequenceMatcher(None, _folded(quote), _folded(passage), autojunk=False)
    similarity = difflib.SequenceMatcher(None, quote, passage, autojunk=False).ratio()
    return rank.ratio(), Closest(start, end, round(similarity, 3))


def _folded(text: str) -> str:
    """``text`` in lower case, where that keeps every character's place."""
    lower = text.lower()
    return lower if len(lower) == len(text) else text


def _whole_words(text: str, start: int, end: int) -> tuple[int, int]:
    """``[start, end)`` widened to the words it cuts, white space at either end dropped."""
    while 0 < start < len(text) and text[start - 1].isalnum() and text[start].isalnum():
        start -= 1
    while 0 < end < len(text) and text[end - 1].isalnum() and text[end].isalnum():
        end += 1
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end
