"""The app's messages for a run, in order: started, cancelled, finished, re-run over a run.

Every message the app handles is recorded with ``run_test(message_hook=...)``; the run's
own (``RunScreen.RunStateChanged``, ``RunScreen.RunEnded``) must come in the order of the
run's life, and the screen's keys follow them.
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import pytest
from textual.message import Message

from ralph_tui.events import Emit, RunFinished, RunStarted, UsageUpdated
from ralph_tui.loops.runner import RunOutcome, RunRequest
from ralph_tui.traces.store import TraceStore
from ralph_tui.tui.app import RalphApp
from ralph_tui.tui.core.run_handle import RunState
from ralph_tui.tui.screens.error_modal import ErrorModal
from ralph_tui.tui.screens.run_screen import RunScreen
from ralph_tui.tui.screens.session_screen import RerunRequested
from tests.tui.conftest import MakeApp, wait_for
from tests.tui.scripted import DOC_NAME, QUESTION, outcome, scripted_runner

SIZE = (100, 30)
SESSION = "2026-01-01/qa-c0c0c0c0"
IDLE = {"start_run": True, "cancel_run": False}


class Lifecycle:
    """The message hook: the run messages the app handled, as short names, in order."""

    def __init__(self) -> None:
        self.names: list[str] = []

    def __call__(self, message: Message) -> None:
        if isinstance(message, RunScreen.RunStateChanged):
            self.names.append(message.state.value)
        elif isinstance(message, RunScreen.RunEnded):
            self.names.append(f"ended {message.ending.status}")


def run_screen(app: RalphApp) -> RunScreen:
    screen = app.screen
    assert isinstance(screen, RunScreen)
    return screen


def keys(screen: RunScreen) -> dict[str, bool]:
    """Whether each of the screen's run keys is enabled now (a disabled one shows dimmed)."""
    shown = {item.binding.action: item.enabled for item in screen.active_bindings.values()}
    return {action: shown[action] for action in ("start_run", "cancel_run")}


