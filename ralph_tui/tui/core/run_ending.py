"""How a run of the app ended, as the run screen shows it: its outcome, and the error (if any)
that belongs in the error modal.

A run ends with the runner's ``RunOutcome``; or, stopped hard, with the outcome its session
recorded (its ``RunFinished`` event); or with the error that stopped it (bad input, a
crash outside the loops); or with no outcome at all: cancelled before it started, or
stopped hard before its session recorded how it ended.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ralph_tui.counts import counted
from ralph_tui.errors import RalphError, as_ralph_error

if TYPE_CHECKING:
    from ralph_tui.events import RunFinished, UsageUpdated
    from ralph_tui.loops.runner import RunOutcome


@dataclass(frozen=True)
class RunEnding:
    """How one run ended."""

    outcome: RunOutcome | None
    """What the run's session recorded; ``None`` when the run stopped before it had one."""
    error: RalphError | None = None
    """What the error modal shows: the error that stopped the run, or the one its outcome
    ended with (status ``error`` or ``crashed``); ``None`` for a run that ended on its own
    terms (passed, failed, timed out, capped, cancelled)."""

    @classmethod
    def of_outcome(cls, outcome: RunOutcome) -> RunEnding:
        """The ending of a run that reported ``outcome``."""
        from ralph_tui.events import ERROR_OF_STATUS

        kind = ERROR_OF_STATUS.get(outcome.status)
        if kind is None:
            return cls(outcome)
        # The recorded error is already the one line the command line prints, hint included.
        return cls(outcome, kind(outcome.error or f"the run ended {outcome.status}", hint=""))

    @classmethod
    def of_error(cls, exc: BaseException, outcome: RunOutcome | None = None) -> RunEnding:
        """The ending of a run stopped by ``exc`` (after its session recorded ``outcome``)."""
        return cls(outcome, as_ralph_error(exc))

    @property
    def status(self) -> str:
        """The run's status; ``rejected`` for input refused before anything ran."""
        if self.outcome is not None:
            return self.outcome.status
        return self.error.status if self.error is not None else "cancelled"

    @property
    def session_id(self) -> str | None:
        return self.outcome.session_id if self.outcome is not None else None

    def summary(self) -> str:
        """One line saying how the run ended, its session and what its session kept."""
        outcome = self.outcome
        if outcome is None:
            if self.error is not None:
                return f"{self.error.title}: {self.error.one_line()}"
            return "Run cancelled: no outcome was recorded."
        count = outcome.iterations
        kept = f"{counted(count, 'iteration') if count else 'no iterations'} recorded"
        if outcome.output:
            shown = "its answer" if outcome.status == "passed" else "its best candidate"
            kept += f"; {shown} is shown"
        status = outcome.status.replace("_", " ")
        return f"Run {status}: {outcome.session_id} ({kept})."


def recorded_outcome(finished: RunFinished, usage: UsageUpdated | None) -> RunOutcome:
    """The outcome a session recorded, rebuilt from its ``RunFinished`` event and its last
    usage event: what a run stopped hard reports, its runner having returned nothing."""
    from ralph_tui.events import UsageUpdated
    from ralph_tui.llm.usage import UsageSnapshot
    from ralph_tui.loops.runner import RunOutcome

    spent = usage or UsageUpdated(input_tokens=0, output_tokens=0, calls=0, cost_usd=0.0)
    return RunOutcome(
        status=finished.status,
        session_id=finished.session_id,
        iterations=finished.iterations,
        output=dict(finished.output) if finished.output else None,
        usage=UsageSnapshot.of_event(spent),
        error=finished.error,
        salvaged=finished.salvaged,
    )
