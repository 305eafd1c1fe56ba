"""A run's events as MCP progress: the iteration (of ``max_iters``) and the phase it is in.

MCP asks that progress only ever grows, so each iteration ``i`` spans ``[i - 1, i)`` and
each phase started in it moves a step closer to ``i`` without reaching it; the run's end is
the whole of ``max_iters``, however many iterations it took.
"""

from __future__ import annotations

from dataclasses import dataclass

from ralph_tui.events import (
    BaseEvent,
    IterationFinished,
    IterationStarted,
    PhaseStarted,
    RunFinished,
)

STEP = 0.001
"""The least a notification moves on when an event would set progress back (a sub-task's
iterations count from 1 again)."""


@dataclass(frozen=True)
class ProgressUpdate:
    progress: float
    total: float | None
    message: str


class ProgressTracker:
    """Turns each event that moves a run on into a ``ProgressUpdate`` (others into ``None``)."""

    def __init__(self) -> None:
        self.progress = 0.0
        self.total: int | None = None
        self.phases = 0
        """Phases started in the current iteration."""

    def update(self, event: BaseEvent) -> ProgressUpdate | None:
        if isinstance(event, IterationStarted):
            self.total, self.phases = event.max_iters, 0
            return self._at(event.iteration - 1, f"{self._of(event.iteration)} started")
        if isinstance(event, PhaseStarted):
            self.phases += 1
            within = self.phases / (self.phases + 1)
            return self._at(
                event.iteration - 1 + within, f"{self._of(event.iteration)}: {event.phase}"
            )
        if isinstance(event, IterationFinished):
            verdict = "passed" if event.passed else "did not pass"
            return self._at(event.iteration, f"{self._of(event.iteration)} {verdict}")
        if isinstance(event, RunFinished):
            return self._at(self.total or event.iterations, f"run finished: {event.status}")
        return None

    def waiting(self, message: str) -> ProgressUpdate:
        """A notice before the run starts (waiting for a slot): a step on, as progress only
        ever grows."""
        return self._at(self.progress, message)

    def _of(self, iteration: int) -> str:
        return f"iteration {iteration}" + (f" of {self.total}" if self.total else "")

    def _at(self, progress: float, message: str) -> ProgressUpdate:
        self.progress = progress if progress > self.progress else self.progress + STEP
        return ProgressUpdate(self.progress, self.total, message)
