"""Themes as data: TOML files mapping to ``textual.theme.Theme`` fields.

The built-in themes ship in this package's ``themes/`` folder (the repository's
top-level ``themes/`` points at the same files); a user adds or overrides themes
with ``*.toml`` files in ``<config dir>/themes/``. A file that does not parse or
names a bad colour is skipped and reported, so a broken theme never stops the app.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator
from textual.color import Color, ColorParseError
from textual.theme import Theme

from ralph_tui.json_input import first_problem

BUILTIN_THEMES_DIR = Path(__file__).with_name("themes")
DEFAULT_THEME = "ralph-dark"
FALLBACK_THEME = "textual-dark"
"""Textual's own dark theme: used when even the default theme file is unusable."""


class ThemeFile(BaseModel):
    """The fields a theme file may set; anything else is a mistake worth reporting."""

    model_config = ConfigDict(extra="forbid")

    name: str
    primary: str
    secondary: str | None = None
    accent: str | None = None
    foreground: str | None = None
    background: str | None = None
    surface: str | None = None
    panel: str | None = None
    boost: str | None = None
    success: str | None = None
    warning: str | None = None
    error: str | None = None
    dark: bool = True
    luminosity_spread: float = 0.15
    text_alpha: float = 0.95
    variables: dict[str, str] = {}

    @field_validator(
        "primary",
        "secondary",
        "accent",
        "foreground",
        "background",
        "surface",
        "panel",
        "boost",
        "success",
        "warning",
        "error",
    )
    @classmethod
    def _is_colour(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                Color.parse(value)
            except ColorParseError as exc:
                raise ValueError(f"not a colour: {value!r}") from exc
        return value


class ThemeError(ValueError):
    """A theme file that cannot be used; the message names the file and the problem."""


@dataclass
class ThemeCatalog:
    """Every theme that loaded, and a one-line note for every file that did not."""

    themes: dict[str, Theme] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    broken_names: set[str] = field(default_factory=set)
    """Theme names (from file names) whose file failed: a saved choice may point at one."""


def load_theme(path: Path) -> Theme:
    """The theme in ``path``; ``ThemeError`` if the file is unreadable or invalid."""
    try:
        data: dict[str, Any] = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ThemeError(f"theme {path.name}: {exc}") from None
    try:
        fields = ThemeFile.model_validate(data)
    except ValidationError as exc:
        raise ThemeError(f"theme {path.name}: {first_problem(exc, 'file')}") from None
    return Theme(**fields.model_dump())


def load_catalog(*directories: Path) -> ThemeCatalog:
    """Load ``*.toml`` from each directory in turn; later directories override earlier ones."""
    catalog = ThemeCatalog()
    for directory in directories:
        for path in sorted(directory.glob("*.toml")) if directory.is_dir() else []:
            try:
                theme = load_theme(path)
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
