"""What a user's theme file may hold, checked: the fields of ``textual.theme.Theme`` a file
sets, each colour one Textual can parse. Imported only when a user's theme file is read
(pydantic stays out of the app's start otherwise)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, field_validator
from textual.color import Color, ColorParseError


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
