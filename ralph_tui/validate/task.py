"""Deterministic checks of a task-mode candidate (``output`` and ``memoryUpdate``).

Rules, by stable name:

- ``output_length``: the output is at least ``MIN_OUTPUT_CHARS`` (80) characters once
  stripped — about one substantive sentence; anything shorter cannot complete a task.
- ``memory_update_length``: the memory update is at least ``MIN_MEMORY_UPDATE_CHARS`` (20)
  characters — one short finding; an empty update leaves the next iteration nothing.
- ``no_duplicate_paragraphs``: no paragraph (or list item) of at least
  ``MIN_DUPLICATE_WORDS`` words repeats another, ignoring case, whitespace and list markers.
- ``no_contradictions``: no clause negates what another affirms (see ``contradictions``).
- ``evidence_linkage``: at least ``MIN_LINKAGE_SHARE`` (10%) of the output's content-word
  bigrams also occur in the brief. A grounded output reuses the brief's terms and phrases;
  one that shares almost none was written without it. Checked only when the brief has at
  least ``MIN_LINKAGE_BRIEF_CHARS`` characters and the output at least
  ``MIN_LINKAGE_BIGRAMS`` distinct bigrams; otherwise the rule passes as not applicable.
- ``subtask_coverage`` (only when sub-tasks are given): each sub-task has at least half of
  its key terms (``ralph_tui.words`` terms, generic task verbs left out) in the output.
- ``brief_passages`` (only when the brief gave passages): every passage the brief cites
  stands in the document, and every ``[Pn]`` the output cites names one
  (``ralph_tui.validate.passages``).
"""

from __future__ import annotations

import itertools
import math
import re
from collections import Counter
from collections.abc import Sequence

from ralph_tui.events import RuleResult
from ralph_tui.evidence import QuoteLocation
from ralph_tui.validate.contradictions import find_contradictions
from ralph_tui.validate.passages import check_passages
from ralph_tui.validate.qa import preview
from ralph_tui.words import (
    CLAUSE_ENDS,
    clause_term_pairs,
    is_content,
    query_words,
    sentences,
    stem,
    term_set,
    words_of,
)

MIN_OUTPUT_CHARS = 80
MIN_MEMORY_UPDATE_CHARS = 20
MIN_DUPLICATE_WORDS = 6
MIN_LINKAGE_SHARE = 0.10
MIN_LINKAGE_BRIEF_CHARS = 200
MIN_LINKAGE_BIGRAMS = 8
MIN_SUBTASK_TERM_SHARE = 0.5
_SUGGESTED_PHRASES = 5
_PARAGRAPH_BREAK = re.compile(r"\n\s*\n")
_LIST_MARKER = re.compile(r"^\s*(?:[-*•+]|\d+[.)])\s+")


def hard_validate_task(
    output: str,
    memory_update: str,
    brief: str,
    *,
    subtasks: Sequence[str] | None = None,
    passages: Sequence[QuoteLocation] = (),
) -> list[RuleResult]:
    """All task rules, in a fixed order; ``subtask_coverage`` only when sub-tasks are given,
    ``brief_passages`` only when the brief gave passages (``passages``: where each stands)."""
    results = [
        check_min_length("output_length", "output", output, MIN_OUTPUT_CHARS),
        check_min_length(
            "memory_update_length", "memoryUpdate", memory_update, MIN_MEMORY_UPDATE_CHARS
        ),
        check_no_duplicate_paragraphs(output),
        check_no_contradictions(output),
        check_evidence_linkage(output, brief),
    ]
    if subtasks is not None:
        results.append(check_subtask_coverage(output, subtasks))
    if passages:
        results.append(check_passages(output, passages))
    return results


def check_min_length(name: str, field: str, text: str, minimum: int) -> RuleResult:
    """``text`` must be non-empty and at least ``minimum`` characters once stripped."""
    length = len(text.strip())
    if length == 0:
        return RuleResult(name=name, ok=False, message=f"{field} is empty")
    if length < minimum:
        return RuleResult(
            name=name,
            ok=False,
            message=f"{field} is {length} characters; it needs at least {minimum}",
        )
    return RuleResult(name=name, ok=True, message=f"{field} is {length} characters")


def _units(output: str) -> list[str]:
    """Paragraphs of the output; a paragraph that is a list counts item by item."""
    units = []
    for paragraph in _PARAGRAPH_BREAK.split(output):
        lines = [line for line in paragraph.splitlines() if line.strip()]
        if len(lines) > 1 and all(_LIST_MARKER.match(line) for line in lines):
            units.extend(lines)
        elif lines:
            units.append(paragraph)
    return units


