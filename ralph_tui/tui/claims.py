"""Claims as the app shows them: each answer line marked with the judge's verdict and the
numbers of the quotes that back it (Output pane, session screen), and the verdicts line by
line under the judge (Validation pane, session screen)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from textual.content import Content

from ralph_tui.tui.core.formatting import quote_numbers

if TYPE_CHECKING:
    from ralph_tui.evidence import Claim, Verdict

VERDICT_MARKS: dict[Verdict | None, tuple[str, str]] = {
    "supported": ("✓ ", "bold $text-success"),
    "partly_supported": ("◐ ", "bold $text-warning"),
    "unsupported": ("✗ ", "bold $text-error"),
    None: ("· ", "$text-muted"),
}
"""The mark before a line: its verdict, or not judged (yet)."""


def answer_content(claims: Sequence[Claim]) -> Content:
    """The answer, one line per claim: its verdict mark, its text, the quotes it names, and
    below it what its quotes do not show."""
    lines = []
    for claim in claims:
        quotes_style = "$text-muted" if claim.quotes else "bold $text-error"
        lines.append(
            Content.assemble(
                VERDICT_MARKS[claim.verdict],
                claim.text,
                (f"  [{quote_numbers(claim.quotes)}]", quotes_style),
            )
        )
        if claim.missing:
            lines.append(Content.assemble("    ", ("missing: ", "$text-warning"), claim.missing))
    return Content("\n").join(lines)


def verdict_line(claim: Claim) -> Content:
    """The judge's verdict on one line, with what its quotes do not show."""
    from ralph_tui.evidence import VERDICT_LABELS

    mark, style = VERDICT_MARKS[claim.verdict]
    label = VERDICT_LABELS[claim.verdict] if claim.verdict else "no verdict"
    missing = f": {claim.missing}" if claim.missing else ""
    return Content.assemble(
        "    ",
        (mark, style),
        (f"line {claim.line} ", "bold"),
        (label, style),
        missing,
        (f"  [{quote_numbers(claim.quotes)}]", "$text-muted"),
    )
