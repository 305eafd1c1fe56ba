"""A run's status as the app shows it, and the one style of each.

Two facts meet on the status line and must not be confused: the run's **outcome**, what
its events or its session say (``RunStatus``: ``running``, then how it ended), and where
the run is in its **lifecycle** as the app drives it (``RunState``), of which only the
states its events cannot report are shown: ``starting`` before its session exists and
``cancelling`` until it stops. The session list shows outcomes only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ralph_tui.tui.core.run_handle import RunState

if TYPE_CHECKING:
    from ralph_tui.events import RunStatus

ACTIVE = "bold $text-accent"
GOOD = "bold $text-success"
BAD = "bold $text-error"
EARLY_END = "bold $text-warning"

OUTCOME_STYLES: dict[RunStatus, str] = {
    "running": ACTIVE,
    "passed": GOOD,
    "failed": BAD,
    "crashed": BAD,
    "error": BAD,
    "cancelled": EARLY_END,
    "timed_out": EARLY_END,
    "capped": EARLY_END,
}
"""The style of each outcome, wherever one is shown (status line, session list)."""

LIFECYCLE_STYLES: dict[RunState, str] = {
    RunState.STARTING: ACTIVE,
    RunState.CANCELLING: EARLY_END,
}
"""The lifecycle states the status line shows, because no event reports them."""

IDLE = "idle"
IDLE_STYLE = "$text-muted"


def status_badge(outcome: RunStatus | None, lifecycle: RunState | None) -> tuple[str, str]:
    """The word the status line shows and its style: a shown lifecycle state over the
    outcome (``cancelling`` while the events still say ``running``), else the outcome,
    else ``idle`` before any run."""
    if lifecycle in LIFECYCLE_STYLES:
        assert lifecycle is not None
        return lifecycle.value, LIFECYCLE_STYLES[lifecycle]
    if outcome is None:
        return IDLE, IDLE_STYLE
    return outcome, OUTCOME_STYLES[outcome]
