"""The doctor's checks in the app: the same checks as ``ralph-tui doctor``, with the app's
settings, one row each (ok, warn or fail, and what to do)."""

from __future__ import annotations

import asyncio
from typing import Any, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Label, Static
from textual.worker import Worker, WorkerState

from ralph_tui.config import Settings
from ralph_tui.doctor import Check, report_lines, run_checks


class DoctorScreen(ModalScreen[None]):
    """What works here and what does not, checked when the screen opens."""

    DEFAULT_CSS = """
    DoctorScreen { align: center middle; }
    DoctorScreen > Vertical {
        width: 90%; height: auto; max-height: 90%;
        border: thick $primary; background: $surface; padding: 1 2;
    }
    DoctorScreen #doctor-title { text-style: bold; }
    DoctorScreen VerticalScroll { height: auto; max-height: 30; margin-top: 1; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "close", "Close", id="doctor.close")]

    def __init__(self, settings: Settings) -> None:
        super().__init__()
        self.settings = settings
        self.checks: list[Check] | None = None

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(
                "Doctor: checking the sandbox, keys, models, converters…", id="doctor-title"
            )
            with VerticalScroll():
                yield Static("", id="doctor-checks", markup=False)

    def on_mount(self) -> None:
        self.run_worker(self._check, name="doctor", thread=True, exit_on_error=False)

    def _check(self) -> list[Check]:
        # The checks start a sandbox and import converters: off the app's loop.
        return asyncio.run(run_checks(self.settings))

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        title = self.query_one("#doctor-title", Label)
        if event.state is WorkerState.ERROR:
            title.update(f"Doctor: the checks could not run ({event.worker.error})")
        elif event.state is WorkerState.SUCCESS:
            self.show(event.worker.result)

    def show(self, checks: Any) -> None:
        self.checks = list(checks)
        self.query_one("#doctor-checks", Static).update("\n".join(report_lines(self.checks)))
        failed = sum(check.status == "fail" for check in self.checks)
        verdict = f"{failed} failed" if failed else "nothing failed"
        self.query_one("#doctor-title", Label).update(f"Doctor: {verdict} (escape closes)")

    def action_close(self) -> None:
        self.dismiss(None)
