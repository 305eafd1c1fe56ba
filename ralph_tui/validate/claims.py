"""Answer lines as claims: the quotes a candidate links to each line, the hard check that
every line names a quote, and the judge's verdicts turned into its ok and its issues.

A QA candidate gives, beside its answer and its evidence quotes, ``lineQuotes``: for each
answer line, in order, the 1-based numbers of the quotes that back it. The answer's lines
are its non-empty lines, counted from 1 (blank lines are not counted).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ralph_tui.events import RuleResult
from ralph_tui.evidence import VERDICT_LABELS, Claim, Verdict

BULLET_PREFIX = "- "
RULE = "line_quotes"
LINE_QUOTES = "lineQuotes"
"""The QA output's field that links answer lines to quotes."""


def answer_lines(answer: str) -> list[str]:
    """The answer's non-empty lines, in order, without trailing white space."""
    return [line.rstrip() for line in answer.splitlines() if line.strip()]


def claim_text(line: str) -> str:
    """A line's claim: the line without its bullet mark."""
    return line.removeprefix(BULLET_PREFIX).strip()


def line_quotes_of(output: dict[str, Any] | None) -> list[list[int]] | None:
    """The candidate's ``lineQuotes`` as lists of numbers (``None`` when it gave none, as
    outputs written before lines named their quotes)."""
    links = (output or {}).get(LINE_QUOTES)
    if not isinstance(links, list):
        return None
    return [
        [number for number in entry if isinstance(number, int)] if isinstance(entry, list) else []
        for entry in links
    ]


def link_claims(answer: str, line_quotes: Sequence[Sequence[int]] | None) -> list[Claim]:
    """Each answer line with the quote numbers the candidate gave it (none when it gave
    none), not judged yet."""
    links = list(line_quotes or [])
    return [
        Claim(
            line=number,
            text=claim_text(line),
            quotes=list(links[number - 1]) if number <= len(links) else [],
        )
        for number, line in enumerate(answer_lines(answer), 1)
    ]


def claims_of(output: dict[str, Any] | None) -> list[Claim]:
    """A QA output's claims as the candidate linked them (empty for an output without an
    answer)."""
    answer = (output or {}).get("answer")
    if not isinstance(answer, str):
        return []
    return link_claims(answer, line_quotes_of(output))


def check_line_quotes(
    answer: str, line_quotes: Sequence[Sequence[int]] | None, quote_count: int
) -> RuleResult:
    """Every answer line must name at least one of the evidence quotes (1 to
    ``quote_count``), and ``lineQuotes`` must have one entry per line."""
    lines = answer_lines(answer)
    if line_quotes is None:
        return RuleResult(
            name=RULE,
            ok=False,
            message=f"no lineQuotes given for the {len(lines)} answer lines",
        )
    problems = []
    if len(line_quotes) != len(lines):
        problems.append(f"lineQuotes has {len(line_quotes)} entries for {len(lines)} answer lines")
    for number in range(1, len(lines) + 1):
        named = list(line_quotes[number - 1]) if number <= len(line_quotes) else []
        invalid = [n for n in named if not 1 <= n <= quote_count]
        if invalid:
            problems.append(
                f"line {number} names quote {', '.join(map(str, invalid))}, but the quotes "
                f"are numbered 1 to {quote_count}"
            )
        elif not named:
            problems.append(f"line {number} names no quote")
    if problems:
        return RuleResult(name=RULE, ok=False, message="; ".join(problems))
    return RuleResult(name=RULE, ok=True, message="every answer line names its quotes")


@dataclass(frozen=True)
class LineJudgement:
    """The judge's word on one answer line."""

    line: int
    verdict: Verdict
    missing: str = ""


@dataclass(frozen=True)
class Judgement:
    """The judge's verdict on a whole answer, derived from its verdicts on the lines."""

    claims: list[Claim]
    issues: list[str]
    """One per line not fully supported or not judged, then the answer's own problems."""

    @property
    def ok(self) -> bool:
        """Every line supported and nothing wrong with the answer as a whole."""
        return bool(self.claims) and not self.issues


def judge_claims(
    claims: Sequence[Claim], verdicts: Iterable[LineJudgement], answer_issues: Iterable[str]
) -> Judgement:
    """The claims with the judge's verdicts (its first on each line counts), and the issues
    that follow from them: the one place a QA judge's ok is decided."""
    given: dict[int, LineJudgement] = {}
    for judgement in verdicts:
        given.setdefault(judgement.line, judgement)
    judged = []
    issues = []
    for claim in claims:
        verdict = given.get(claim.line)
        if verdict is None:
            judged.append(claim.model_copy(update={"verdict": None, "missing": ""}))
            issues.append(f"Line {claim.line} got no verdict: {claim.text}")
            continue
        missing = "" if verdict.verdict == "supported" else verdict.missing.strip()
        judged.append(claim.model_copy(update={"verdict": verdict.verdict, "missing": missing}))
        if verdict.verdict != "supported":
            issues.append(line_issue(claim.line, verdict.verdict, missing, claim.text))
    issues += [issue.strip() for issue in answer_issues if issue.strip()]
    return Judgement(claims=judged, issues=issues)


def answer_issues(claims: Sequence[Claim], issues: Sequence[str]) -> list[str]:
    """The issues ``judge_claims`` put after the lines' own: those of the answer as a whole
    (all of them for a verdict without claims, as traces written before claims)."""
    if not claims:
        return list(issues)
    return list(issues[sum(claim.verdict != "supported" for claim in claims) :])


def line_issue(line: int, verdict: Verdict, missing: str, text: str) -> str:
    """What the judge found wrong with one line, as an issue the next attempt can act on."""
    lacking = f" (the quotes do not show: {missing})" if missing else ""
    return f"Line {line} is {VERDICT_LABELS[verdict]}{lacking}: {text}"
