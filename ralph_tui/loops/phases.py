"""One failure policy for every phase of every loop.

A phase (worker, doc reader, reasoner, memory, judge, decomposer, aggregator) that fails in a
way the run can survive is tagged on its iteration, the iteration is recorded with what it
had, and the loop goes on. Only failures that no retry can fix (a missing key, an unreachable
provider, the cost cap) stop the run; they propagate to the runner, which records the session.
The advice handed to the next iteration says what actually went wrong.
"""

from __future__ import annotations

from ralph_tui.agents.rlm import SandboxFailedError
from ralph_tui.agents.structured import MaxStepsError
from ralph_tui.llm.errors import LLMError
from ralph_tui.loops.iteration import IterationRecord
from ralph_tui.sandbox import SandboxStartError

PHASE_ERRORS: tuple[type[Exception], ...] = (
    MaxStepsError,
    SandboxFailedError,
    SandboxStartError,
    LLMError,
)
"""What a phase may fail with and the loop can survive (unless ``stops_run``). A cap
(``CostCapReached``) is none of them: it always stops the run."""

MODEL_FIXABLE_TAGS = frozenset({"worker_error", "doc_reader_error", "reasoner_error"})
"""Phases whose failure the next attempt can avoid by acting differently; other phases get no
advice (a judge that failed says nothing about the answer)."""


def survivable(exc: BaseException) -> bool:
    """Whether the loop can go on after ``exc``, a failure its phase caught (a later attempt
    may succeed)."""
    return not (isinstance(exc, LLMError) and exc.stops_run)


def phase_failed(record: IterationRecord, tag: str, exc: Exception) -> IterationRecord:
    """Tag ``record`` with the failed phase and the advice for the next attempt.

    Re-raises ``exc`` when the run cannot go on.
    """
    if not survivable(exc):
        raise exc
    advice = repair_advice(exc) if tag in MODEL_FIXABLE_TAGS else None
    return record.failed_phase(tag, exc, advice)


def repair_advice(exc: Exception) -> str | None:
    """What the next attempt should do differently, matched to what happened."""
    if isinstance(exc, MaxStepsError):
        return exc.advice()
    if isinstance(exc, SandboxFailedError):
        return "The sandbox failed repeatedly: keep cells small, fast and memory-light."
    return None
