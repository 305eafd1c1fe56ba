"""Evidence quotes as the command line prints them, each with its document and page."""

from __future__ import annotations

from typing import Any


def evidence_lines(quotes: list[Any], sources: list[dict[str, Any] | None]) -> str:
    """Each quote on one line (a quote from a PDF may span its lines), with where it came
    from (``[manual.pdf p. 12]``) when that is known."""
    lines = []
    for index, quote in enumerate(quotes):
        source = sources[index] if index < len(sources) else None
        where = f"  [{source['label']}]" if source else ""
        lines.append(f"  - {' '.join(str(quote).split())}{where}")
    return "\n".join(lines)
