"""Turning validation failures into constraints for the next attempt.

Hard-rule failures and judge issues become short imperative constraints that the loop puts
into the next generation request; in task mode the judge's issues also become extraction
targets ("hints") for the next DocReader pass. Every list is deduplicated in order.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from ralph_tui.events import JudgeIssue, RuleResult

Mode = Literal["qa", "task"]

RULE_DIRECTIVES: dict[str, str] = {
    "bullet_format": 'Write the answer only as lines that start with "- "',
    "bullet_count": 'Give 3 to 7 answer lines, each starting with "- "',
    "evidence_count": "Give 3 to 8 evidence quotes",
    "quote_length": "Keep every evidence quote at most 160 characters; quote a shorter exact span",
    "no_duplicate_quotes": "Make every evidence quote different",
    "quotes_verbatim": "Copy every evidence quote character for character from the document",
    "line_quotes": "Name the quotes behind every answer line: in lineQuotes give, for each line in"
    " order, the numbers (from 1) of the evidence quotes that back it, and add a quote for a"
    " line no quote backs",
    "output_length": "Write a complete, substantive output",
    "memory_update_length": "Record the findings of this iteration in memoryUpdate",
    "no_duplicate_paragraphs": "Do not repeat paragraphs; say each thing once",
    "no_contradictions": "Remove the contradiction; keep the one statement the brief supports",
    "evidence_linkage": "Ground the output in the brief: reuse its specific terms and facts",
    "subtask_coverage": "Address every sub-task explicitly",
    "brief_passages": "Copy every passage of the brief character for character from the document,"
    " and cite only the passages the brief gives",
}

TASK_ISSUE_DIRECTIVES: dict[str, str] = {
    "missing_scope": "Cover the part of the task the last output left out",
    "unsupported_claim": "Drop or substantiate the claim the brief does not support",
    "low_specificity": "Be specific: give the names, numbers and details the brief provides",
    "conflict": "Resolve the conflict so the output agrees with itself and with the brief",
}

DOC_READER_TARGETS: dict[str, str] = {
    "missing_scope": "Extract what the document says about this part of the task",
    "unsupported_claim": "Find the passages that confirm or refute this claim, verbatim",
    "low_specificity": "Extract concrete details (names, numbers, dates, steps) for",
    "conflict": "Find the passages that settle this conflict",
}

_QA_ISSUE_DIRECTIVE = "Support every bullet with the evidence quotes and answer the question"
_GENERIC_ISSUE_DIRECTIVE = "Address the judge's finding"
_GENERIC_TARGET = "Look in the document for what settles this"


def dedupe(items: Iterable[str]) -> list[str]:
    """Items without repeats (ignoring case and whitespace), first occurrence kept."""
    seen: set[str] = set()
    unique = []
    for item in items:
        key = " ".join(item.split()).casefold()
        if key and key not in seen:
            seen.add(key)
            unique.append(item)
    return unique


def _join(directive: str, detail: str) -> str:
    detail = detail.strip()
    return f"{directive}: {detail}" if detail else f"{directive}."


def constraints_from_rules(results: Iterable[RuleResult]) -> list[str]:
    """One constraint per failed rule: what to do, then the rule's exact finding."""
    return dedupe(
        _join(RULE_DIRECTIVES.get(result.name, f"Fix {result.name}"), result.message)
        for result in results
        if not result.ok
    )


def constraints_from_judge(issues: Iterable[JudgeIssue], mode: Mode) -> list[str]:
    """One constraint per judge issue; in task mode the category picks the directive."""
    constraints = []
    for issue in issues:
        if mode == "qa":
            directive = _QA_ISSUE_DIRECTIVE
        else:
            directive = TASK_ISSUE_DIRECTIVES.get(issue.category or "", _GENERIC_ISSUE_DIRECTIVE)
        constraints.append(_join(directive, issue.message))
    return dedupe(constraints)


def doc_reader_hints(issues: Iterable[JudgeIssue]) -> list[str]:
    """Extraction targets for the next DocReader pass, one per judge issue."""
    return dedupe(
        _join(DOC_READER_TARGETS.get(issue.category or "", _GENERIC_TARGET), issue.message)
        for issue in issues
    )
