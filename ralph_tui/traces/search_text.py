"""Text for the full-text index, and user search text made safe for FTS5.

FTS5 has its own query syntax (quotes, parentheses, ``AND``/``OR``/``NOT``,
``col:``, ``*``...), so raw user text such as ``what's "this" (x)`` is a
syntax error. ``fts_query`` turns each word into a quoted phrase instead: all
words must match, in any order; a word ending in ``*`` matches as a prefix.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any


def fts_query(text: str) -> str | None:
    """An FTS5 MATCH expression for ``text``; ``None`` when it has no searchable word."""
    # SQLite reads the expression as a C string: a NUL would cut it off mid-quote.
    words = text.replace("\0", " ").split()
    terms = [_quoted_term(word) for word in words if any(c.isalnum() for c in word)]
    return " ".join(terms) if terms else None


def _quoted_term(word: str) -> str:
    prefix = word.endswith("*")
    phrase = word.rstrip("*").replace('"', '""')
    return f'"{phrase}"*' if prefix else f'"{phrase}"'


def output_text(output: Any) -> str:
    """Every string inside a candidate output (answer, evidence, findings...), one per line."""
    return "\n".join(_strings(output))


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        if value:
            yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _strings(item)
