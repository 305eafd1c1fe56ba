"""Word-level text helpers for the task checks: tokens, stop words, a light stemmer."""

from __future__ import annotations

import itertools
import re


def word_set(words: str) -> frozenset[str]:
    """The whitespace-separated words of ``words`` as a set (for readable word lists)."""
    return frozenset(words.split())


STOP_WORDS = word_set(
    """
    a about above after again against all also am an and any are as at be because been
    before being below between both but by can could did do does doing done down during
    each either etc few for from further had has have having he her here hers him his how
    i if in into is it its itself just let may me might more most much must my no nor not
    of off on once one only or other our ours out over own per same she should so some
    such than that the their theirs them then there these they this those through thus to
    too under until up upon us very via was we were what when where whether which while
    who whom whose why will with within without would yet you your
    """
)

_TOKEN = re.compile(r"[a-z0-9]+(?:['-][a-z0-9]+)*")
_SENTENCE_BREAK = re.compile(r"(?<=[.!?;])\s+|\n+")
_DOUBLED_FINAL = re.compile(r"([b-df-hj-kmnp-rtv-y])\1$")


def tokens(text: str) -> list[str]:
    """Lower-case word tokens (letters and digits, inner hyphens and apostrophes kept)."""
    return _TOKEN.findall(text.lower().replace("’", "'"))


def sentences(text: str) -> list[str]:
    """Sentences and lines of ``text``, stripped, without empty ones."""
    return [part.strip() for part in _SENTENCE_BREAK.split(text) if part.strip()]


def stem(word: str) -> str:
    """A light suffix-stripping stem, so that cache/caches/cached/caching agree."""
    if len(word) <= 3:
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    for suffix in ("ing", "ed"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            base = word[: -len(suffix)]
            return base[:-1] if _DOUBLED_FINAL.search(base) else base.removesuffix("e")
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    return word.removesuffix("e") if len(word) > 3 else word


def is_content_word(word: str) -> bool:
    """Whether a token carries meaning (not a stop word, not a lone character)."""
    return len(word) > 1 and word not in STOP_WORDS


def content_stems(text: str) -> list[str]:
    """Stems of the content words of ``text``, in order."""
    return [stem(word) for word in tokens(text) if is_content_word(word)]


def content_bigrams(text: str) -> set[tuple[str, str]]:
    """Pairs of consecutive content-word stems, within each sentence of ``text``."""
    pairs: set[tuple[str, str]] = set()
    for sentence in sentences(text):
        stems = content_stems(sentence)
        pairs.update(itertools.pairwise(stems))
    return pairs
