"""The same words found on several pages, shown once: on the page that says most about the
query.

Filings repeat whole paragraphs (a segment note in the business section, the MD&A and the
notes); each copy is a passage of its own, and the legs rank the copies alike. They then
fill places that other passages could take, and the copy ranked first is not the one on the
page that answers: that is the page the page leg ranks best, as the words around the copy
count there.
"""

from __future__ import annotations

from collections.abc import Mapping

from ralph_tui.retrieval.sources import PassageInfo

SHINGLE = 4
"""Words per shingle: four words in a row are rarely shared by chance."""
SAME = 0.6
"""The share of the shorter passage's shingles the other must hold to be a copy of it
(chunks cut the same paragraph at different places, so one is never all of the other)."""
LOOKED_AT = 40
"""How far down the order copies are looked for (the top is all a search returns)."""


def copies_once(
    order: list[str],
    infos: Mapping[str, PassageInfo],
    page_rank: Mapping[str, int],
) -> tuple[list[str], set[str]]:
    """``order`` with each set of copies (``SAME``) among its first ``LOOKED_AT`` shown
    by the copy whose page the page leg ranks best (``page_rank``; the order's own where it
    ranks none), in the place of the copy ranked first; and the other copies, for
    ``pages_first`` to put after every passage of their rank of precedence."""
    head = order[:LOOKED_AT]
    shingles = {key: _shingles(infos[key].text) for key in head}
    groups: list[list[str]] = []
    for key in head:
        for group in groups:
            if _same(shingles[group[0]], shingles[key]):
                group.append(key)
                break
        else:
            groups.append([key])
    placed = list(order)
    others: set[str] = set()
    for group in groups:
        if len(group) == 1:
            continue
        best = min(group, key=lambda k: (page_rank.get(k, len(order) + 1), order.index(k)))
        at, was = placed.index(group[0]), placed.index(best)
        placed[at], placed[was] = best, group[0]
        others.update(key for key in group if key != best)
    return placed, others


def _shingles(text: str) -> set[tuple[str, ...]]:
    words = text.lower().split()
    return {tuple(words[n : n + SHINGLE]) for n in range(len(words) - SHINGLE + 1)}


def _same(one: set[tuple[str, ...]], other: set[tuple[str, ...]]) -> bool:
    smaller = min(len(one), len(other))
    return smaller > 0 and len(one & other) >= SAME * smaller
