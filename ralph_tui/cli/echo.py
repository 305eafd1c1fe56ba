"""How much of a text a command repeats back: a query can be megabytes long (a session
folder from someone else, a question pasted in the app), and a terminal or a script reading
``--json`` should not receive all of it because it was asked for a list of sessions."""

from __future__ import annotations

ECHO_CHARS = 2000
"""The most characters of a query a command echoes; the session's files keep it whole."""


def echoed(text: str, limit: int = ECHO_CHARS) -> str:
    """``text`` whole up to ``limit`` characters, else its start and a note of its length."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text):,} characters in all; the session's files keep it whole)"
