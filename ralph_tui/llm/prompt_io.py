"""How agent inputs are written into the user message, and read back by the offline model."""

from __future__ import annotations

import json
from typing import Any


def render_input(fields: dict[str, Any]) -> str:
    """An agent's input as the JSON block every model (the offline one included) reads."""
    return "Input:\n```json\n" + json.dumps(fields, indent=2, ensure_ascii=False) + "\n```"


def parse_input(text: str) -> dict[str, Any]:
    """Read back the fields written by ``render_input`` (empty dict when there are none)."""
    start = text.find("```json\n")
    end = text.find("\n```", start + 8)
    if start < 0 or end < 0:
        return {}
    try:
        value = json.loads(text[start + 8 : end])
    except json.JSONDecodeError:
        return {}
    return value if isinstance(value, dict) else {}
