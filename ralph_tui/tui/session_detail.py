"""What the session screen shows of one iteration: its trace as text, and its diff."""

from __future__ import annotations

from textual.content import Content

from ralph_tui.evidence import answers_absence
from ralph_tui.traces.models import IterationTrace
from ralph_tui.tui.core.diffs import constraint_lines, output_lines, unified
from ralph_tui.tui.core.evidence import check_quotes, evidence_of
from ralph_tui.tui.core.formatting import millis
from ralph_tui.tui.widgets.coverage_strip import coverage_lines
from ralph_tui.tui.widgets.output_pane import MARKS, candidate_text
from ralph_tui.tui.widgets.validation_pane import FAIL, PASS, judge_lines, rule_line
from ralph_tui.validate.evidence import EvidenceMinimum


def timeline_label(trace: IterationTrace) -> Content:
    """One line of the timeline: pass/fail, number, and why it failed."""
    mark = PASS if trace.passed else FAIL
    tag = trace.failure_tag or ("passed" if trace.passed else "failed")
    salvage = (" salvage", "bold $text-warning") if trace.fallback else ""
    return Content.assemble(mark, (f"{trace.iteration:>2} ", "bold"), tag, salvage)


DETAIL_STRIP_CELLS = 72
"""The coverage strip's width in the iteration's detail (a text, not a sized widget)."""


def _section(title: str) -> Content:
    return Content.styled(title, "bold underline $text-primary")


def _timings(trace: IterationTrace) -> str:
    parts = [f"{name.removesuffix('Ms')} {millis(ms)}" for name, ms in trace.timings.items()]
    return " · ".join(parts)


def iteration_content(
    trace: IterationTrace, document: str | None, minimum: EvidenceMinimum | None = None
) -> Content:
    """Constraints, output (evidence checked), hard checks, judge and feedback of ``trace``."""
    verdict = (
        ("passed", "bold $text-success")
        if trace.passed
        else (f"failed ({trace.failure_tag or '?'})", "bold $text-error")
    )
    lines: list[Content] = [
        Content.assemble(
            (f"Iteration {trace.iteration}  ", "bold"),
            verdict,
            (f"   {_timings(trace)}", "$text-muted"),
        ),
        Content(""),
        _section(f"Constraints ({len(trace.constraints)})"),
    ]
    lines.extend(Content(f"  {n}. {c}") for n, c in enumerate(trace.constraints, 1))
    lines += [
        Content(""),
        _section("Output"),
        candidate_text(trace.output, salvaged=trace.fallback, claims=trace.claims),
    ]
    quotes = evidence_of(trace.output)
    located = check_quotes(quotes, document, minimum, locations=trace.quotes)
    for index, quote in enumerate(located):
        where = (f"  [{quote.source}]", "$text-muted") if quote.source else ""
        number = (f"{index + 1:>2} ", "bold")
        lines.append(Content.assemble("  ", number, MARKS[quote.verified], quote.one_line, where))
    if trace.coverage is not None:
        absent = "answer" in trace.output and answers_absence(trace.output)
        read = coverage_lines(trace.coverage, DETAIL_STRIP_CELLS, absent=absent)
        lines += [Content(""), _section("Read"), *(Content("  ") + line for line in read)]
    lines += [Content(""), _section("Hard checks")]
    lines.extend(Content("  ") + rule_line(rule) for rule in trace.hard_validation.rules)
    lines += [Content(""), _section("Judge")]
    if trace.judge is None:
        lines.append(Content.styled("  not run", "$text-muted"))
    else:
        lines.extend(judge_lines(trace.judge.ok, trace.judge.issues, trace.claims))
    if trace.feedback:
        lines += [Content(""), _section("Feedback (constraints for the next iteration)")]
        lines.extend(Content(f"  - {item}") for item in trace.feedback)
    return Content("\n").join(lines)


DIFF_STYLES = {"+": "$text-success", "-": "$text-error", "@": "$text-accent"}


def _diff_block(title: str, lines: list[str]) -> list[Content]:
    block = [_section(title)]
    if not lines:
        return [*block, Content.styled("  (no change)", "$text-muted")]
    for line in lines:
        style = "bold" if line.startswith(("+++", "---")) else DIFF_STYLES.get(line[:1], "")
        block.append(Content.styled(line, style))
    return block


def diff_content(previous: IterationTrace | None, trace: IterationTrace) -> Content:
    """How ``trace`` differs from the iteration before it: constraints, then output."""
    if previous is None:
        return Content.styled(
            "The first iteration has nothing before it to compare with.", "$text-muted"
        )
    names = (f"iteration {previous.iteration}", f"iteration {trace.iteration}")
    constraints = unified(
        constraint_lines(previous.constraints), constraint_lines(trace.constraints), *names
    )
    output = unified(output_lines(previous.output), output_lines(trace.output), *names)
    lines = [*_diff_block("Constraints", constraints), Content(""), *_diff_block("Output", output)]
    return Content("\n").join(lines)
