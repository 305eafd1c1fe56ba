"""A run's status as the app shows it: outcome and lifecycle kept apart, one style each,
the same style on the status line and in the session list."""

from __future__ import annotations

from typing import get_args

from textual.content import Content

from ralph_tui.events import RunFinished, RunStatus
from ralph_tui.traces.models import SessionRecord
from ralph_tui.tui.core.run_handle import RunState
from ralph_tui.tui.core.run_progress import RunProgress
from ralph_tui.tui.core.run_status import LIFECYCLE_STYLES, OUTCOME_STYLES, status_badge
from ralph_tui.tui.widgets.session_table import session_line
from ralph_tui.tui.widgets.status_line import status_content
from tests.tui.scripted import T0, scripted_events

SESSION = "2026-01-01/qa-00000001"


def badge_of(line: Content) -> tuple[str, str]:
    """The status line's badge: its word and its style."""
    span = line.spans[0]
    return line.plain[span.start : span.end].strip(), str(span.style)


def test_every_outcome_has_one_style() -> None:
    assert set(OUTCOME_STYLES) == set(get_args(RunStatus))


def test_only_the_states_no_event_reports_are_shown() -> None:
    assert set(LIFECYCLE_STYLES) == {RunState.STARTING, RunState.CANCELLING}
    assert status_badge("running", RunState.RUNNING) == ("running", OUTCOME_STYLES["running"])
    assert status_badge(None, RunState.FINISHED)[0] == "idle"


def test_idle_then_starting_then_the_events_then_cancelling_then_the_end() -> None:
    progress = RunProgress()
    assert badge_of(status_content(progress, now=T0))[0] == "IDLE"

    progress.lifecycle = RunState.STARTING
    assert badge_of(status_content(progress, now=T0)) == (
        "STARTING",
        f"{LIFECYCLE_STYLES[RunState.STARTING]} reverse",
    )

    progress.apply(scripted_events(SESSION)[0])  # RunStarted: the events speak from here.
    assert (progress.outcome, progress.lifecycle) == ("running", None)
    assert badge_of(status_content(progress, now=T0 + 1))[0] == "RUNNING"

    progress.lifecycle = RunState.CANCELLING  # The events still say running.
    assert badge_of(status_content(progress, now=T0 + 2))[0] == "CANCELLING"
    assert progress.running

    progress.apply(RunFinished(ts=T0 + 3, status="cancelled", iterations=1))
    assert (progress.outcome, progress.lifecycle) == ("cancelled", None)
    assert badge_of(status_content(progress, now=T0 + 4)) == (
        "CANCELLED",
        f"{OUTCOME_STYLES['cancelled']} reverse",
    )


def test_an_ending_is_styled_alike_on_the_status_line_and_in_the_session_list() -> None:
    statuses: tuple[RunStatus, ...] = ("passed", "capped", "error")
    for status in statuses:
        progress = RunProgress()
        progress.apply(scripted_events(SESSION)[0])
        progress.apply(RunFinished(ts=T0 + 3, status=status, iterations=1))
        word, style = badge_of(status_content(progress, now=T0 + 4))
        line = session_line(SessionRecord(mode="qa", query="q", status=status), 160)
        listed = next(s for s in line.spans if line.plain[s.start : s.end].strip() == status)
        assert word == status.upper() and style == f"{listed.style} reverse"
