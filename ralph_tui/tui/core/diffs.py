"""Line diffs between two iterations' outputs and constraints (``difflib``)."""

from __future__ import annotations

import difflib
from typing import Any

from ralph_tui.tui.core.formatting import quote_numbers
from ralph_tui.validate.claims import LINE_QUOTES, line_quotes_of


def output_lines(output: dict[str, Any] | None) -> list[str]:
    """A candidate as lines: each field under a ``## name`` heading, lists one item a line
    (the links of answer lines to quotes one line each: ``- line 2: quotes 1, 3``)."""
    lines: list[str] = []
    links = line_quotes_of(output)
    for name, value in (output or {}).items():
        lines.append(f"## {name}")
        if name == LINE_QUOTES and links is not None:
            lines.extend(f"- line {n}: {quote_numbers(q)}" for n, q in enumerate(links, 1))
        elif isinstance(value, list):
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
