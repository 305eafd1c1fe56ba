"""Start a run from the form and watch it live; cancel it cleanly.

The run works in a thread (``RunControl``); its events land in an ``EventBuffer``
that a timer drains ``DRAIN_HZ`` times a second into the ``RunMonitor``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import Footer
from textual.worker import Worker, WorkerState

from ralph_tui.tui.context import app_context
from ralph_tui.tui.event_buffer import EventBuffer
from ralph_tui.tui.requests import form_request
from ralph_tui.tui.run_control import RunControl
from ralph_tui.tui.screens.error_modal import show_error
from ralph_tui.tui.screens.evidence_modal import EvidenceModal
from ralph_tui.tui.screens.file_picker import FilePicker
from ralph_tui.tui.screens.passage_modal import PassageModal
from ralph_tui.tui.screens.summary_modal import SummaryModal
from ralph_tui.tui.widgets.context_pane import ContextPane
from ralph_tui.tui.widgets.output_pane import OutputPane
from ralph_tui.tui.widgets.retrieval_pane import RetrievalPane
from ralph_tui.tui.widgets.run_form import RunForm, RunFormError
from ralph_tui.tui.widgets.run_monitor import RunMonitor
from ralph_tui.tui.worker_errors import forward_worker_error

if TYPE_CHECKING:
    from ralph_tui.loops.runner import RunOutcome, RunRequest

DRAIN_HZ = 25
MAX_EVENTS_PER_DRAIN = 2000
WIDE_SCREEN = 140
"""Columns from which the form stays beside the panes while a run goes."""


class RunScreen(Screen[None]):
    """The run form beside the live panes of the current (or last) run."""

    DEFAULT_CSS = """
    RunScreen { layout: horizontal; }
    RunScreen #form { width: 38; border-right: vkey $foreground 20%; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "ctrl+r",
            "start_run",
            "Start",
            id="run.start",
            tooltip="Start a run with the form's settings",
            priority=True,
        ),
        Binding(
            "ctrl+g",
            "cancel_run",
            "Cancel run",
            id="run.cancel",
            tooltip="Cancel the running run (it stops at its next step)",
            priority=True,
        ),
        Binding(
            "ctrl+n", "toggle_form", "Form", id="run.form", tooltip="Show or hide the run form"
        ),
        Binding(
            "ctrl+o",
            "choose_document",
            "Document",
            id="run.document",
            tooltip="Pick the document from the file system",
        ),
        Binding(
            "ctrl+y",
            "copy_output",
            "Copy output",
            id="run.copy_output",
            tooltip="Copy the current output to the clipboard",
            show=False,
        ),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.buffer = EventBuffer()
        self.control: RunControl | None = None
        self.run_job: Worker[RunOutcome | None] | None = None

    def compose(self) -> ComposeResult:
        context = app_context(self.app)
        yield RunForm(context.settings, context.missing_keys, id="form")
        yield RunMonitor(context.out_dir, id="monitor")
        yield Footer()

    def on_mount(self) -> None:
        self.set_interval(1 / DRAIN_HZ, self.drain)
        self.set_interval(1.0, self.monitor.tick)

    @property
    def monitor(self) -> RunMonitor:
        return self.query_one(RunMonitor)

    @property
    def form(self) -> RunForm:
        return self.query_one(RunForm)

    @property
    def running(self) -> bool:
        return self.control is not None

    def drain(self) -> None:
        """Feed what the run emitted since the last call to the panes."""
        events = self.buffer.drain(MAX_EVENTS_PER_DRAIN)
        if events:
            self.monitor.feed(events)
        self.monitor.flush()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "cancel_run":
            return True if self.running else None
        if action == "start_run":
            return None if self.running else True
        return True

    def action_start_run(self) -> None:
        try:
            values = self.form.values()
        except RunFormError as exc:
            self.notify(str(exc), title="Cannot start", severity="error")
            return
        settings = app_context(self.app).settings
        self.start(lambda: form_request(values, settings), doc_path=values.doc_path)

    def start(self, make_request: Callable[[], RunRequest], doc_path: Path | None = None) -> bool:
        """Start a run of the request ``make_request`` builds; false if one is running."""
        if self.running:
            self.notify("A run is going: cancel it first (ctrl+g).", severity="warning")
            return False
        self.buffer = EventBuffer()
        self.monitor.reset()
        if doc_path is not None:
            self.monitor.use_document(doc_path)
        context = app_context(self.app)
        self.control = RunControl(make_request, context.runner, self.buffer.push)
        context.runs.add(self.control)
        self.run_job = self.run_worker(
            self.control.run, name="run", group="run", thread=True, exit_on_error=False
        )
        if self.size.width < WIDE_SCREEN:
            self.form.display = False  # Give the panes the room on a narrow terminal.
        self.refresh_bindings()
        return True

    def action_cancel_run(self) -> None:
        if self.control is None:
            return
        self.control.cancel()
        self.notify("Cancelling: the run stops at its next step.")

    def palette_commands(self) -> list[tuple[str, str]]:
        """Actions offered in the command palette without a key of their own."""
        return [("Copy the highlighted evidence quote", "copy_evidence")]

    def action_toggle_form(self) -> None:
        # Toggle the widget, not a screen class: a class change restyles the whole screen.
        self.form.display = not self.form.display
        if self.form.display:
            self.form.query_one("#query").focus()

    def action_choose_document(self) -> None:
        typed = Path(self.form.document_text or ".").expanduser()
        start = typed if typed.is_dir() else typed.parent
        self.app.push_screen(FilePicker(start.resolve()), self._document_chosen)

    def _document_chosen(self, path: Path | None) -> None:
        if path is not None:
            self.form.set_document(path)

    def action_copy_output(self) -> None:
        self.monitor.output.action_copy_output()

    def action_copy_evidence(self) -> None:
        self.monitor.output.action_copy_quote()

    def on_run_form_start_requested(self, _message: RunForm.StartRequested) -> None:
        self.action_start_run()

    def on_run_form_browse_requested(self, _message: RunForm.BrowseRequested) -> None:
        self.action_choose_document()

    def on_output_pane_quote_chosen(self, message: OutputPane.QuoteChosen) -> None:
        output = self.monitor.output
        path = self.monitor.document_path
        self.app.push_screen(
            EvidenceModal(
                message.quote,
                output.document,
                path.name if path else "document",
                output.minimum,
                output.corpus,
                output.external,
            )
        )

    def on_context_pane_summary_chosen(self, message: ContextPane.SummaryChosen) -> None:
        store = Path(message.store) if message.store else None
        self.app.push_screen(SummaryModal(message.node, store))

    def on_retrieval_pane_passage_chosen(self, message: RetrievalPane.PassageChosen) -> None:
        output = self.monitor.output
        self.app.push_screen(
            PassageModal(message.passage, output.document, output.corpus, output.external)
        )

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker is not self.run_job:
            forward_worker_error(self.app, event)
            return
        if event.state not in (WorkerState.SUCCESS, WorkerState.ERROR, WorkerState.CANCELLED):
            return
        if self.control is not None:
            app_context(self.app).runs.discard(self.control)
        self.control = None
        self.drain()
        self.refresh_bindings()
        if event.state is WorkerState.SUCCESS:
            self._finished(event.worker.result)
        elif event.state is WorkerState.ERROR and event.worker.error is not None:
            self._failed(event.worker.error)

    def _finished(self, outcome: RunOutcome | None) -> None:
        if outcome is None:
            self.notify("The run was stopped.", severity="warning")
        elif outcome.status == "error":
            self._offer_offline("The provider stopped the run", outcome.error or "unknown error")
        else:
            self.notify(
                f"Run {outcome.status}: {outcome.session_id}",
                severity="information" if outcome.status == "passed" else "warning",
            )

    def _failed(self, error: BaseException) -> None:
        from ralph_tui.documents import InputError
        from ralph_tui.llm.errors import LLMError

        self.monitor.mark_failed(str(error))
        self.form.display = True  # Nothing ran: let the user fix the form.
        if isinstance(error, InputError):
            show_error(self.app, "Cannot start the run", str(error))
        elif isinstance(error, LLMError):
            self._offer_offline("The provider refused the run", str(error))
        else:
            show_error(self.app, "The run crashed", f"{type(error).__name__}: {error}")

    def _offer_offline(self, title: str, message: str) -> None:
        def switch(_action: str) -> None:
            self.form.prefill(provider="offline")
            self.notify("Provider set to offline: start the run again (ctrl+r).")

        show_error(self.app, title, message, {"use-offline": "Use the offline provider"}, switch)
