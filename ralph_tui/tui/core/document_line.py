"""Several documents in one line of text (the run form's document field): written as a shell
writes them, each quoted where it must be, and read back the same way; one path that
exists is written as it is, spaces and all (what a person types, or the file picker gives)."""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from pathlib import Path

QUOTES_AND_SPACES = frozenset(" \t'\"")
"""What makes a line more than one path."""


def documents_line(paths: Sequence[Path]) -> str:
    """``paths`` as one line that ``documents_of_line`` reads back: one path as it is where
    that reads back as one, else each quoted where it must be."""
    if len(paths) == 1 and documents_of_line(str(paths[0])) == [paths[0]]:
        return str(paths[0])
    return shlex.join(str(path) for path in paths)


def documents_of_line(text: str) -> list[Path]:
    """The documents a line names (``~`` expanded): the whole line when it names an existing
    path or has no space or quote in it, else its words as a shell splits them (a line whose
    quotes do not close is one path)."""
    text = text.strip()
    if not text:
        return []
    whole = Path(text).expanduser()
    if whole.exists() or not QUOTES_AND_SPACES & set(text):
        return [whole]
    try:
        words = shlex.split(text)
    except ValueError:  # an unclosed quote: a path that holds one
        return [whole]
    return [Path(word).expanduser() for word in words]
