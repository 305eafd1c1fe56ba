"""Themes as data: TOML files mapping to ``textual.theme.Theme`` fields.

The built-in themes ship in this package's ``themes/`` folder (the repository's
top-level ``themes/`` points at the same files); a user adds or overrides themes
with ``*.toml`` files in ``<config dir>/themes/``. A file that does not parse or
names a bad colour is skipped and reported, so a broken theme never stops the app.

The shipped themes are read without checking (``ThemeFile``, which brings pydantic, would
hold back the first frame by a fifth of a second; a test checks every shipped file against
it); a user's theme files are checked as they are read.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from textual.theme import Theme

BUILTIN_THEMES_DIR = Path(__file__).with_name("themes")
DEFAULT_THEME = "ralph-dark"
FALLBACK_THEME = "textual-dark"
"""Textual's own dark theme: used when even the default theme file is unusable."""


class ThemeError(ValueError):
    """A theme file that cannot be used; the message names the file and the problem."""


@dataclass
class ThemeCatalog:
    """Every theme that loaded, and a one-line note for every file that did not."""

    themes: dict[str, Theme] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    broken_names: set[str] = field(default_factory=set)
    """Theme names (from file names) whose file failed: a saved choice may point at one."""


def load_theme(path: Path, *, shipped: bool = False) -> Theme:
    """The theme in ``path``; ``ThemeError`` if the file is unreadable or invalid
    (``shipped``: one of this package's own files, not checked)."""
    try:
        data: dict[str, Any] = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ThemeError(f"theme {path.name}: {exc}") from None
    if shipped:
        return Theme(**data)
    from pydantic import ValidationError

    from ralph_tui.json_input import first_problem
    from ralph_tui.tui.theme_file import ThemeFile

    try:
        fields = ThemeFile.model_validate(data)
    except ValidationError as exc:
        raise ThemeError(f"theme {path.name}: {first_problem(exc, 'file')}") from None
    return Theme(**fields.model_dump())


def load_catalog(*directories: Path) -> ThemeCatalog:
    """Load ``*.toml`` from each directory in turn; later directories override earlier ones.
    The files of ``BUILTIN_THEMES_DIR`` are read as shipped (unchecked)."""
    catalog = ThemeCatalog()
    for directory in directories:
        shipped = directory == BUILTIN_THEMES_DIR
        for path in sorted(directory.glob("*.toml")) if directory.is_dir() else []:
            try:
                theme = load_theme(path, shipped=shipped)
            except ThemeError as exc:
                catalog.problems.append(str(exc))
                catalog.broken_names.add(path.stem)
                continue
            catalog.themes[theme.name] = theme
            catalog.broken_names.discard(theme.name)
    return catalog


def pick_theme(wanted: str | None, available: set[str]) -> str:
    """The theme to start with: the saved one if usable, else the default, else Textual's."""
    for name in (wanted, DEFAULT_THEME):
        if name and name in available:
            return name
    return FALLBACK_THEME
