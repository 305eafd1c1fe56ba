"""The retrieval's vocabulary: word ids for the texts it indexes.

Words are ``ralph_tui.words.folded_words`` (folded, stop words dropped). The lexical leg
indexes each word's stem (``ralph_tui.words.stem``, so "gardeners" finds "gardener") and
stems a query's words the same way; the word-vector embedder looks words up unstemmed. Both
legs share one tokenization pass. Text without spaces between words (Chinese, Japanese) comes
as character pairs, which the stemmer leaves as they are.
"""

from __future__ import annotations

from ralph_tui.words import folded_words


class Vocabulary:
    """Word ids for a collection of texts, grown as texts are added."""

    def __init__(self) -> None:
        self.ids: dict[str, int] = {}

    def encode(self, text: str) -> list[int]:
        ids = self.ids
        return [ids.setdefault(word, len(ids)) for word in folded_words(text)]

    @property
    def words(self) -> list[str]:
        """Words by id."""
        return list(self.ids)
