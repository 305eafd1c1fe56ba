"""Progress as lines: one readable line per event worth a line, for the command line's
stderr and the app's log pane alike."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, TextIO

from ralph_tui.counts import counted, noun_for
from ralph_tui.events import (
    AgentStep,
    BaseEvent,
    ChildFinished,
    ChildStarted,
    ContextCompacted,
    ExternalProgress,
    HardValidation,
    Heartbeat,
    IndexProgress,
    IterationFinished,
    IterationStarted,
    JudgeVerdict,
    Notice,
    PhaseFinished,
    PhaseStarted,
    RetrievalDone,
    RunFinished,
    RunStarted,
    SandboxExecuted,
    SubQuery,
    ToolExecuted,
    UsageUpdated,
)
from ralph_tui.llm.spend_words import cost_words, describe_saved, tokens_words


class IndexProgressLines:
    """Lines for a retrieval index being built: at most one a second, none for an index
    ready within the first second, and how long it took when any was shown."""

    def __init__(
        self, interval_s: float = 1.0, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.interval_s = interval_s
        self.clock = clock
        self.began: float | None = None
        self.last_shown: float | None = None

    def __call__(self, e: IndexProgress) -> str | None:
        now = self.clock()
        began = self.began if self.began is not None else now
        if e.stage == "ready":
            shown = self.last_shown is not None
            self.began = self.last_shown = None
            return f"  retrieval index ready in {now - began:.1f} s" if shown else None
        self.began = began
        if now - (self.last_shown or began) < self.interval_s:
            return None
        self.last_shown = now
        return f"  indexing for retrieval: {e.stage} {e.done:,}/{e.total:,}"


class ProgressPrinter:
    """An ``Emit`` that prints progress: iteration, phase, step, sub-calls, tokens, cost."""

    def __init__(self, stream: TextIO, *, verbose: bool = False) -> None:
        self.stream = stream
        self.verbose = verbose
        self.step = "no step yet"
        """The newest agent step of the phase running, named by its agent: the worker's and
        a judge's steps count against different budgets (``worker step 2/80``, ``judge step
        1/4``); empty while the phase has taken none (a phase without an agent says no
        other phase's step)."""
        self.sub_calls = "0"
        self.usage = UsageUpdated(input_tokens=0, output_tokens=0, calls=0, cost_usd=0.0)
        self.crawl_shown: dict[str, float] = {}
        self.formatters: dict[type[BaseEvent], Callable[[Any], str | None]] = {
            RunStarted: self.run_started,
            IterationStarted: self.iteration_started,
            PhaseStarted: self.phase_started,
            PhaseFinished: self.phase_finished,
            AgentStep: self.agent_step,
            SandboxExecuted: self.sandbox_executed,
            SubQuery: self.sub_query,
            ChildStarted: self.child_started,
            ChildFinished: self.child_finished,
            ToolExecuted: self.tool_executed,
            IndexProgress: IndexProgressLines(),
            ExternalProgress: self.external_progress,
            ContextCompacted: lambda e: (
                f"  {e.agent} context {e.status}: {e.before_tokens:,} -> {e.after_tokens:,} "
                f"tokens" + (f" ({e.reason})" if e.reason else "")
            ),
            RetrievalDone: self.retrieval_done,
            HardValidation: self.hard_validation,
            JudgeVerdict: self.judge_verdict,
            IterationFinished: self.iteration_finished,
            UsageUpdated: self.usage_updated,
            Heartbeat: lambda e: (
                f"  ... {e.phase} running for {e.elapsed_ms / 1000:.0f} s; " + self.status()
            ),
            Notice: lambda e: f"{e.level}: {e.message}",
            RunFinished: lambda e: (
                f"finished: {e.status} after {e.iterations} "
                f"{noun_for(e.iterations, 'iteration')}; " + self.status()
            ),
        }

    def __call__(self, event: BaseEvent) -> None:
        formatter = self.formatters.get(type(event))
        text = formatter(event) if formatter else None
        if text is not None:
            self.stream.write(text + "\n")
            self.stream.flush()

    def status(self) -> str:
        u = self.usage
        saved = ""
        if u.saved_calls:
            saved = "; " + describe_saved(
                u.saved_calls, u.saved_input_tokens, u.saved_output_tokens, u.saved_cost_usd
            )
        tokens = tokens_words(u.input_tokens, u.output_tokens, u.estimated_calls, u.calls)
        step = f"{self.step}, " if self.step else ""
        return (
            f"{step}sub-calls {self.sub_calls}, {tokens}, "
            f"{cost_words(u.cost_usd, u.unknown_cost_calls)}{saved}"
        )

    def run_started(self, e: RunStarted) -> str:
        variant = f", variant {e.variant}" if e.variant else ""
        inner = f", inner {e.inner}" if e.inner else ""
        why = f" (auto: {e.inner_reason})" if e.inner_reason else ""
        return (
            f"session {e.session_id}: {e.mode} on {e.doc_path} ({e.doc_chars:,} chars), "
            f"generate {e.generate_model}, validate {e.validate_model}{variant}{inner}{why}"
        )

    def iteration_started(self, e: IterationStarted) -> str:
        where = f" [sub-task {e.subtask_id}]" if e.subtask_id else ""
        constraints = counted(len(e.constraints), "constraint")
        return f"iteration {e.iteration}/{e.max_iters}{where}: {constraints}"

    def phase_started(self, e: PhaseStarted) -> str:
        self.step = ""
        return f"  {e.phase} ..."

    def phase_finished(self, e: PhaseFinished) -> str:
        outcome = {None: "done", "cancelled": "cancelled"}.get(e.error, f"failed: {e.error}")
        return f"  {e.phase} {outcome} in {e.duration_ms / 1000:.1f} s; {self.status()}"

    def agent_step(self, e: AgentStep) -> str | None:
        self.step = f"{e.agent} step {e.step}/{e.max_steps}"
        return f"    {self.step}: {e.action}" if self.verbose else None

    def sandbox_executed(self, e: SandboxExecuted) -> str | None:
        flag = " (timed out)" if e.timed_out else ""
        text = f"    cell: {e.duration_ms:.0f} ms, {len(e.output):,} chars out{flag}"
        return text if self.verbose else None

    def tool_executed(self, e: ToolExecuted) -> str | None:
        flag = "" if e.ok else " (failed)"
        text = f"    {e.tool}: {e.duration_ms:.0f} ms, {len(e.result):,} chars back{flag}"
        return text if self.verbose else None

    def sub_query(self, e: SubQuery) -> str | None:
        self.sub_calls = f"{e.calls_used}/{e.calls_budget}"
        cached = " (from the sub-call cache, not paid)" if e.cached else ""
        text = f"    sub-call {self.sub_calls}: {e.latency_ms:.0f} ms{cached}"
        return text if self.verbose else None

    def child_started(self, e: ChildStarted) -> str | None:
        """A child agent's start: a sub-call of the tree's budget (said with every status)."""
        if e.calls_budget:
            self.sub_calls = f"{e.calls_used}/{e.calls_budget}"
        return f"    child {e.child} started over {e.context}" if self.verbose else None

    def child_finished(self, e: ChildFinished) -> str:
        """A child agent's end (``rlm_query``): one line each, as they are few and slow."""
        if e.status == "failed":
            ended = f"failed: {e.error}"
        elif e.status == "llm_query":
            ended = "answered by llm_query (the deepest level)"
        else:
            ended = f"{e.status} in {counted(e.steps, 'step')}"
        return f"  child {e.child}: {ended}, {e.duration_ms / 1000:.1f} s"

    def external_progress(self, e: ExternalProgress, interval_s: float = 1.0) -> str | None:
        """A crawl's pages so far, at most once a second per source (the run notes the
        outcome of each)."""
        now = time.monotonic()
        if e.done or now - self.crawl_shown.setdefault(e.source, now) < interval_s:
            return None
        self.crawl_shown[e.source] = now
        return (
            f"  crawling {e.source}: {counted(e.kept, 'page')} kept, {e.queued} queued, "
            f"{e.failed} failed, {e.skipped} skipped"
        )

    def retrieval_done(self, e: RetrievalDone) -> str | None:
        took = e.diagnostics.get("ms")
        ms = took.get("total") if isinstance(took, dict) else None
        timing = f" in {ms:.0f} ms" if isinstance(ms, (int, float)) else ""
        text = f"  retrieval ({e.origin}): {counted(len(e.passages), 'passage')}{timing}"
        return text if self.verbose or e.origin == "prephase" else None

    def hard_validation(self, e: HardValidation) -> str:
        failing = [f"    x {r.name}: {r.message}" for r in e.rules if not r.ok]
        passed = len(e.rules) - len(failing)
        return "\n".join([f"  hard checks: {passed}/{len(e.rules)} passed", *failing])

    def judge_verdict(self, e: JudgeVerdict) -> str:
        if e.ok:
            return "  judge: ok"
        issues = [
            f"    - [{i.category}] {i.message}" if i.category else f"    - {i.message}"
            for i in e.issues
        ]
        return "\n".join([f"  judge: {len(e.issues)} issues", *issues])

    def iteration_finished(self, e: IterationFinished) -> str:
        tag = f" ({e.failure_tag})" if e.failure_tag else ""
        return f"iteration {e.iteration} {'passed' if e.passed else 'failed'}{tag}"

    def usage_updated(self, e: UsageUpdated) -> None:
        self.usage = e
