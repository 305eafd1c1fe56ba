"""Glob patterns (``*``, ``?``, ``[...]``, ``**``) expanded as ``glob.glob(recursive=True)``
does, with bounded work: ``**`` enters each real folder once, so links that lead back up
(``a -> ..``) cannot make it walk for ever. Confined, no folder outside the allowed ones is
listed: a wildcard looks only into folders whose real path lies inside, and a literal part
of the pattern only leads to them.
"""

from __future__ import annotations

import fnmatch
import os
from pathlib import Path

from ralph_tui.documents.confine import Confinement

GLOB_CHARS = frozenset("*?[")


def is_pattern(part: str) -> bool:
    return bool(GLOB_CHARS & set(part))


def expand(
    pattern: Path, within: Confinement | None = None, refused: list[str] | None = None
) -> list[Path]:
    """The paths ``pattern`` matches, sorted; confined, what leads outside ``within`` is not
    entered, and named in ``refused``."""
    parts = pattern.parts
    anchored = pattern.is_absolute()
    paths = [Path(parts[0])] if anchored else [Path()]
    components = parts[1:] if anchored else parts
    for index, part in enumerate(components):
        last = index == len(components) - 1
        wildcard = is_pattern(part)
        if wildcard and within is not None:
            paths = [path for path in paths if within.real_inside(path) is not None]
        if part == "**":
            paths = [found for path in paths for found in _below(path, last, within, refused)]
        elif wildcard:
            paths = [found for path in paths for found in _matching(path, part, last)]
        else:
            paths = [path / part for path in paths]
            paths = [p for p in paths if (os.path.lexists(p) if last else p.is_dir())]
        if not last and within is not None:
            paths = [path for path in paths if _enterable(path, within, wildcard, refused)]
    return sorted(set(paths))


def _matching(folder: Path, part: str, last: bool) -> list[Path]:
    """The entries of ``folder`` that ``part`` matches (folders only, unless ``last``); a
    hidden name only when ``part`` asks for one, as ``glob`` does."""
    hidden = part.startswith(".")
    return [
        folder / entry.name
        for entry in _entries(folder)
        if (hidden or not entry.name.startswith("."))
        and fnmatch.fnmatch(entry.name, part)
        and (last or _is_dir(entry))
    ]


def _below(
    folder: Path, last: bool, within: Confinement | None, refused: list[str] | None
) -> list[Path]:
    """``folder`` and every path under it that is not hidden (folders only, unless
    ``last``), each real folder entered once; confined, none outside."""
    found: list[Path] = [folder]
    seen = {os.path.realpath(folder)}
    pending = [folder]
    while pending:
        current = pending.pop()
        for entry in _entries(current):
            if entry.name.startswith("."):
                continue
            path = current / entry.name
            if not _is_dir(entry):
                if last:
                    found.append(path)
                continue
            real = os.path.realpath(path)
            if real in seen:
                continue
            seen.add(real)
            if within is not None and not _enterable(path, within, True, refused):
                continue
            found.append(path)
            pending.append(path)
    return found


def _enterable(folder: Path, within: Confinement, listed: bool, refused: list[str] | None) -> bool:
    """Whether ``folder`` (resolved) lies inside ``within`` or, named by a literal part of
    the pattern (not ``listed``), on the way to it; a symbolic link that leads out is named
    in ``refused``."""
    real = Path(os.path.realpath(folder))
    if within.admits(real) or (not listed and within.on_the_way(real)):
        return True
    if refused is not None and within.on_the_way(Path(os.path.abspath(folder))):
        refused.append(within.outside_note(str(folder)))
    return False


def _entries(folder: Path) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(folder) as entries:
            return list(entries)
    except OSError:
        return []


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False
