"""Evidence quotes and the answer's claims as the command line prints them, each quote with
its document and page."""

from __future__ import annotations

from typing import Any

from ralph_tui.evidence import VERDICT_LABELS, Claim, QuoteLocation
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


def claim_lines(claims: list[Claim], quotes: list[Any], locations: list[QuoteLocation]) -> str:
    """Each answer line with the judge's verdict on it (what its quotes do not show, when
    it said), then each quote it names, by number, with where it stands when known. Without
    ``quotes`` (a task's output cites its brief's passages) the quotes are the located
    texts."""
    located = {location.number: location for location in locations}
    texts = dict(enumerate(quotes, 1)) or {n: location.text for n, location in located.items()}
    lines = []
    for claim in claims:
        verdict = VERDICT_LABELS[claim.verdict] if claim.verdict else "not judged"
        lines.append(f"  {claim.line}. [{verdict}] {claim.text}")
        if claim.missing:
            lines.append(f"       missing: {claim.missing}")
        for number in claim.quotes:
            if number not in texts:
                lines.append(f"       quote {number}: (no such quote)")
                continue
            location = located.get(number)
            where = f"  [{location.label}]" if location else ""
            lines.append(f"       quote {number}: {' '.join(str(texts[number]).split())}{where}")
    return "\n".join(lines)
