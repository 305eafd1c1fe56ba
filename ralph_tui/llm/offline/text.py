"""Lexical tools of the offline baseline: words, sentences, overlap scores."""

from __future__ import annotations

import re

_STOPWORD_TEXT = """a about above after again against all also am an and any are as at be
    because been
    before being below between both but by can could did do does doing down during each few
    for from further had has have having he her here hers herself him himself his how i if in
    into is it its itself just me more most my myself no nor not now of off on once only or
    other our ours ourselves out over own same she should so some such than that the their
    theirs them themselves then there these they this those through to too under until up very
    was we were what when where which while who whom why will with would you your yours
    yourself yourselves explain describe summarize list give tell document text please
    often carried carry happen happens happened long many much kind type way ways make made
    take takes taken done need needs use used"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())

_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'\-]*")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")


def content_words(text: str) -> list[str]:
    """Lower-cased words of three or more letters that are not stopwords, in order."""
    return [
        w
        for w in (m.group(0).lower().removesuffix("'s").strip("'-") for m in _WORD.finditer(text))
        if len(w) >= 3 and w not in STOPWORDS
    ]


def stem(word: str) -> str:
    """A crude suffix stripper so "loops" matches "loop" and "validated" matches "validate"."""
    for suffix in ("ations", "ation", "ings", "ing", "ies", "es", "ed", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def stems(text: str) -> set[str]:
    return {stem(w) for w in content_words(text)}


def sentences(text: str, min_chars: int = 20) -> list[str]:
    """Sentences and lines of ``text`` (stripped), dropping fragments shorter than ``min_chars``."""
    return [s.strip() for s in _SENTENCE_END.split(text) if len(s.strip()) >= min_chars]


def support(claim: str, source: str) -> float:
    """Share of the claim's content stems found in ``source`` (1.0 for an empty claim)."""
    claim_stems = stems(claim)
    if not claim_stems:
        return 1.0
    return len(claim_stems & stems(source)) / len(claim_stems)


def rank_sentences(query: str, candidates: list[str], limit: int) -> list[str]:
    """The ``limit`` candidates sharing most query stems (ties keep document order)."""
    query_stems = stems(query)
    scored = [(len(query_stems & stems(s)), -i, s) for i, s in enumerate(candidates) if s.strip()]
    scored.sort(reverse=True)
    return [s for score, _, s in scored[:limit] if score > 0 or not query_stems]


def clip_words(text: str, limit: int) -> str:
    """A prefix of ``text`` of at most ``limit`` characters, cut at a word boundary."""
    if len(text) <= limit:
        return text
    cut = text[:limit]
    space = cut.rfind(" ")
    return cut[:space] if space > limit // 2 else cut