def _plain(unit: str) -> str:
    """A paragraph or list item without its list marker, on one line."""
    return " ".join(_LIST_MARKER.sub("", unit).split())


def check_no_duplicate_paragraphs(output: str) -> RuleResult:
    """No paragraph or list item may repeat an earlier one."""
    first_seen: dict[str, int] = {}
    problems = []
    for number, unit in enumerate(_units(output), 1):
        key = _plain(unit).casefold()
        if len(key.split()) < MIN_DUPLICATE_WORDS:
            continue
        if key in first_seen:
            problems.append(
                f"paragraph {number} repeats paragraph {first_seen[key]}: {preview(_plain(unit))}"
            )
        else:
            first_seen[key] = number
    if problems:
        return RuleResult(name="no_duplicate_paragraphs", ok=False, message="; ".join(problems))
    return RuleResult(name="no_duplicate_paragraphs", ok=True, message="no repeated paragraphs")


def check_no_contradictions(output: str) -> RuleResult:
    """No clause of the output may negate what another clause affirms."""
    pairs = find_contradictions(output)
    if not pairs:
        return RuleResult(name="no_contradictions", ok=True, message="no contradictions found")
    message = "; ".join(
        f"{preview(denied)} contradicts {preview(affirmed)}" for denied, affirmed in pairs
    )
    return RuleResult(name="no_contradictions", ok=False, message=message)


def _frequent_brief_phrases(brief: str, exclude: set[tuple[str, str]]) -> list[str]:
    """The brief's most frequent content-word pairs that the output lacks, as brief text."""
    counts: Counter[tuple[str, str]] = Counter()
    wording: dict[tuple[str, str], str] = {}
    for sentence in sentences(brief, also=CLAUSE_ENDS):
        content = [word for word in words_of(sentence) if is_content(word)]
        for first, second in itertools.pairwise(content):
            pair = (stem(first), stem(second))
            counts[pair] += 1
            wording.setdefault(pair, f"{first.lower()} {second.lower()}")
    frequent = [wording[pair] for pair, _ in counts.most_common() if pair not in exclude]
    return frequent[:_SUGGESTED_PHRASES]


def check_evidence_linkage(output: str, brief: str) -> RuleResult:
    """Enough of the output's content-word bigrams must come from the brief."""
    output_pairs = clause_term_pairs(output)
    if len(brief.strip()) < MIN_LINKAGE_BRIEF_CHARS or len(output_pairs) < MIN_LINKAGE_BIGRAMS:
        return RuleResult(
            name="evidence_linkage", ok=True, message="not checked: brief or output too short"
        )
    shared = output_pairs & clause_term_pairs(brief)
    share = len(shared) / len(output_pairs)
    summary = (
        f"{share:.0%} of the output's content-word pairs ({len(shared)} of "
        f"{len(output_pairs)}) appear in the brief"
    )
    if share >= MIN_LINKAGE_SHARE:
        return RuleResult(name="evidence_linkage", ok=True, message=summary)
    suggestions = _frequent_brief_phrases(brief, output_pairs)
    hint = f"; the brief's terms include: {', '.join(suggestions)}" if suggestions else ""
    return RuleResult(
        name="evidence_linkage",
        ok=False,
        message=f"only {summary} (need {MIN_LINKAGE_SHARE:.0%}){hint}",
    )


def subtask_key_terms(subtask: str) -> dict[str, str]:
    """The terms a sub-task asks about, each with its word (``ralph_tui.words.query_words``:
    generic task verbs left out), of three characters or more."""
    return {term: word for term, word in query_words(subtask).items() if len(term) >= 3}


def check_subtask_coverage(output: str, subtasks: Sequence[str]) -> RuleResult:
    """Each sub-task must have at least half of its key terms in the output."""
    present = term_set(output)
    problems = []
    for number, subtask in enumerate(subtasks, 1):
        terms = subtask_key_terms(subtask)
        if not terms:
            continue
        missing = [word for term, word in terms.items() if term not in present]
        needed = max(1, math.ceil(len(terms) * MIN_SUBTASK_TERM_SHARE))
        if len(terms) - len(missing) < needed:
            problems.append(
                f"sub-task {number} {preview(subtask)} is not covered (missing key terms: "
                f"{', '.join(missing)})"
            )
    if problems:
        return RuleResult(name="subtask_coverage", ok=False, message="; ".join(problems))
    return RuleResult(
        name="subtask_coverage", ok=True, message=f"all {len(subtasks)} sub-tasks covered"
    )
