"""How much of a text a command repeats back, and how: a query can be megabytes long and
hold terminal control sequences (a session folder from someone else, a question pasted in
the app), and a terminal or a script reading ``--json`` should receive neither because it
asked for a list of sessions."""

from __future__ import annotations

import re

ECHO_CHARS = 2000
"""The most characters of a query a command echoes; the session's files keep it whole."""
CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
"""Control characters but the tab and the line feed: an escape sequence among them would
steer the terminal (move the cursor, set the title, write the clipboard)."""


def echoed(text: str, limit: int = ECHO_CHARS) -> str:
    """``text`` whole up to ``limit`` characters, else its start and a note of its length;
    its control characters shown as ``\\x1b``-style escapes."""
    shown = text if len(text) <= limit else text[:limit]
    shown = CONTROLS.sub(lambda match: f"\\x{ord(match.group(0)):02x}", shown)
    if len(text) <= limit:
        return shown
    return f"{shown}… ({len(text):,} characters in all; the session's files keep it whole)"
