"""Constraints as editable text (one a line) and back; editing them in ``$EDITOR``."""

from __future__ import annotations

import os
import shlex
import subprocess
import tempfile
from pathlib import Path

EDITOR_HEADER = (
    "# One constraint per line; blank lines and lines starting with # are ignored.\n"
    "# Save and quit to use them; the re-run starts when you confirm in the app.\n"
)


def to_text(constraints: list[str]) -> str:
    return "\n".join(constraints)


def from_text(text: str) -> list[str]:
    """The constraints in ``text``: one per non-blank line, ``#`` comment lines dropped."""
    lines = (line.strip() for line in text.splitlines())
    return [line for line in lines if line and not line.startswith("#")]


def editor_command() -> list[str]:
    """``$VISUAL`` or ``$EDITOR`` (with its arguments), else ``vi``."""
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    return shlex.split(editor)


def edit_in_editor(text: str, command: list[str] | None = None) -> str | None:
    """Let the user edit ``text`` in an editor; the new text, or ``None`` if it failed.

    The caller suspends the app around this call (the editor needs the terminal).
    """
    with tempfile.TemporaryDirectory(prefix="ralph-constraints-") as folder:
        path = Path(folder) / "constraints.txt"
        path.write_text(EDITOR_HEADER + text + "\n", encoding="utf-8")
        try:
            result = subprocess.run([*(command or editor_command()), str(path)], check=False)
        except OSError:
            return None
        if result.returncode != 0:
            return None
        return path.read_text(encoding="utf-8")
