"""What a run looks like so far, folded from its events: the model behind the run panes.

``RunProgress.apply`` takes one event and says which parts of the picture changed,
so a batch of events costs one repaint per changed pane, not one per event. It is
plain Python (no widgets) so live runs and replayed sessions share it, and tests
can check it without an app.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from ralph_tui.events import (
        AgentStep,
        BaseEvent,
        CandidateProduced,
        ChildFinished,
        ChildStarted,
        ContextCompacted,
        ContextSize,
        CoverageUpdated,
        ExternalProgress,
        HardValidation,
        Heartbeat,
        IndexProgress,
        IterationFinished,
        IterationStarted,
        JudgeVerdict,
        MemoryUpdated,
        ModelTurnPartial,
        PhaseFinished,
        PhaseStarted,
        RetrievalDone,
        RunFinished,
        RunStarted,
        RunStatus,
        SandboxExecuted,
        SubQuery,
        ToolExecuted,
        UsageUpdated,
    )
    from ralph_tui.evidence import Claim, QuoteLocation
    from ralph_tui.tui.core.run_handle import RunState

Part = Literal[
    "status",
    "sandbox",
    "validation",
    "output",
    "memory",
    "constraints",
    "retrieval",
    "external",
    "context",
    "coverage",
    "turn",
    "log",
]


@dataclass
class IterationChecks:
    """One iteration's validation: the hard checks, then the judge (either may be pending)."""

    iteration: int
    hard: HardValidation | None = None
    judge: JudgeVerdict | None = None
    passed: bool | None = None
    failure_tag: str | None = None
    salvaged: bool = False
    output: dict[str, Any] | None = None
    """The iteration's candidate."""
    claims: list[Claim] = field(default_factory=list)
    """QA: its answer lines with their quotes, and verdicts once judged."""


@dataclass
class RunProgress:
    """Counters, phase, validation, candidate and constraints of one run."""

    session_id: str = ""
    mode: str = ""
    query: str = ""
    doc_path: str = ""
    parent_session_id: str | None = None
    generate_model: str = ""
    validate_model: str = ""
    variant: str | None = None
    inner: str | None = None
    """The inner mode the run explores in (``None``: not said, an older session)."""
    inner_auto: bool = False
    """Whether ``auto`` chose it (the why is in the log's first line)."""
    outcome: RunStatus | None = None
    """What the run's events (or its session) say: ``running``, then how it ended; ``None``
    before any run."""
    lifecycle: RunState | None = None
    """A state of the run's life no event reports (starting, cancelling), set by the app
    and cleared by the next outcome; ``run_status.status_badge`` decides what is shown."""
    error: str | None = None
    iteration: int = 0
    max_iters: int = 0
    step: int = 0
    max_steps: int = 0
    agent: str = ""
    sub_calls: int = 0
    sub_budget: int = 0
    children_live: int = 0
    """Child agents (``rlm_query``) running now (the count is the iteration's, as the
    sub-calls')."""
    children_done: int = 0
    """Child agents that ended, this iteration."""
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int | None = None
    """Input tokens served from the prompt cache (``None``: no provider said)."""
    cost_usd: float | None = 0.0
    unknown_cost_calls: int = 0
    """Calls without a known price: ``cost_usd`` is only the priced calls' part."""
    estimated_calls: int = 0
    """Calls whose tokens a tokenizer estimated (their server reported no usage)."""
    saved_calls: int = 0
    """Sub-calls the sub-call cache answered (not paid)."""
    saved_cost_usd: float | None = 0.0
    """What they cost when first paid for (``None``: no known price)."""
    started_ts: float | None = None
    finished_ts: float | None = None
    isolation: str | None = None
    phase: str | None = None
    phase_started_ts: float | None = None
    last_heartbeat_ts: float | None = None
    constraints_in_force: list[str] = field(default_factory=list)
    next_constraints: list[str] | None = None
    candidate: dict[str, Any] | None = None
    candidate_iteration: int = 0
    candidate_salvaged: bool = False
    candidate_quotes: list[QuoteLocation] | None = None
    """Where the candidate's evidence quotes stand, as the loop located them."""
    checks: dict[int, IterationChecks] = field(default_factory=dict)
    memory_path: str | None = None
    cells: int = 0
    index: IndexProgress | None = None
    """How far the retrieval index is (its figures once ``ready``)."""
    searches: dict[int, list[RetrievalDone]] = field(default_factory=dict)
    """Each iteration's retrieval searches, in the order they ran."""
    external: dict[str, ExternalProgress] = field(default_factory=dict)
    """Each external documentation source's crawl, as last reported."""
    context_size: ContextSize | None = None
    """The newest report of an agent's active context size."""
    compaction: ContextCompacted | None = None
    """The newest compaction of that agent's context (its summaries)."""
    coverage: CoverageUpdated | None = None
    """What the latest iteration to report it has read of the documents."""
    turn: ModelTurnPartial | None = None
    """The model turn arriving now (until its step ends)."""
    first_token_ms: float | None = None
    """The newest streamed turn's time to its first token."""

    def apply(self, event: BaseEvent) -> set[Part]:
        """Fold ``event`` in; return the parts of the picture it changed."""
        handler = handlers().get(type(event))
        changed: set[Part] = {"log"}
        if handler is not None:
            changed |= handler(self, event)
        if event.session_id and not self.session_id:
            self.session_id = event.session_id
            changed.add("status")
        return changed

    def elapsed_s(self, now: float | None = None) -> float | None:
        """Seconds since the run started, frozen once it finished."""
        if self.started_ts is None:
            return None
        end = self.finished_ts if self.finished_ts is not None else (now or time.time())
        return max(0.0, end - self.started_ts)

    def phase_running_s(self, now: float | None = None) -> float | None:
        """How long the current phase has been running, if one is."""
        if self.phase is None or self.phase_started_ts is None:
            return None
        return max(0.0, (now or time.time()) - self.phase_started_ts)

    @property
    def candidate_claims(self) -> list[Claim]:
        """The claims of the iteration that produced the candidate shown (the latest such)."""
        for checks in sorted(self.checks.values(), key=lambda c: c.iteration, reverse=True):
            if checks.output is not None and checks.output == self.candidate:
                return checks.claims
        return []

    def checks_for(self, iteration: int) -> IterationChecks:
        return self.checks.setdefault(iteration, IterationChecks(iteration))

    @property
    def running(self) -> bool:
        return self.outcome == "running"


