"""Line diffs between two iterations' outputs and constraints (``difflib``)."""

from __future__ import annotations

import difflib
from typing import Any


def output_lines(output: dict[str, Any] | None) -> list[str]:
    """A candidate as lines: each field under a ``## name`` heading, lists one item a line."""
    lines: list[str] = []
    for name, value in (output or {}).items():
        lines.append(f"## {name}")
        if isinstance(value, list):
            lines.extend(f"- {item}" for item in value)
        else:
            lines.extend(str(value).splitlines() or [""])
    return lines


def constraint_lines(constraints: list[str]) -> list[str]:
    return [f"- {constraint}" for constraint in constraints]


def unified(before: list[str], after: list[str], before_name: str, after_name: str) -> list[str]:
    """A unified diff with a little context; empty when nothing changed."""
    return list(
        difflib.unified_diff(
            before, after, fromfile=before_name, tofile=after_name, lineterm="", n=2
        )
    )
