"""Completion of file-system paths typed into an ``Input`` (accepted with the right arrow)."""

from __future__ import annotations

import os
from pathlib import Path

from textual.suggester import Suggester

MAX_ENTRIES_SCANNED = 5000


def complete_path(value: str) -> str | None:
    """``value`` extended to the first entry of its folder that starts with what was typed.

    A folder gets a trailing ``/`` so completion can go on inside it. Hidden entries
    are offered only once the typed name starts with a dot.
    """
    if not value:
        return None
    head, separator, partial = value.rpartition(os.sep)
    folder = Path(os.path.expanduser(head or os.sep)) if separator else Path(".")
    try:
        names = _entries_starting_with(folder, partial)
    except OSError:
        return None
    if not names:
        return None
    name, is_dir = min(names)
    completed = value[: len(value) - len(partial)] + name
    return completed + os.sep if is_dir else completed


def _entries_starting_with(folder: Path, partial: str) -> list[tuple[str, bool]]:
    """``(name, is_dir)`` of the entries of ``folder`` whose name starts with ``partial``."""
    show_hidden = partial.startswith(".")
    found = []
    with os.scandir(folder) as entries:
        for count, entry in enumerate(entries):
            if count >= MAX_ENTRIES_SCANNED:
                break
            if entry.name.startswith(partial) and (show_hidden or entry.name[0] != "."):
                found.append((entry.name, entry.is_dir()))
    return found


class PathSuggester(Suggester):
    """Suggests the completion of the path typed so far (never cached: files come and go)."""

    def __init__(self) -> None:
        super().__init__(use_cache=False, case_sensitive=True)

    async def get_suggestion(self, value: str) -> str | None:
        completed = complete_path(value)
        return completed if completed != value else None