def _run_started(p: RunProgress, e: RunStarted) -> set[Part]:
    p.mode, p.query, p.doc_path = e.mode, e.query, e.doc_path
    p.max_iters, p.outcome, p.lifecycle, p.started_ts = e.max_iters, "running", None, e.ts
    p.generate_model, p.validate_model, p.variant = e.generate_model, e.validate_model, e.variant
    p.parent_session_id = e.parent_session_id
    p.inner, p.inner_auto = e.inner, e.inner_reason is not None
    p.session_id = e.session_id or p.session_id
    return {"status", "output"}


def _iteration_started(p: RunProgress, e: IterationStarted) -> set[Part]:
    p.iteration, p.max_iters = e.iteration, e.max_iters
    p.step = p.sub_calls = p.children_live = p.children_done = 0
    p.constraints_in_force, p.next_constraints = list(e.constraints), None
    p.checks_for(e.iteration)
    return {"status", "constraints", "validation"}


def _phase_started(p: RunProgress, e: PhaseStarted) -> set[Part]:
    p.phase, p.phase_started_ts, p.last_heartbeat_ts = e.phase, e.ts, None
    return {"status"}


def _phase_finished(p: RunProgress, e: PhaseFinished) -> set[Part]:
    p.phase = p.phase_started_ts = p.last_heartbeat_ts = None
    return {"status", *_turn_ended(p)}


def _agent_step(p: RunProgress, e: AgentStep) -> set[Part]:
    p.agent, p.step, p.max_steps = e.agent, e.step, e.max_steps
    return {"status", *_turn_ended(p)}


def _model_turn_partial(p: RunProgress, e: ModelTurnPartial) -> set[Part]:
    p.turn, p.first_token_ms = e, e.first_token_ms
    if e.agent != p.agent:  # another agent's steps: its step budget is said with its step
        p.agent, p.max_steps = e.agent, 0
    p.step = e.step  # the step being written, which its AgentStep reports once it ends
    return {"turn", "status"}


def _turn_ended(p: RunProgress) -> set[Part]:
    """The arriving turn is over (its step ended): the panes show it whole from now on."""
    if p.turn is None:
        return set()
    p.turn = None
    return {"turn"}


LCM_ISOLATION = "none (lcm)"
"""What the status line says of the sandbox in the LCM mode: no code runs."""


def _sandbox_executed(p: RunProgress, e: SandboxExecuted) -> set[Part]:
    p.cells += 1
    if e.isolation and e.isolation != p.isolation:
        p.isolation = e.isolation
        return {"sandbox", "status"}
    return {"sandbox"}


def _child_started(p: RunProgress, e: ChildStarted) -> set[Part]:
    p.children_live += 1
    if e.calls_budget:  # a child's start is a sub-call of the tree's budget
        p.sub_calls, p.sub_budget = e.calls_used, e.calls_budget
    return {"status", "sandbox"}


def _child_finished(p: RunProgress, e: ChildFinished) -> set[Part]:
    p.children_live = max(0, p.children_live - 1)
    p.children_done += 1
    return {"status", "sandbox"}


def _tool_executed(p: RunProgress, e: ToolExecuted) -> set[Part]:
    p.cells += 1
    if p.isolation != LCM_ISOLATION:
        p.isolation = LCM_ISOLATION
        return {"sandbox", "status"}
    return {"sandbox"}


