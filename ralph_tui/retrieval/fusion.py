"""Reciprocal-rank fusion of the legs' rankings, with source weights and exact phrases first."""

from __future__ import annotations

import re
from collections.abc import Iterable

from ralph_tui.words import word_count

RRF_K = 60

QUOTED = re.compile(r"[\"“”「『]([^\"“”「」『』]{2,})[\"“”」』]")
"""A phrase in double quotes or Japanese corner brackets (two characters are a word of an
unspaced script)."""


def rrf(
    rankings: Iterable[list[str]], weights: dict[str, float], k: int = RRF_K
) -> dict[str, float]:
    """Fused score per candidate id: its weight times the sum over rankings of
    ``1 / (k + rank)`` (rank from 1). ``weights`` maps an id to its source's weight."""
    fused: dict[str, float] = {}
    for ranking in rankings:
        for rank, key in enumerate(ranking, 1):
            fused[key] = fused.get(key, 0.0) + 1.0 / (k + rank)
    return {key: score * weights.get(key, 1.0) for key, score in fused.items()}


def exact_phrases(query: str) -> list[str]:
    """Phrases a passage should hold verbatim to come first: the query's quoted phrases, or
    else the query itself when it is a few words (a name, a term, a code; ``word_count``
    counts each character of a script written without spaces)."""
    quoted = [" ".join(p.lower().split()) for p in QUOTED.findall(query)]
    if quoted:
        return quoted
    words = query.lower().split()
    return [" ".join(words)] if 2 <= word_count(query) <= 6 else []


def holds_phrase(text: str, phrases: list[str]) -> bool:
    if not phrases:
        return False
    flat = " ".join(text.lower().split())
    return any(phrase in flat for phrase in phrases)