def notes_of(app: RalphApp, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    notes: list[str] = []
    monkeypatch.setattr(app, "notify", lambda message, **_kw: notes.append(message))
    return notes


async def test_a_run_that_passes_is_started_running_then_ended(
    make_app: MakeApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    lifecycle = Lifecycle()
    app = make_app(runner=scripted_runner(SESSION))
    async with app.run_test(size=SIZE, message_hook=lifecycle) as pilot:
        notes = notes_of(app, monkeypatch)
        screen = run_screen(app)
        assert keys(screen) == IDLE
        screen.form.prefill(query=QUESTION, doc=Path(DOC_NAME))
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: screen.run_state is RunState.FINISHED)
        assert lifecycle.names == ["starting", "running", "ended passed"]
        assert keys(screen) == IDLE
        assert notes == [f"Run passed: {SESSION} (2 iterations recorded)."]
        assert screen.monitor.progress.outcome == "passed"


class SlowToStop:
    """A run that opens its session when the test lets it (``go``) and, once asked to stop,
    stops when the test lets it (``release``); like the real runner it records its session
    as cancelled."""

    def __init__(self, held: bool = True) -> None:
        self.go = threading.Event()
        self.release = threading.Event()
        if not held:
            self.go.set()
            self.release.set()

    async def __call__(self, request: RunRequest, emit: Emit, cancel: asyncio.Event) -> RunOutcome:
        while not self.go.is_set():
            await asyncio.sleep(0.01)
        emit(
            RunStarted(
                session_id=SESSION,
                mode="qa",
                query=request.query,
                doc_path=str(request.doc_path),
                doc_chars=1,
                max_iters=3,
                generate_model="test",
                validate_model="test",
            )
        )
        emit(
            UsageUpdated(session_id=SESSION, input_tokens=10, output_tokens=2, calls=1, cost_usd=0)
        )
        await cancel.wait()
        while not self.release.is_set():
            await asyncio.sleep(0.01)
        emit(RunFinished(session_id=SESSION, status="cancelled", iterations=1))
        return outcome("cancelled", SESSION, 1)


async def test_a_cancelled_run_goes_through_cancelling_and_shows_its_real_outcome(
    make_app: MakeApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    lifecycle = Lifecycle()
    runner = SlowToStop()
    app = make_app(runner=runner)
    async with app.run_test(size=SIZE, message_hook=lifecycle) as pilot:
        notes = notes_of(app, monkeypatch)
        screen = run_screen(app)
        screen.form.prefill(query="anything", doc=Path(DOC_NAME))
        await pilot.press("ctrl+r")
        assert screen.run_state is RunState.STARTING
        await wait_for(pilot, lambda: screen.monitor.progress.lifecycle is RunState.STARTING)
        assert keys(screen) == {"start_run": False, "cancel_run": True}
        runner.go.set()
        await wait_for(pilot, lambda: screen.monitor.progress.outcome == "running")
        assert screen.run_state is RunState.RUNNING
        assert keys(screen) == {"start_run": False, "cancel_run": True}
        await pilot.press("ctrl+g")
        await wait_for(pilot, lambda: screen.run_state is RunState.CANCELLING)
        assert keys(screen) == {"start_run": False, "cancel_run": False}  # Under way.
        progress = screen.monitor.progress
        assert (progress.lifecycle, progress.outcome, progress.session_id) == (
            RunState.CANCELLING,
            "running",
            SESSION,
        )
        await pilot.press("ctrl+g")  # A second press changes nothing.
        runner.release.set()
        await wait_for(pilot, lambda: screen.run_state is RunState.FINISHED)
        assert lifecycle.names == ["starting", "running", "cancelling", "ended cancelled"]
        assert keys(screen) == IDLE
        assert notes == [
            "Cancelling: the run stops at its next step.",
            f"Run cancelled: {SESSION} (1 iteration recorded).",
        ]
        assert (progress.outcome, progress.session_id) == ("cancelled", SESSION)


async def test_a_rerun_over_a_running_run_cancels_it_first(
    make_app: MakeApp, fixture_sessions: dict[str, str], out_dir: Path
) -> None:
    """The re-run goes through the one cancel path, then starts once the run has ended."""
    requests: list[RunRequest] = []
    replay = scripted_runner()

    async def runner(request: RunRequest, emit: Emit, cancel: asyncio.Event) -> RunOutcome:
        requests.append(request)
        if request.parent_session_id is None:
            return await SlowToStop(held=False)(request, emit, cancel)
        return await replay(request, emit, cancel)  # type: ignore[no-any-return,operator]

    lifecycle = Lifecycle()
    app = make_app(runner=runner)
    async with app.run_test(size=SIZE, message_hook=lifecycle) as pilot:
        screen = run_screen(app)
        screen.form.prefill(query="anything", doc=Path(DOC_NAME))
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: screen.run_state is RunState.RUNNING)
        parent = TraceStore(out_dir).load_session(fixture_sessions["main"])
        app.post_message(RerunRequested(parent, ["Name the head-loss trigger."]))
        await wait_for(pilot, lambda: len(lifecycle.names) == 7)
        await wait_for(pilot, lambda: not screen.running)
        assert lifecycle.names == [
            *("starting", "running", "cancelling", "ended cancelled"),
            *("starting", "running", "ended passed"),
        ]
        assert [r.parent_session_id for r in requests] == [None, parent.session_id]
        assert requests[1].constraints == ["Name the head-loss trigger."]


async def test_quitting_takes_the_cancel_path_and_the_run_ends_cancelled(
    make_app: MakeApp,
) -> None:
    async def records_when_stopped(
        request: RunRequest, emit: Emit, cancel: asyncio.Event
    ) -> RunOutcome:
        emit(
            RunStarted(
                session_id=SESSION,
                mode="qa",
                query="q",
                doc_path="d",
                doc_chars=1,
                max_iters=1,
                generate_model="test",
                validate_model="test",
            )
        )
        try:
            await asyncio.sleep(60)  # Deaf to the cancel event: only a hard stop ends it.
        except asyncio.CancelledError:
            emit(RunFinished(session_id=SESSION, status="cancelled", iterations=0))
            raise
        return outcome("passed", SESSION)

    lifecycle = Lifecycle()
    app = make_app(runner=records_when_stopped)
    async with app.run_test(size=SIZE, message_hook=lifecycle) as pilot:
        screen = run_screen(app)
        screen.form.prefill(query="anything", doc=Path(DOC_NAME))
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: screen.run_state is RunState.RUNNING)
        handle = screen.handle
        await pilot.press("ctrl+q")
    assert handle is not None and await asyncio.to_thread(handle.join, 5)
    assert lifecycle.names == ["starting", "running"]  # The app had closed before the end.
    ending = handle.ending
    assert ending is not None and (ending.status, ending.session_id) == ("cancelled", SESSION)


async def test_a_crashed_outcome_opens_the_error_modal_with_its_error(make_app: MakeApp) -> None:
    async def crashed(request: RunRequest, emit: Emit, cancel: asyncio.Event) -> RunOutcome:
        ended = outcome("crashed", SESSION, 0)
        ended.error = "unexpected KeyError: 'answer' (a bug in ralph-tui: please report it)"
        return ended

    lifecycle = Lifecycle()
    app = make_app(runner=crashed)
    async with app.run_test(size=SIZE, message_hook=lifecycle) as pilot:
        screen = run_screen(app)
        screen.form.prefill(query="anything", doc=Path(DOC_NAME))
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: isinstance(app.screen, ErrorModal))
        modal: Any = app.screen
        assert lifecycle.names == ["starting", "ended crashed"]
        assert modal.error.title == "Unexpected error"
        assert "KeyError: 'answer'" in modal.message
        assert [str(button.id) for button in modal.query("Button")] == ["close"]