def _sub_query(p: RunProgress, e: SubQuery) -> set[Part]:
    p.sub_calls, p.sub_budget = e.calls_used or p.sub_calls + 1, e.calls_budget or p.sub_budget
    return {"status", "sandbox"}


def _hard_validation(p: RunProgress, e: HardValidation) -> set[Part]:
    p.checks_for(e.iteration).hard = e
    return {"validation", "output"}


def _judge_verdict(p: RunProgress, e: JudgeVerdict) -> set[Part]:
    checks = p.checks_for(e.iteration)
    checks.judge = e
    if e.claims:
        checks.claims = list(e.claims)
    return {"validation", "output"}


def _candidate(p: RunProgress, e: CandidateProduced) -> set[Part]:
    p.candidate, p.candidate_iteration = dict(e.output), e.iteration
    p.candidate_quotes = list(e.quotes)
    checks = p.checks_for(e.iteration)
    p.candidate_salvaged = checks.salvaged = e.fallback
    checks.output, checks.claims = dict(e.output), list(e.claims)
    return {"output", "validation"}


def _iteration_finished(p: RunProgress, e: IterationFinished) -> set[Part]:
    checks = p.checks_for(e.iteration)
    checks.passed, checks.failure_tag = e.passed, e.failure_tag
    p.next_constraints = None if e.passed else list(e.next_constraints)
    return {"validation", "constraints", "status"}


def _memory_updated(p: RunProgress, e: MemoryUpdated) -> set[Part]:
    p.memory_path = e.path
    return {"memory"}


def _index_progress(p: RunProgress, e: IndexProgress) -> set[Part]:
    p.index = e
    return {"retrieval", "status"}


def _external_progress(p: RunProgress, e: ExternalProgress) -> set[Part]:
    p.external[e.source] = e
    return {"retrieval", "external"} if e.done else {"retrieval"}


def _context_size(p: RunProgress, e: ContextSize) -> set[Part]:
    if p.context_size is not None and p.context_size.agent != e.agent:
        p.compaction = None
    p.context_size = e
    return {"context"}


def _context_compacted(p: RunProgress, e: ContextCompacted) -> set[Part]:
    p.compaction = e
    return {"context"}


def _retrieval_done(p: RunProgress, e: RetrievalDone) -> set[Part]:
    p.searches.setdefault(e.iteration, []).append(e)
    return {"retrieval"}


def _coverage(p: RunProgress, e: CoverageUpdated) -> set[Part]:
    p.coverage = e
    return {"coverage"}


def _usage(p: RunProgress, e: UsageUpdated) -> set[Part]:
    p.input_tokens, p.output_tokens, p.cost_usd = e.input_tokens, e.output_tokens, e.cost_usd
    p.unknown_cost_calls, p.estimated_calls = e.unknown_cost_calls, e.estimated_calls
    p.cache_read_tokens = e.cache_read_tokens
    p.saved_calls, p.saved_cost_usd = e.saved_calls, e.saved_cost_usd
    return {"status"}


def _heartbeat(p: RunProgress, e: Heartbeat) -> set[Part]:
    p.last_heartbeat_ts = e.ts
    return {"status"}


def _run_finished(p: RunProgress, e: RunFinished) -> set[Part]:
    p.outcome, p.lifecycle, p.error, p.finished_ts = e.status, None, e.error, e.ts
    p.phase = p.phase_started_ts = None
    if e.output:
        if e.output != p.candidate:
            p.candidate_quotes = None  # an earlier candidate reported: its quotes located anew
        p.candidate, p.candidate_salvaged = dict(e.output), e.salvaged
    return {"status", "output", *_turn_ended(p)}


@cache
def handlers() -> dict[type[BaseEvent], Any]:
    """Each event type's fold, built on the first event: the app paints before the event
    models load."""
    from ralph_tui import events as e

    return {
        e.RunStarted: _run_started,
        e.IterationStarted: _iteration_started,
        e.PhaseStarted: _phase_started,
        e.PhaseFinished: _phase_finished,
        e.AgentStep: _agent_step,
        e.ModelTurnPartial: _model_turn_partial,
        e.SandboxExecuted: _sandbox_executed,
        e.SubQuery: _sub_query,
        e.ChildStarted: _child_started,
        e.ChildFinished: _child_finished,
        e.ToolExecuted: _tool_executed,
        e.HardValidation: _hard_validation,
        e.JudgeVerdict: _judge_verdict,
        e.CandidateProduced: _candidate,
        e.IterationFinished: _iteration_finished,
        e.MemoryUpdated: _memory_updated,
        e.IndexProgress: _index_progress,
        e.RetrievalDone: _retrieval_done,
        e.CoverageUpdated: _coverage,
        e.ExternalProgress: _external_progress,
        e.ContextSize: _context_size,
        e.ContextCompacted: _context_compacted,
        e.UsageUpdated: _usage,
        e.Heartbeat: _heartbeat,
        e.RunFinished: _run_finished,
    }
