"""Validation per iteration: every hard check with its message, then the judge's verdict:
on each answer line (QA) and on the whole."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static

from ralph_tui.counts import counted
from ralph_tui.tui.claims import verdict_line
from ralph_tui.tui.core.run_progress import IterationChecks

if TYPE_CHECKING:
    from ralph_tui.events import JudgeIssue, RuleResult
    from ralph_tui.evidence import Claim

PASS = ("✓ ", "bold $text-success")
FAIL = ("✗ ", "bold $text-error")


def rule_line(rule: RuleResult) -> Content:
    return Content.assemble(PASS if rule.ok else FAIL, (rule.name, "bold"), f"  {rule.message}")


def issue_line(issue: JudgeIssue) -> Content:
    category = (f"[{issue.category}] ", "$text-warning") if issue.category else ""
    return Content.assemble("    • ", category, issue.message)


def iteration_heading(checks: IterationChecks) -> Content:
    if checks.passed is None:
        verdict: tuple[str, str] = ("in progress", "$text-muted")
    elif checks.passed:
        verdict = ("passed", "bold $text-success")
    else:
        tag = f" ({checks.failure_tag})" if checks.failure_tag else ""
        verdict = (f"failed{tag}", "bold $text-error")
    salvage = ("  salvage: not verified", "bold $text-warning") if checks.salvaged else ""
    return Content.assemble((f"Iteration {checks.iteration}  ", "bold underline"), verdict, salvage)


def checks_content(checks: IterationChecks) -> Content:
    """One iteration's hard checks and judge verdict, as lines."""
    lines = [iteration_heading(checks)]
    if checks.hard is None:
        lines.append(Content.styled("  hard checks pending", "$text-muted"))
    else:
        lines.extend(Content("  ") + rule_line(rule) for rule in checks.hard.rules)
    if checks.judge is None:
        lines.append(Content.styled("  judge pending", "$text-muted"))
    else:
        lines.extend(judge_lines(checks.judge.ok, checks.judge.issues, checks.judge.claims))
    return Content("\n").join(lines)


def judge_lines(ok: bool, issues: Sequence[JudgeIssue], claims: Sequence[Claim]) -> list[Content]:
    """The judge's verdict: its mark and issue count, its verdict on each answer line
    (``claims``), and the issues those lines' verdicts do not already say."""
    from ralph_tui.validate.claims import answer_issues

    count = counted(len(issues), "issue") if issues else "no issues"
    lines = [Content.assemble("  ", PASS if ok else FAIL, ("judge", "bold"), f"  {count}")]
    lines.extend(verdict_line(claim) for claim in claims)
    remaining = len(answer_issues(claims, [issue.message for issue in issues]))
    lines.extend(issue_line(issue) for issue in issues[len(issues) - remaining :])
    return lines


def validation_content(all_checks: Iterable[IterationChecks]) -> Content:
    """Every iteration's validation, newest first (the one being validated is on top)."""
    ordered = sorted(all_checks, key=lambda c: c.iteration, reverse=True)
    if not ordered:
        return Content.styled("No validation yet.", "$text-muted")
    return Content("\n\n").join(checks_content(checks) for checks in ordered)


class ValidationPane(VerticalScroll):
    """A scrolling view of ``validation_content``."""

    def compose(self) -> Iterable[Static]:
        yield Static(validation_content([]), id="validation-text")

    def show(self, all_checks: Iterable[IterationChecks]) -> None:
        self.query_one("#validation-text", Static).update(validation_content(all_checks))
