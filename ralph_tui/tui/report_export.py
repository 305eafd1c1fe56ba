"""Exporting a session's report from the app (``x`` on the session browser and the session
screen): the HTML report is written under the out dir, off the app's loop (rendering PDF
pages takes a moment), and a notification says where."""

from __future__ import annotations

from typing import Any

from textual.binding import Binding
from textual.screen import Screen

from ralph_tui.traces.store import TraceStore
from ralph_tui.tui.context import app_context

EXPORT_TOOLTIP = "Write the session's report (HTML: answer, quotes, checks) under the out dir"


def export_binding(screen_id: str) -> Binding:
    """The ``x`` binding of a screen that shows a session (its id ``<screen_id>.report``)."""
    return Binding("x", "export_report", "Report", id=f"{screen_id}.report", tooltip=EXPORT_TOOLTIP)


def start_export(screen: Screen[Any], store: TraceStore, session_id: str | None) -> None:
    """Export ``session_id``'s report in a thread worker of ``screen`` (whose
    ``on_worker_state_changed`` shows a failure in the error modal)."""
    if session_id is None:
        screen.notify("Select a session first.", severity="warning")
        return
    settings = app_context(screen.app).settings
    app = screen.app

    def export() -> None:
        # Imported here: the reports bring the loops and the PDF renderer, which the app's
        # start does not need.
        from ralph_tui.reports.render import export_session_report

        path = export_session_report(store, session_id, settings)
        app.call_from_thread(app.notify, f"Report of {session_id} written to {path}")

    screen.notify(f"Writing the report of {session_id}…", timeout=2)
    screen.run_worker(
        export, thread=True, group="report", exit_on_error=False, name="Writing the report"
    )
