"""Lexical tools of the offline baseline's non-code roles: sentences, overlap scores.

Terms are ``ralph_tui.words``'s, the same the worker searches with in the sandbox."""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from ralph_tui.words import (
    key_terms,
    names_of,
    query_terms,
    query_words,
    term_pairs,
    term_set,
)
from ralph_tui.words import sentences as all_sentences


def sentences(text: str, min_chars: int = 20) -> list[str]:
    """Sentences and lines of ``text`` (``words.sentences``), dropping fragments shorter
    than ``min_chars``."""
    return [sentence for sentence in all_sentences(text) if len(sentence) >= min_chars]


def support(claim: str, source: str) -> float:
    """Share of the claim's terms found in ``source`` (1.0 for a claim without terms)."""
    claim_terms = set(key_terms(claim))
    if not claim_terms:
        return 1.0
    return len(claim_terms & term_set(source)) / len(claim_terms)


def unsupported_terms(claim: str, source: str) -> list[str]:
    """The claim's terms ``source`` does not hold, sorted."""
    return sorted(set(key_terms(claim)) - term_set(source))


@dataclass(frozen=True)
class Asked:
    """What a question or task asks about: its terms, each with its word as written, and
    its phrases (pairs of consecutive terms, either way round)."""

    words: dict[str, str]
    phrases: frozenset[frozenset[str]]
    names: frozenset[str]
    """The terms a question names (``ralph_tui.words.names_of``): a text holding one is
    about what the question asks after, and sources lacking one cannot answer it. A task
    has none: the thing it names is often what the whole document is about ("bzip2" in
    bzip2's manual), so a passage naming it may still be off the task."""

    @classmethod
    def of(cls, query: str, *, names: bool) -> Asked:
        asked = query_words(query)
        ordered = [term for term in key_terms(query) if term in asked]
        pairs = itertools.pairwise(ordered)
        phrases = frozenset(frozenset(pair) for pair in pairs if pair[0] != pair[1])
        named = frozenset(names_of(query)) & set(asked) if names else frozenset()
        return cls(asked, phrases, named)

    @classmethod
    def question(cls, query: str) -> Asked:
        return cls.of(query, names=True)

    @classmethod
    def task(cls, task: str) -> Asked:
        return cls.of(task, names=False)

    @property
    def terms(self) -> set[str]:
        return set(self.words)

    def addressed_by(self, text: str) -> bool:
        """Whether ``text`` holds at least half of the terms (one of one or two), one of
        the names, or one of the phrases: a passage sharing a common word or two with a
        longer question or task, apart (a licence's "damages ... data" with "recovers data
        from damaged files"), is about something else. The worker quotes, the reasoner
        writes and the judges pass by this one rule."""
        held = term_set(text)
        if len(held & self.terms) * 2 >= len(self.terms) or held & self.names:
            return True
        return any(frozenset(pair) in self.phrases for pair in term_pairs(text))


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
