"""Route a failed worker's error to the app's error modal (never a crash).

Workers here use ``exit_on_error=False``; the widget or screen owning one calls
``forward_worker_error`` from its ``on_worker_state_changed``.
"""

from __future__ import annotations

from typing import Any

from textual.app import App
from textual.worker import Worker, WorkerState


def forward_worker_error(app: App[Any], event: Worker.StateChanged) -> None:
    """Show the worker's error in the error modal, naming the worker, if it failed."""
    if event.state is not WorkerState.ERROR:
        return
    # Imported when a worker fails: the app's first frame does without the error modal.
    from ralph_tui.errors import InternalError
    from ralph_tui.tui.screens.error_modal import show_error

    error = event.worker.error or InternalError("a background task failed without an error")
    show_error(app, error, where=event.worker.name or "a background task")
