"""Words of a text for retrieval: lowercased word runs, English stop words dropped.

The lexical leg indexes each word's Snowball stem (so "gardeners" finds "gardener"); the
word-vector embedder looks words up unstemmed. Both legs share one tokenization pass.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache

import Stemmer
from bm25s.stopwords import STOPWORDS_EN

WORD = re.compile(r"\w+")
STOP_WORDS = frozenset(STOPWORDS_EN) | {"what", "which", "who", "whom", "how", "why", "when"}


def words_of(text: str) -> list[str]:
    """The words of ``text`` that carry meaning: lowercased word runs without the stop
    words."""
    return [word for word in WORD.findall(text.lower()) if word not in STOP_WORDS]


@cache
def _stemmer() -> Stemmer.Stemmer:
    return Stemmer.Stemmer("english")


def stems_of(words: Iterable[str]) -> list[str]:
    """Each word's Snowball (English) stem, in order."""
    return list(_stemmer().stemWords(list(words)))


class Vocabulary:
    """Word ids for a collection of texts, grown as texts are added."""

    def __init__(self) -> None:
        self.ids: dict[str, int] = {}

    def encode(self, text: str) -> list[int]:
        ids = self.ids
        return [ids.setdefault(word, len(ids)) for word in words_of(text)]

    @property
    def words(self) -> list[str]:
        """Words by id."""
        return list(self.ids)
