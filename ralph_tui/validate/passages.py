"""Task mode's passages: the verbatim passages of the document a DocReader's brief cites as
``[P1]``, ``[P2]``..., the output's statements that cite them, and the hard check that every
passage stands in the document and every cited marker names one.

A passage is numbered from 1 in the brief's list; its location is found as an evidence
quote's is (``ralph_tui.validate.locate``), so a task output's statements carry the same
locations as a QA answer's lines. The output's statements are its non-empty lines, counted
from 1 as a QA answer's are; a statement's passages are the markers it holds.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ralph_tui.events import RuleResult
from ralph_tui.evidence import PASSAGE_MARKER, Claim, QuoteLocation, passage_marker
from ralph_tui.validate.claims import answer_lines, claim_text
from ralph_tui.validate.qa import preview

RULE = "brief_passages"


def marked_passages(passages: Sequence[str]) -> list[str]:
    """The passages as the reasoner and the judge read them, each after its marker."""
    return [f"{passage_marker(number)} {passage}" for number, passage in enumerate(passages, 1)]


def cited(text: str) -> list[int]:
    """The passage numbers ``text`` cites, in order, each once."""
    return list(dict.fromkeys(int(found) for found in PASSAGE_MARKER.findall(text)))


def without_markers(text: str) -> str:
    """``text`` with its markers taken out (and the space a marker leaves before a mark)."""
    bare = PASSAGE_MARKER.sub("", text)
    return re.sub(r"\s+([.,;:!?])", r"\1", " ".join(bare.split()))


def passage_claims(output: str) -> list[Claim]:
    """Each statement (non-empty line) of the output with the passages it cites, not judged;
    a statement citing none has no passages (the output says it without the document's
    words)."""
    return [
        Claim(line=number, text=without_markers(claim_text(line)), quotes=cited(line))
        for number, line in enumerate(answer_lines(output), 1)
    ]


def check_passages(output: str, locations: Sequence[QuoteLocation]) -> RuleResult:
    """Every passage of the brief stands in the document (is not ``missing``), and every
    marker the output cites names one of them."""
    problems = [
        f"{passage_marker(location.number)} is not in the document: {preview(location.text)}"
        for location in locations
        if location.found == "missing"
    ]
    unknown = [number for number in cited(output) if not 1 <= number <= len(locations)]
    if unknown:
        named = ", ".join(passage_marker(number) for number in unknown)
        problems.append(
            f"the output cites {named}, but the brief's passages are "
            + (f"[P1] to {passage_marker(len(locations))}" if locations else "none")
        )
    if problems:
        return RuleResult(name=RULE, ok=False, message="; ".join(problems))
    return RuleResult(
        name=RULE, ok=True, message=f"all {len(locations)} passages stand in the document"
    )
