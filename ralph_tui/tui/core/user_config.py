"""The TUI's own small state in the user config dir: chosen theme, key remapping, themes.

The dir is ``platformdirs.user_config_dir("ralph-tui")``, or ``$RALPH_CONFIG_DIR``
when set (tests point it at a temp dir). ``tui.json`` holds the preferences::

    {"theme": "ralph-light", "keymap": {"run.start": "ctrl+r"}}

A missing or unreadable file means defaults; the reason is reported, never raised.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

PREFERENCES_FILE = "tui.json"
MAX_PREFERENCES_BYTES = 1_000_000
"""The largest preferences file read (it holds a theme and a keymap)."""
THEMES_DIR = "themes"
CONFIG_DIR_ENV = "RALPH_CONFIG_DIR"


def config_dir() -> Path:
    """Where the TUI keeps its preferences and the user's own themes."""
    override = os.environ.get(CONFIG_DIR_ENV)
    if override:
        return Path(override).expanduser()
    import platformdirs

    return Path(platformdirs.user_config_dir("ralph-tui"))


@dataclass
class Preferences:
    """What the TUI remembers between sessions."""

    theme: str | None = None
    keymap: dict[str, str] = field(default_factory=dict)
    problem: str | None = None
    """Why the file could not be used, if it could not."""


def load_preferences(directory: Path) -> Preferences:
    """The saved preferences, or defaults (with ``problem`` set) if the file is unusable."""
    path = directory / PREFERENCES_FILE
    if not path.exists():  # nothing saved yet: the JSON reader need not even load
        return Preferences()
    from ralph_tui.json_input import read_json

    try:
        data = read_json(path, max_bytes=MAX_PREFERENCES_BYTES)
    except FileNotFoundError:
        return Preferences()
    except (OSError, ValueError) as exc:
        return Preferences(problem=f"{path} is unreadable ({exc}); using defaults")
    if not isinstance(data, dict):
        return Preferences(problem=f"{path} does not hold a JSON object; using defaults")
    theme = data.get("theme")
    keymap = data.get("keymap")
    return Preferences(
        theme=theme if isinstance(theme, str) else None,
        keymap={str(k): str(v) for k, v in keymap.items()} if isinstance(keymap, dict) else {},
    )


def save_theme(directory: Path, theme: str) -> None:
    """Remember ``theme``, keeping the file's other settings."""
    import json

    from ralph_tui.json_input import read_json

    path = directory / PREFERENCES_FILE
    try:
        data = read_json(path, max_bytes=MAX_PREFERENCES_BYTES)
    except (OSError, ValueError):
        data = {}
    if not isinstance(data, dict):
        data = {}
    data["theme"] = theme
    directory.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(f".{path.name}.tmp")
    temp.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    temp.replace(path)
