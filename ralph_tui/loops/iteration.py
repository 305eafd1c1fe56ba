"""One outer-loop iteration's record: what went in, what came out, how it was judged."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from ralph_tui.agents.rlm import SandboxFailedError
from ralph_tui.agents.structured import MaxStepsError
from ralph_tui.events import IterationFinished, JudgeIssue, RuleResult
from ralph_tui.loops.context import RunContext
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
    passed: bool = False
    failure_tag: str | None = None
    error: str | None = None
    feedback: list[str] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)
    started_at: float = field(default_factory=time.time)
    finished_at: float | None = None

    def failed_phase(self, tag: str, exc: BaseException, advice: str) -> IterationRecord:
        """Mark the iteration failed in one phase; the loop goes on with ``advice`` added."""
        self.failure_tag = tag
        self.error = f"{type(exc).__name__}: {exc}"
        self.feedback = [*self.feedback, advice]
        return self

    def worker_failed(self, exc: MaxStepsError | SandboxFailedError, tag: str) -> IterationRecord:
        if isinstance(exc, MaxStepsError):
            advice = (
                f"The previous attempt used all {exc.max_steps} steps without submitting. "
                "Explore less, and set resultReady with the output fields sooner."
            )
        else:
            advice = "The sandbox failed repeatedly: keep cells small, fast and memory-light."
        return self.failed_phase(tag, exc, advice)

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
            **self.extra,
        )


def best_of(records: list[IterationRecord]) -> IterationRecord | None:
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
