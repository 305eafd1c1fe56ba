"""Start a run from the form and watch it live; cancel it cleanly.

The modals it opens (evidence, passage, summary, file picker) are imported when first
opened: the first paint does not wait for them.

The first frame holds the form's question box and document field, the status line and the
footer; the rest of the form and the monitor's panes are built right after it (``whole``
says when), and what needs them (starting a run, its events) waits for that.

The run is a ``RunHandle`` working in a thread of its own; its events land in an
``EventBuffer`` that a timer drains ``DRAIN_HZ`` times a second into the ``RunMonitor``.
The handle tells the screen of each state the run enters through messages
(``RunStateChanged``, then ``RunEnded`` with how it ended); the screen keeps the state
in ``run_state``, which its bindings follow.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Awaitable, Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.css.query import NoMatches
from textual.message import Message
from textual.reactive import var
from textual.screen import Screen
from textual.widget import MountError
from textual.widgets import Footer, TextArea
from textual.widgets._footer import FooterKey
from textual.worker import Worker

from ralph_tui.tui.context import app_context
from ralph_tui.tui.core.event_buffer import EventBuffer
from ralph_tui.tui.core.run_handle import RunHandle, RunState
from ralph_tui.tui.widgets.run_form import RunForm, RunFormError
from ralph_tui.tui.widgets.run_monitor import RunMonitor
from ralph_tui.tui.worker_errors import forward_worker_error

if TYPE_CHECKING:
    from ralph_tui.config import Settings
    from ralph_tui.errors import ExitCode
    from ralph_tui.estimates import RunEstimate
    from ralph_tui.loops.runner import RunRequest
    from ralph_tui.tui.core.form_values import RunFormValues
    from ralph_tui.tui.core.run_ending import RunEnding
    from ralph_tui.tui.screens.error_modal import ErrorAction
    from ralph_tui.tui.widgets.context_pane import ContextPane
    from ralph_tui.tui.widgets.output_pane import OutputPane
    from ralph_tui.tui.widgets.retrieval_pane import RetrievalPane

DRAIN_HZ = 25
MAX_EVENTS_PER_DRAIN = 2000
WIDE_SCREEN = 140
"""Columns from which the form stays beside the panes while a run goes."""


def error_actions(exit_code: ExitCode) -> tuple[ErrorAction, ...]:
    """What the error modal offers, beside Close, for a run stopped by an error of
    ``exit_code`` (the modal and the error kinds load with the first error, not before the
    first frame)."""
    from ralph_tui.errors import ExitCode
    from ralph_tui.tui.screens.error_modal import ErrorAction

    if exit_code is ExitCode.PROVIDER:
        return (ErrorAction("use_offline", "Use the offline provider"),)
    return ()


RequestMaker = Callable[[], "RunRequest"]

STATE_NOTES: dict[RunState, str] = {
    RunState.STARTING: "reading the documents and opening the session…",
    RunState.CANCELLING: "stopping at the next step…",
}
"""What the status line says in the run states its events do not report."""

SCREEN_WHOLE_FILE = "RALPH_TUI_SCREEN_WHOLE_FILE"
"""For ``bench/start.py`` only: a file the app writes once its first screen is whole
(composed, painted, nothing left to mount), so the bench can time that moment."""


def tell_screen_whole() -> None:
    """Write the file ``SCREEN_WHOLE_FILE`` names, if it names one (the bench's hook)."""
    path = os.environ.get(SCREEN_WHOLE_FILE)
    if path:
        with open(path, "w", encoding="utf-8") as file:
            file.write("whole\n")


class RunFooter(Footer):
    """The footer with its keys in the first frame. Textual's own composes empty until the
    screen's first bindings signal, so its keys came a frame (and a recompose) later; the
    run screen's bindings are known as it is composed."""

    def __init__(self) -> None:
        super().__init__()
        self.set_reactive(Footer._bindings_ready, True)
        self._shown: tuple[object, ...] | None = None
        """What the keys composed last show; a change of bindings that shows the same keys
        (the question box taking the focus, the rest of the screen built) keeps them."""

    def _keys_shown(self) -> tuple[object, ...]:
        return tuple(
            (binding.key, binding.description, enabled, tooltip)
            for (_, binding, enabled, tooltip) in self.screen.active_bindings.values()
            if binding.show
        )

    def compose(self) -> ComposeResult:
        self._shown = self._keys_shown()
        for widget in super().compose():
            if isinstance(widget, FooterKey) and not widget.has_class("-command-palette"):
                # Made as compact as the footer it is bound to: made compact, then bound to
                # the footer's style, a key restyled itself twice before the first frame.
                # (The palette's key is not bound: it stays as Textual makes it.)
                widget.set_reactive(FooterKey.compact, self.compact)
            yield widget

    def bindings_changed(self, screen: Screen[object]) -> None:
        if screen is self.screen and self._keys_shown() == self._shown:
            return
        super().bindings_changed(screen)


class RunScreen(Screen[None]):
    """The run form beside the live panes of the current (or last) run."""

    DEFAULT_CSS = """
    RunScreen { layout: horizontal; }
    RunScreen #form { width: 38; border-right: vkey $foreground 20%; }
    """

    AUTO_FOCUS = ""
    """No widget is focused by Textual: the question box takes the focus on mount, so what
    is typed first is the question (the first focusable widget was the form's column, or
    its offline button)."""

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
            "ctrl+s",  # not ctrl+y: the question box, focused as the screen opens, takes it
            "copy_output",
            "Copy output",
            id="run.copy_output",
            tooltip="Copy the current output to the clipboard",
            show=False,
        ),
    ]

    class RunStateChanged(Message, bubble=False):
        """The screen's run entered ``state``: starting, running or cancelling."""

        def __init__(self, handle: RunHandle, state: RunState) -> None:
            super().__init__()
            self.handle = handle
            self.state = state

    class RunEnded(Message, bubble=False):
        """The screen's run finished; ``ending`` says how."""

        def __init__(self, handle: RunHandle, ending: RunEnding) -> None:
            super().__init__()
            self.handle = handle
            self.ending = ending

    run_state: var[RunState | None] = var[RunState | None](None, bindings=True)
    """The state of the current (or last) run as the screen last heard; ``None`` before
    the first run. The footer's start and cancel keys follow it."""

    def __init__(self) -> None:
        super().__init__()
        self.buffer = EventBuffer()
        self.handle: RunHandle | None = None
        """The current (or last) run."""
        self._next_run: tuple[RequestMaker, Path | None] | None = None
        """A run waiting for the current one to stop (a re-run asked for while it went)."""
        self._checking_spend = False
        """A start is waiting for its estimate, to ask first if it may pass a cap."""
        self.whole = False
        """Whether the rest of the form and the monitor's panes are built."""
        self._building = False
        self._when_whole: list[Callable[[], object]] = []
        """What waits for the screen to be whole, in order."""
        self._opened = False
        """Whether the screen has been shown once (Textual's first ``ScreenResume``)."""

    def compose(self) -> ComposeResult:
        yield RunForm(id="form")
        yield RunMonitor(id="monitor")
        yield RunFooter()

    def on_screen_resume(self, event: events.ScreenResume) -> None:
        # The first resume is the screen opening: each of its widgets was styled a moment ago,
        # as it was mounted, with the stylesheet as it is (what changed since, as the focus,
        # restyled itself). Textual would style them all again before the first frame, as it
        # does not when the screen comes back from under a modal. Later resumes, after
        # another mode's screen was shown, restyle as Textual does.
        if not self._opened:
            self._opened = True
            event.refresh_styles = False

    def on_mount(self) -> None:
        # Without scrolling: the form's column stays where it opened.
        self.set_focus(self.form.query_one("#query"), scroll_visible=False)
        # Once the terminal has the app's first frame: a callback after the screen's first
        # refresh ran before that frame was written, and the first frame waited for it all.
        after_first_frame = getattr(self.app, "after_first_frame", None)
        if after_first_frame is None:  # an app without the hook
            self.call_after_refresh(self._compose_rest)
        else:
            after_first_frame(self.first_frame_shown)

    def first_frame_shown(self) -> None:
        """The app's first frame is on the terminal: build the rest once what its widgets
        set on mount (the placeholder, the status) is painted too."""
        if not self.whole and not self._building:
            self.call_after_refresh(self._compose_rest)

    async def _compose_rest(self) -> None:
        """Build what the first frame left out, in one update of the screen, then do what
        waited for it."""
        if self._building:
            return
        self._building = True
        try:
            context = app_context(self.app)
            with self.app.batch_update():
                await self.form.compose_rest(context.settings, context.missing_keys)
                await self.monitor.compose_panes()
        except (NoMatches, MountError):
            parts = [*self.query(RunForm), *self.query(RunMonitor)]
            if len(parts) == 2 and all(part.is_attached for part in parts):
                raise
            return  # The screen is being taken down (the app quit at once): nothing to build.
        self.whole = True
        # From now: before, there were no panes to feed nor a run to time.
        self.set_interval(1 / DRAIN_HZ, self.drain)
        self.set_interval(1.0, self.monitor.tick)
        waiting, self._when_whole = self._when_whole, []
        for callback in waiting:
            callback()
        self.call_after_refresh(tell_screen_whole)

    def when_whole(self, callback: Callable[[], object]) -> None:
        """Call ``callback`` now if the screen is whole, else once it is."""
        if self.whole:
            callback()
        else:
            self._when_whole.append(callback)

    def on_key(self, event: events.Key) -> None:
        """A key typed while the screen opened came to the screen itself, nothing having the
        focus yet: the question box, which has it now, takes what was typed."""
        question = self.form.query_one("#query", TextArea)
        if self.focused is question and event.is_printable and event.character:
            question.insert(event.character)
            event.stop()

    @property
    def monitor(self) -> RunMonitor:
        return self.query_one(RunMonitor)

    @property
    def form(self) -> RunForm:
        return self.query_one(RunForm)

    @property
    def running(self) -> bool:
        return self.run_state is not None and self.run_state.active

    def drain(self) -> None:
        """Feed what the run emitted since the last call to the panes."""
        if not self.whole:
            return
        events = self.buffer.drain(MAX_EVENTS_PER_DRAIN)
        if events:
            self.monitor.feed(events)
        self.monitor.flush()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # None: shown, dimmed. A run being cancelled cannot be cancelled again.
        if action == "cancel_run":
            return True if self.run_state in (RunState.STARTING, RunState.RUNNING) else None
        if action == "start_run":
            return None if self.running else True
        return True

    def action_start_run(self) -> None:
        """Start the form's run; when it is expected to reach the cost or token cap, ask
        first (the estimate is the form's, or made now in a thread: no model is called)."""
        if self._checking_spend:
            return
        if not self.whole:  # a key pressed as the app opened: start once the form is there
            self.when_whole(self.action_start_run)
            return
        try:
            values = self.form.values()
        except RunFormError as exc:
            self.notify(str(exc), title="Cannot start", severity="error")
            return
        settings = app_context(self.app).settings
        if settings.cost_cap_usd is None and settings.token_cap is None:
            self._start_form_run(values, settings)  # no cap to pass
            return
        known = self.form.estimate_view.estimate_of(values)
        if known is not None:
            self._confirm_spend(values, settings, known)
            return
        self._checking_spend = True
        self.run_worker(
            partial(self._estimate_for_start, values, settings),
            thread=True,
            group="start-estimate",
            exit_on_error=False,
        )

    def _estimate_for_start(self, values: RunFormValues, settings: Settings) -> None:
        """In a thread: the estimate of the run about to start (``None`` if it cannot be
        made: the run then says what is wrong itself)."""
        from ralph_tui.tui.core.requests import form_estimate

        estimate: RunEstimate | None
        try:
            estimate = form_estimate(values, settings)
        except Exception:  # the run reports the same problem as it starts
            estimate = None
        with contextlib.suppress(RuntimeError):  # the app closed meanwhile
            self.app.call_from_thread(self._confirm_spend, values, settings, estimate)

    def _confirm_spend(
        self, values: RunFormValues, settings: Settings, estimate: RunEstimate | None
    ) -> None:
        self._checking_spend = False
        if estimate is None or estimate.cap_warning() is None:
            self._start_form_run(values, settings)
            return
        from ralph_tui.tui.screens.confirm_spend import ConfirmSpend

        def chosen(start: bool | None) -> None:
            if start:
                self._start_form_run(values, settings)

        self.app.push_screen(ConfirmSpend(estimate), chosen)

    def _start_form_run(self, values: RunFormValues, settings: Settings) -> None:
        from ralph_tui.tui.core.requests import form_request

        self.start(lambda: form_request(values, settings), doc_path=values.doc_path)

    def start(
        self, make_request: RequestMaker, doc_path: Path | None = None, replacing: bool = False
    ) -> bool:
        """Start a run of the request ``make_request`` builds. While a run goes, refuse
        (false), or with ``replacing`` cancel it and start this one once it has ended."""
        if not self.whole:
            self.when_whole(partial(self.start, make_request, doc_path, replacing))
            return True
        if self.running:
            if not replacing:
                self.notify("A run is going: cancel it first (ctrl+g).", severity="warning")
                return False
            self._next_run = (make_request, doc_path)
            self.action_cancel_run()
            return True
        self.buffer = EventBuffer()
        self.monitor.reset()
        if doc_path is not None:
            self.monitor.use_document(doc_path)
        self.handle = RunHandle(
            make_request, app_context(self.app).runner, self.buffer.push, self._tell
        )
        self.handle.start()
        self.run_state = self.handle.state  # At once: a second start now is refused.
        if self.size.width < WIDE_SCREEN:
            self.form.display = False  # Give the panes the room on a narrow terminal.
        return True

    def action_cancel_run(self) -> None:
        """The one way the screen stops a run: the cancel key, a re-run over it, quitting."""
        if self.handle is not None and self.handle.cancel():
            self.notify("Cancelling: the run stops at its next step.")

    def on_unmount(self) -> None:
        if self.handle is not None:
            self.handle.cancel(grace_s=0.0)  # The app is closing: stop the run now.

    def _tell(self, handle: RunHandle, state: RunState) -> None:
        """The handle's ``on_change``, from the run's thread or this one: post it as a message."""
        if state is RunState.FINISHED:
            assert handle.ending is not None
            message: Message = self.RunEnded(handle, handle.ending)
        else:
            message = self.RunStateChanged(handle, state)
        # The app's loop may have closed (the app quit mid-run): nobody is left to tell.
        with contextlib.suppress(RuntimeError):
            self.post_message(message)

    def watch_run_state(self, state: RunState | None) -> None:
        """Show the states the run's events do not: starting (before its session exists)
        and cancelling."""
        if state is not None and state in STATE_NOTES:
            self.monitor.show_lifecycle(state, STATE_NOTES[state])

    def on_run_screen_run_state_changed(self, message: RunStateChanged) -> None:
        # The handle is the truth: a message about a state it has left since (its STARTING,
        # posted as it was made, reaching the screen after a quick run's events were drained)
        # would put "starting" back over the status the events reported.
        if message.handle is self.handle and message.state is self.handle.state:
            self.run_state = message.state

    def on_run_screen_run_ended(self, message: RunEnded) -> None:
        if message.handle is not self.handle:
            return
        self.drain()
        self.run_state = RunState.FINISHED
        self._show_ending(message.ending)
        if self._next_run is not None:
            make_request, doc_path = self._next_run
            self._next_run = None
            self.start(make_request, doc_path)

    def _show_ending(self, ending: RunEnding) -> None:
        """Say how the run ended: a notification, or the error modal with what it offers."""
        error = ending.error
        if ending.outcome is None:  # No session said how it ended: the status line says so.
            self.monitor.show_outcome("error" if error else "cancelled", ending.summary())
        if error is None:
            passed = ending.status == "passed"
            self.notify(ending.summary(), severity="information" if passed else "warning")
            if passed and self.form.provider == "offline":
                self.form.drop_keys_warning()
            return
        if ending.outcome is None:
            self.form.display = True  # Nothing ran: let the user fix the form.
        from ralph_tui.tui.screens.error_modal import show_error

        show_error(self.app, error, error_actions(error.exit_code), self._error_action)

    def _error_action(self, chosen: ErrorAction) -> Awaitable[object]:
        return self.run_action(chosen.action)

    def action_use_offline(self) -> None:
        self.form.prefill(provider="offline")
        self.notify("Provider set to offline: start the run again (ctrl+r).")

    def palette_commands(self) -> list[tuple[str, str]]:
        """Actions offered in the command palette without a key of their own."""
        return [("Copy the highlighted evidence quote", "copy_evidence")]

    def action_toggle_form(self) -> None:
        # Toggle the widget, not a screen class: a class change restyles the whole screen.
        self.form.display = not self.form.display
        if self.form.display:
            self.form.query_one("#query").focus()

    def action_choose_document(self) -> None:
        from ralph_tui.tui.screens.file_picker import FilePicker

        typed = Path(self.form.document_text or ".").expanduser()
        start = typed if typed.is_dir() else typed.parent
        self.app.push_screen(FilePicker(start.resolve()), self._document_chosen)

    def _document_chosen(self, path: Path | None) -> None:
        if path is not None:
            self.form.set_document(path)

    def action_copy_output(self) -> None:
        if self.whole:
            self.monitor.output.action_copy_output()

    def action_copy_evidence(self) -> None:
        if self.whole:
            self.monitor.output.action_copy_quote()

    def on_run_form_start_requested(self, _message: RunForm.StartRequested) -> None:
        self.action_start_run()

    def on_run_form_browse_requested(self, _message: RunForm.BrowseRequested) -> None:
        self.action_choose_document()

    def on_output_pane_quote_chosen(self, message: OutputPane.QuoteChosen) -> None:
        from ralph_tui.tui.screens.evidence_modal import EvidenceModal

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
        from ralph_tui.tui.screens.summary_modal import SummaryModal

        store = Path(message.store) if message.store else None
        self.app.push_screen(SummaryModal(message.node, store))

    def on_retrieval_pane_passage_chosen(self, message: RetrievalPane.PassageChosen) -> None:
        from ralph_tui.tui.screens.passage_modal import PassageModal

        output = self.monitor.output
        self.app.push_screen(
            PassageModal(message.passage, output.document, output.corpus, output.external)
        )

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        forward_worker_error(self.app, event)
