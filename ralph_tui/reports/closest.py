"""The passage of a text most like a quote that is no longer in it, so a person sees what the
source says there now; at a bounded cost, since the quote may come from someone else.

Comparing the quote with every window of a long document character by character would be
slow (a 500-page PDF is millions of characters), so the search is in two steps: a sliding
count of the quote's words over the text's words (numpy, over word ids computed once per
text) picks a few candidate windows in one linear pass, then rapidfuzz aligns the quote with
each candidate (bit-parallel, so tens of times faster than ``difflib``) and trims it to the
part that matches. Among equally alike passages, the one nearest the quote's saved place wins.

The alignments' cost grows with the square of the quote's length: each search is given
``WORK_BUDGET`` character pairs, as many candidates are compared as it allows, and a quote
for which not even one fits is ``TooLong`` (its closest passage is not looked for). Every
piece of work between two calls of ``checkpoint`` is short, so a caller can stop the search
(SIGTERM, Ctrl-C) within a fraction of a second.
"""

from __future__ import annotations

import bisect
import re
from array import array
from dataclasses import dataclass

import numpy as np
from rapidfuzz import fuzz
from rapidfuzz.distance import Indel, MatchingBlock

from ralph_tui.reports.stoppable import Checkpoint

_WORD = re.compile(r"\w+")
_CANDIDATES = 5
_MIN_BLOCK = 3
"""Matching runs shorter than this (a shared letter or space) do not stretch the passage."""
_MAX_MARGIN = 300
"""Characters of context a candidate window takes at most on each side of its words."""
WORK_BUDGET = 400_000_000
"""Character pairs one search may compare (about a tenth of a second of rapidfuzz)."""
_WORDS_PER_CHECKPOINT = 50_000


@dataclass(frozen=True)
class Closest:
    """A span of the text and how alike it is to the quote (0 to 1: twice the characters
    they share over both lengths, as ``difflib``'s ratio)."""

    start: int
    end: int
    similarity: float
    similarity_any_case: float = 1.0
    """The same with letter case aside."""


@dataclass(frozen=True)
class TooLong:
    """The quote is too long for even one comparison within the budget."""

    longest: int
    """The longest quote (in characters) the budget lets one search compare."""


def _no_checkpoint() -> None:
    return None


class WordIndex:
    """A text's words, computed once for every quote searched in it: where each word
    starts and ends, and an id per distinct lower-cased word."""

    def __init__(self, text: str, checkpoint: Checkpoint = _no_checkpoint) -> None:
        self.text = text
        self.vocabulary: dict[str, int] = {}
        ids, starts, ends = array("q"), array("q"), array("q")
        for count, match in enumerate(_WORD.finditer(text), 1):
            ids.append(self.vocabulary.setdefault(match.group().lower(), len(self.vocabulary)))
            starts.append(match.start())
            ends.append(match.end())
            if count % _WORDS_PER_CHECKPOINT == 0:
                checkpoint()
        self.ids = np.frombuffer(ids, dtype=np.int64) if ids else np.zeros(0, np.int64)
        self.starts, self.ends = starts, ends

    def __len__(self) -> int:
        return len(self.starts)


