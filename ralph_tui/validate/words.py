"""Clauses and word pairs for the task checks; what a term is comes from ``ralph_tui.words``.

``tokens`` keeps inner apostrophes and hyphens ("don't", "read-only"), which the
contradiction check reads negations from.
"""

from __future__ import annotations

import re

from ralph_tui.words import term_pairs

_TOKEN = re.compile(r"[a-z0-9]+(?:['-][a-z0-9]+)*")
_SENTENCE_BREAK = re.compile(r"(?<=[.!?;])\s+|\n+")


def tokens(text: str) -> list[str]:
    """Lower-case word tokens (letters and digits, inner hyphens and apostrophes kept)."""
    return _TOKEN.findall(text.lower().replace("’", "'"))


def sentences(text: str) -> list[str]:
    """Sentences and lines of ``text``, stripped, without empty ones."""
    return [part.strip() for part in _SENTENCE_BREAK.split(text) if part.strip()]


def content_bigrams(text: str) -> set[tuple[str, str]]:
    """Pairs of consecutive content-word terms, within each sentence of ``text``."""
    pairs: set[tuple[str, str]] = set()
    for sentence in sentences(text):
        pairs.update(term_pairs(sentence))
    return pairs
