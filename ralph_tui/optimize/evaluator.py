"""The evaluator: per configuration variant, from the session index and the traces, its
pass rate, mean and p90 latency, issue density (judge issues per iteration), retries, and
cost — each session counted under the variant it recorded (``baseline`` if none)."""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field

from ralph_tui.traces.models import SessionRecord
from ralph_tui.traces.store import TraceStore
from ralph_tui.variants.store import BASELINE

FINISHED = ("passed", "failed", "timed_out", "capped")
"""Sessions that ran to an end of their own: the others say nothing of a configuration."""
MIN_SESSIONS = 3
"""Below this many sessions a variant's figures are provisional."""


@dataclass
class SessionFigures:
    variant: str
    passed: bool
    latency_s: float
    iterations: int
    judge_issues: int
    cost_usd: float | None


@dataclass
class VariantFigures:
    """What the sessions run under one variant measured."""

    variant: str
    sessions: int
    pass_rate: float
    mean_latency_s: float
    p90_latency_s: float
    issue_density: float
    """Judge issues per iteration."""
    retries: float
    """Iterations beyond the first, per session."""
    cost_per_session: float | None
    cost_per_pass: float | None
    sessions_list: list[str] = field(default_factory=list)

    @property
    def provisional(self) -> bool:
        return self.sessions < MIN_SESSIONS


def session_figures(store: TraceStore, record: SessionRecord) -> SessionFigures:
    traces = store.iterations(record.session_id)
    issues = sum(len(t.judge.issues) for t in traces if t.judge is not None)
    latency = (record.duration_ms or 0.0) / 1000 or (
        (record.finished_at or record.updated_at) - record.created_at
    )
    return SessionFigures(
        variant=str(record.settings.get("variant") or BASELINE),
        passed=record.status == "passed",
        latency_s=max(latency, 0.0),
        iterations=max(record.iterations, len(traces)),
        judge_issues=issues,
        cost_usd=record.cost_usd,
    )


def _p90(values: list[float]) -> float:
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=10, method="inclusive")[-1]


def figures_of(variant: str, sessions: list[SessionFigures], ids: list[str]) -> VariantFigures:
    latencies = [s.latency_s for s in sessions]
    iterations = sum(s.iterations for s in sessions)
    passes = sum(s.passed for s in sessions)
    costs = [s.cost_usd for s in sessions]
    total = None if None in costs else sum(c or 0.0 for c in costs)
    return VariantFigures(
        variant=variant,
        sessions=len(sessions),
        pass_rate=passes / len(sessions),
        mean_latency_s=statistics.fmean(latencies),
        p90_latency_s=_p90(latencies),
        issue_density=sum(s.judge_issues for s in sessions) / max(iterations, 1),
        retries=statistics.fmean(max(s.iterations - 1, 0) for s in sessions),
        cost_per_session=None if total is None else total / len(sessions),
        cost_per_pass=None if total is None or not passes else total / passes,
        sessions_list=ids,
    )


def evaluate(store: TraceStore, only: set[str] | None = None) -> dict[str, VariantFigures]:
    """The figures of every variant that has finished sessions (sub-tasks are counted in
    their parent session); with ``only``, of those sessions alone (say, the evals of one
    suite under each variant, so the variants are compared on the same work)."""
    grouped: dict[str, tuple[list[SessionFigures], list[str]]] = {}
    for record in store.index.list_sessions(status=FINISHED, limit=None):
        if only is not None and record.session_id not in only:
            continue
        figures = session_figures(store, record)
        bucket = grouped.setdefault(figures.variant, ([], []))
        bucket[0].append(figures)
        bucket[1].append(record.session_id)
    return {name: figures_of(name, runs, ids) for name, (runs, ids) in grouped.items()}