def closest_passage(
    text: str,
    quote: str,
    near: int | None = None,
    *,
    index: WordIndex | None = None,
    budget: int = WORK_BUDGET,
    checkpoint: Checkpoint = _no_checkpoint,
) -> Closest | TooLong | None:
    """The span of ``text`` most like ``quote``; ``None`` when they share no word,
    ``TooLong`` when the quote is too long to compare within ``budget``.

    ``near``: the quote's saved offset, which decides between equally alike passages.
    ``index``: ``text``'s words, when several quotes are searched in it.
    """
    margin = min(len(quote) // 2, _MAX_MARGIN)
    per_candidate = _cost(len(quote))
    if per_candidate > budget:
        return TooLong(_longest_within(budget))
    quote_words = [word.lower() for word in _WORD.findall(quote)]
    words = index if index is not None else WordIndex(text, checkpoint)
    if not quote_words or not len(words):
        return None
    wanted = [words.vocabulary[word] for word in set(quote_words) if word in words.vocabulary]
    if not wanted:
        return None
    width = min(len(quote_words), len(words))
    hits = np.isin(words.ids, np.array(wanted, dtype=np.int64))
    prefix = np.concatenate(([0], np.cumsum(hits, dtype=np.int64)))
    scores = prefix[width:] - prefix[:-width]
    checkpoint()
    starts = _candidate_starts(scores, width, words, near, max(1, budget // per_candidate))
    found = []
    for i in starts:
        checkpoint()
        start = words.starts[i] - margin
        end = min(words.ends[i + width - 1], words.starts[i] + 2 * len(quote)) + margin
        # the window is 2 * (len(quote) + margin) long at most, as ``_cost`` counts
        found.append(_refine(text, quote, start, end))
    hint = near if near is not None else 0
    return max(found, key=lambda c: (c[0], -abs(c[1].start - hint)))[1]


def _cost(length: int) -> int:
    """Character pairs one candidate window costs for a quote of ``length``: one alignment
    and up to three similarities, each with a window of at most twice the quote and its
    margins."""
    return 4 * length * 2 * (length + min(length // 2, _MAX_MARGIN))


def _longest_within(budget: int) -> int:
    """The longest quote whose one candidate costs ``budget`` at most."""
    low, high = 0, budget
    while low < high:
        middle = (low + high + 1) // 2
        low, high = (middle, high) if _cost(middle) <= budget else (low, middle - 1)
    return low


def _candidate_starts(
    scores: np.ndarray, width: int, words: WordIndex, near: int | None, most: int
) -> list[int]:
    """The best-scoring window starts that do not overlap, and the window at ``near``:
    ``most`` of them at most, the best one first."""
    count = max(1, min(_CANDIDATES, most - (near is not None)))
    chosen: list[int] = []
    for index in _best_first(scores, count * width).tolist():
        if all(abs(index - other) >= width for other in chosen):
            chosen.append(index)
        if len(chosen) == count:
            break
    if near is not None and len(chosen) < most:
        chosen.append(min(bisect.bisect_left(words.starts, near), len(scores) - 1))
    return chosen


def _best_first(scores: np.ndarray, most: int) -> np.ndarray:
    """The indexes of the ``most`` highest scores above 0, highest first, the earlier first
    among equal ones (as a stable sort of them all gives, without sorting them all)."""
    kth = np.partition(scores, len(scores) - most)[len(scores) - most] if most < len(scores) else 1
    top = np.flatnonzero(scores >= max(kth, 1))  # ties with the last one taken come too
    return top[np.lexsort((top, -scores[top]))][:most]


def _refine(text: str, quote: str, start: int, end: int) -> tuple[float, Closest]:
    """The part of ``text[start:end]`` that matches ``quote``, widened to whole words, and
    how alike they are with letter case aside (what ranks the candidates); the passage's
    own similarity counts letter case.

    The part runs from the first to the last block the alignment matched, or, when the
    quote's ends matched nothing there, on over as many characters as those ends have: the
    more alike of the two is taken."""
    low, high = max(start, 0), min(end, len(text))
    folded_quote = _folded(quote)
    alignment = Indel.opcodes(folded_quote, _folded(text[low:high]))
    blocks = _trimmed([b for b in alignment.as_matching_blocks() if b.size >= _MIN_BLOCK])
    spans = [(low, high)]
    if blocks:
        first, last = blocks[0], blocks[-1]
        matched = (low + first.b, low + last.b + last.size)
        spans = [matched]
        if first.a or last.a + last.size < len(quote):
            unmatched_after = len(quote) - last.a - last.size
            spans.append((max(matched[0] - first.a, low), min(matched[1] + unmatched_after, high)))
    ranked = []
    for span in spans:
        start, end = _whole_words(text, *span)
        passage = text[start:end]
        ranked.append((fuzz.ratio(folded_quote, _folded(passage)) / 100, start, end))
    rank, start, end = max(ranked)
    similarity = fuzz.ratio(quote, text[start:end]) / 100
    return rank, Closest(start, end, round(similarity, 3), round(rank, 3))


def _trimmed(blocks: list[MatchingBlock]) -> list[MatchingBlock]:
    """``blocks`` without the stray ones at either end: a block the alignment reached by
    skipping more of the window than of the quote, by more than the block's own size (an
    optimal alignment matches a lone ``the`` a sentence early as readily as in place)."""

    def stray(block: MatchingBlock, other: MatchingBlock) -> bool:
        skipped = abs(other.b - block.b) - abs(other.a - block.a)
        return skipped > block.size

    while len(blocks) > 1 and stray(blocks[0], blocks[1]):
        blocks = blocks[1:]
    while len(blocks) > 1 and stray(blocks[-1], blocks[-2]):
        blocks = blocks[:-1]
    return blocks


def _folded(text: str) -> str:
    """``text`` in lower case, where that keeps every character's place."""
    lower = text.lower()
    return lower if len(lower) == len(text) else text


def _whole_words(text: str, start: int, end: int) -> tuple[int, int]:
    """``[start, end)`` widened to the words it cuts (by ``_MAX_MARGIN`` characters at most),
    white space at either end dropped."""
    low, high = max(start - _MAX_MARGIN, 0), min(end + _MAX_MARGIN, len(text))
    while low < start < len(text) and text[start - 1].isalnum() and text[start].isalnum():
        start -= 1
    while 0 < end < high and text[end - 1].isalnum() and text[end].isalnum():
        end += 1
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end
