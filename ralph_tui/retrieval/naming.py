"""Which documents of a folder a query names.

In an index of several documents, "How much did Adobe hold in current assets?" asks about
Adobe's filing, not the nine others that also have a balance sheet. A query names a document
when it holds a word of the document's name or title that few documents share (at most half
of them: ``10K`` or ``report`` in every name names none); of those words, the most specific
one decides (the word fewest names hold), so "Adobe ... fiscal 2019" names Adobe's filing,
not every filing of 2019, while "compare Adobe and Apple" names both. Search then looks in the
named documents only; a query that names none searches them all.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from ralph_tui.words import folded_words, stems_of


def name_terms(names: Sequence[str]) -> list[frozenset[str]]:
    """Each document's name and title as a set of stems."""
    return [frozenset(stems_of(folded_words(name))) for name in names]


def named_documents(query: str, terms: Sequence[frozenset[str]]) -> list[int]:
    """The documents (their numbers) that ``query`` names; empty when it names none (or the
    index holds fewer than two documents)."""
    if len(terms) < 2:
        return []
    holders = Counter(term for name in terms for term in name)
    asked = {
        term
        for term in stems_of(folded_words(query))
        if term in holders and holders[term] * 2 <= len(terms)
    }
    if not asked:
        return []
    fewest = min(holders[term] for term in asked)
    specific = {term for term in asked if holders[term] == fewest}
    return [number for number, name in enumerate(terms) if name & specific]
