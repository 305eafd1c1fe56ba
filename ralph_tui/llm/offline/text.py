"""Lexical tools of the offline baseline's non-code roles: sentences, overlap scores.

Terms are ``ralph_tui.words``'s, the same the worker searches with in the sandbox."""

from __future__ import annotations

import re

from ralph_tui.words import key_terms, query_terms, term_set

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")


def sentences(text: str, min_chars: int = 20) -> list[str]:
    """Sentences and lines of ``text`` (stripped), dropping fragments shorter than ``min_chars``."""
    return [s.strip() for s in _SENTENCE_END.split(text) if len(s.strip()) >= min_chars]


def support(claim: str, source: str) -> float:
    """Share of the claim's terms found in ``source`` (1.0 for a claim without terms)."""
    claim_terms = set(key_terms(claim))
    if not claim_terms:
        return 1.0
    return len(claim_terms & term_set(source)) / len(claim_terms)


def unsupported_terms(claim: str, source: str) -> list[str]:
    """The claim's terms ``source`` does not hold, sorted."""
    return sorted(set(key_terms(claim)) - term_set(source))


def addresses(text: str, asked: set[str]) -> bool:
    """Whether ``text`` holds at least half of the ``asked`` terms (one of one or two): a
    passage sharing one word with a longer question or task (a licence's "damages" with
    "damaged files") is about something else. The worker quotes, the reasoner writes and
    the judges pass by this one rule."""
    return len(term_set(text) & asked) * 2 >= len(asked)


def rank_sentences(query: str, candidates: list[str], limit: int) -> list[str]:
    """The ``limit`` candidates holding most of the query's terms (ties keep their order)."""
    asked = set(query_terms(query))
    scored = [(len(asked & term_set(s)), -i, s) for i, s in enumerate(candidates) if s.strip()]
    scored.sort(reverse=True)
    return [s for score, _, s in scored[:limit] if score > 0 or not asked]


def clip_words(text: str, limit: int) -> str:
    """A prefix of ``text`` of at most ``limit`` characters, cut at a word boundary."""
    if len(text) <= limit:
        return text
    cut = text[:limit]
    space = cut.rfind(" ")
    return cut[:space] if space > limit // 2 else cut
