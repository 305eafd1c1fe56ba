"""Evidence quotes as the command line prints them, each with where it stands in its source."""

from __future__ import annotations

from typing import Any

from ralph_tui.evidence import QuoteLocation
from ralph_tui.validate.locate import describe_location


def evidence_lines(quotes: list[Any], locations: list[QuoteLocation]) -> str:
    """Each quote on one line (a quote from a PDF may span its lines), with where it
    stands (``[manual.pdf p. 12, chars 5810-5874]``) when that is known."""
    located = {location.number: location for location in locations}
    lines = []
    for number, quote in enumerate(quotes, 1):
        location = located.get(number)
        where = f"  [{describe_location(location)}]" if location else ""
        lines.append(f"  - {' '.join(str(quote).split())}{where}")
    return "\n".join(lines)
