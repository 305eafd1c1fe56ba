"""One outer-loop iteration's record: what went in, what came out, how it was judged."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from ralph_tui.events import IterationFinished, JudgeIssue, RuleResult, RunStatus
from ralph_tui.evidence import Claim, QuoteLocation
from ralph_tui.loops.context import LoopResult, RunContext
from ralph_tui.traces.models import IterationTrace


@dataclass
class IterationRecord:
    iteration: int
    query: str
    constraints: list[str]
    output: dict[str, Any] | None = None
    fallback: bool = False
    isolation: str | None = None
    hard: list[RuleResult] = field(default_factory=list)
    judge_ok: bool | None = None
    judge_issues: list[JudgeIssue] = field(default_factory=list)
    claims: list[Claim] = field(default_factory=list)
    """QA: the answer's lines with their quotes (and verdicts, once judged). Task: the
    output's lines with the passages they cite."""
    passed: bool = False
    failure_tag: str | None = None
    error: str | None = None
    feedback: list[str] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)
    quotes: list[QuoteLocation] = field(default_factory=list)
    """QA: where each evidence quote of ``output`` stands in its source. Task: where each
    passage of the brief stands."""
    started_at: float = field(default_factory=time.time)
    finished_at: float | None = None

    def failed_phase(self, tag: str, exc: BaseException, advice: str | None) -> IterationRecord:
        """Mark the iteration failed in one phase; the loop goes on with ``advice`` added."""
        self.failure_tag = tag
        self.error = f"{type(exc).__name__}: {exc}"
        if advice:
            self.feedback = [*self.feedback, advice]
        return self

    def judged_pass(self, rules: list[RuleResult]) -> bool:
        """Whether the iteration passes: every rule and the judge say so, no phase failed,
        and the candidate is not a salvage (a salvage is never verified output)."""
        return (
            all(rule.ok for rule in rules)
            and self.judge_ok is True
            and self.failure_tag is None
            and not self.fallback
        )

    def problems(self) -> int:
        """How far the candidate is from passing: failed rules plus judge issues."""
        return sum(not rule.ok for rule in self.hard) + len(self.judge_issues)

    def to_trace(self) -> IterationTrace:
        return IterationTrace(
            iteration=self.iteration,
            query=self.query,
            constraints=self.constraints,
            output=self.output or {},
            hard_validation={
                "ok": all(r.ok for r in self.hard) and bool(self.hard),
                "rules": [r.model_dump() for r in self.hard],
            },
            judge=None
            if self.judge_ok is None
            else {"ok": self.judge_ok, "issues": [i.model_dump() for i in self.judge_issues]},
            passed=self.passed,
            fallback=self.fallback,
            timings=self.timings,
            failure_tag=self.failure_tag,
            feedback=self.feedback,
            started_at=self.started_at,
            finished_at=self.finished_at,
            error=self.error,
            isolation=self.isolation,
            quotes=self.quotes,
            claims=self.claims,
            **self.extra,
        )


class Candidate(Protocol):
    """An iteration as ``best_of`` compares it: a live record or a stored trace."""

    @property
    def passed(self) -> bool: ...

    @property
    def output(self) -> dict[str, Any] | None: ...

    @property
    def fallback(self) -> bool: ...

    def problems(self) -> int: ...


C = TypeVar("C", bound=Candidate)


def ended_with_best(
    status: RunStatus,
    iterations: int,
    candidates: Sequence[Candidate],
    error: str | None = None,
    otherwise: dict[str, Any] | None = None,
) -> LoopResult:
    """A loop's end carrying its best candidate (``otherwise`` when there is none), flagged
    when that candidate is a salvage."""
    best = best_of(candidates)
    if best is None:
        return LoopResult(status, iterations, otherwise, error)
    return LoopResult(status, iterations, best.output, error, salvaged=best.fallback)


def reported_iteration(traces: Sequence[IterationTrace], output: Any) -> IterationTrace | None:
    """The iteration whose output a run reports (the latest holding it), if any."""
    if not output:
        return None
    return next((trace for trace in reversed(traces) if trace.output == output), None)


def best_of(records: Sequence[C]) -> C | None:
    """The candidate closest to passing (the latest among equals)."""
    candidates = [r for r in records if r.output]
    if not candidates:
        return None
    return min(reversed(candidates), key=lambda r: (not r.passed, r.problems()))


def merge_constraints(*groups: list[str]) -> list[str]:
    """All constraints of ``groups`` in order, without repeats."""
    merged: dict[str, None] = {}
    for group in groups:
        for constraint in group:
            if constraint.strip():
                merged.setdefault(constraint.strip(), None)
    return list(merged)


def finish_iteration(ctx: RunContext, record: IterationRecord) -> IterationRecord:
    """Write the iteration's trace and report its end."""
    record.finished_at = time.time()
    if ctx.settings.variant:
        record.extra["variant"] = ctx.settings.variant
    coverage = ctx.take_coverage(record.iteration)
    if coverage is not None:
        record.extra["coverage"] = coverage
    searches = ctx.retrieval_diagnostics()
    if searches:
        record.extra["retrieval"] = searches
    ctx.traces.write_iteration(record.to_trace())
    ctx.emit(
        IterationFinished(
            iteration=record.iteration,
            passed=record.passed,
            failure_tag=record.failure_tag,
            next_constraints=record.feedback,
        )
    )
    return record
