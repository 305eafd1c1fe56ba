"""The run's status line: what it says of the sandbox's isolation."""

from __future__ import annotations

from ralph_tui.events import SandboxExecuted
from ralph_tui.tui.run_state import RunProgress
from ralph_tui.tui.widgets.status_line import status_content
from tests.tui.scripted import T0, scripted_events

SESSION = "2026-01-01/qa-00000001"


def status_with_isolation(isolation: str) -> str:
    progress = RunProgress()
    progress.apply(scripted_events(SESSION)[0])
    progress.apply(
        SandboxExecuted(
            agent="worker", step=1, code="1", output="", duration_ms=1, isolation=isolation
        )
    )
    return status_content(progress, now=T0 + 5).plain


def test_full_isolation_is_named_plainly() -> None:
    assert status_with_isolation("bwrap").endswith("  sandbox bwrap")


def test_a_degraded_sandbox_is_a_warning() -> None:
    for isolation in ("unshare-net", "rlimits-only"):
        assert f"sandbox {isolation}: not fully isolated" in status_with_isolation(isolation)
