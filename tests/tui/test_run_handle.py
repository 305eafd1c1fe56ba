"""A run's handle without the app: its states in order, its one cancel path, its ending."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest

from ralph_tui.config import Settings
from ralph_tui.documents import InputError
from ralph_tui.errors import ExitCode, InternalError, ProviderError
from ralph_tui.events import (
    BaseEvent,
    Emit,
    IterationStarted,
    RunFinished,
    RunStarted,
    UsageUpdated,
)
from ralph_tui.llm.usage import UsageSnapshot
from ralph_tui.loops.runner import RunOutcome, RunRequest
from ralph_tui.sample import sample_document
from ralph_tui.traces.store import TraceStore
from ralph_tui.tui.core.run_ending import RunEnding
from ralph_tui.tui.core.run_handle import RunHandle, Runner, RunState, real_runner
from tests.tui.scripted import outcome

SESSION = "2026-01-01/qa-0a0a0a0a"
FINISHED = RunState.FINISHED


def started(session_id: str = SESSION) -> RunStarted:
    return RunStarted(
        session_id=session_id,
        mode="qa",
        query="q",
        doc_path="doc.md",
        doc_chars=1,
        max_iters=3,
        generate_model="test",
        validate_model="test",
    )


class Recorder:
    """The handle's ``on_change`` and ``emit``: every state told, every event passed on."""

    def __init__(self) -> None:
        self.states: list[RunState] = []
        self.events: list[BaseEvent] = []
        self.reached: dict[RunState, threading.Event] = {s: threading.Event() for s in RunState}

    def on_change(self, handle: RunHandle, state: RunState) -> None:
        assert handle.state is state
        self.states.append(state)
        self.reached[state].set()

    def handle(self, runner: Runner, make_request: object = None) -> RunHandle:
        make = make_request if callable(make_request) else (lambda: None)
        return RunHandle(make, runner, self.events.append, self.on_change)  # type: ignore[arg-type]

    def wait_for(self, state: RunState) -> None:
        assert self.reached[state].wait(5), f"the run never became {state}"


async def passes(request: RunRequest, emit: Emit, cancel: asyncio.Event) -> RunOutcome:
    emit(started())
    emit(RunFinished(session_id=SESSION, status="passed", iterations=2))
    return outcome("passed", SESSION, 2)


def test_a_run_goes_starting_running_finished_and_passes_its_events_on() -> None:
    seen = Recorder()
    handle = seen.handle(passes)
    assert handle.state is RunState.STARTING and handle.ending is None
    ending = handle.run()
    assert seen.states == [RunState.STARTING, RunState.RUNNING, FINISHED]
    assert [type(e) for e in seen.events] == [RunStarted, RunFinished]
    assert handle.ending is ending and ending.error is None
    assert ending.outcome is not None and ending.status == "passed"
    assert ending.summary() == f"Run passed: {SESSION} (2 iterations recorded)."


async def stops_when_asked(request: RunRequest, emit: Emit, cancel: asyncio.Event) -> RunOutcome:
    emit(started())
    await cancel.wait()
    emit(RunFinished(session_id=SESSION, status="cancelled", iterations=1))
    return outcome("cancelled", SESSION, 1)


def test_a_cancelled_run_goes_through_cancelling_and_ends_with_its_outcome() -> None:
    seen = Recorder()
    handle = seen.handle(stops_when_asked)
    handle.start()
    seen.wait_for(RunState.RUNNING)
    assert handle.cancel() is True
    assert handle.join(5)
    assert seen.states == [RunState.STARTING, RunState.RUNNING, RunState.CANCELLING, FINISHED]
    ending = handle.ending
    assert ending is not None and ending.error is None
    assert (ending.status, ending.session_id) == ("cancelled", SESSION)
    assert ending.summary() == f"Run cancelled: {SESSION} (1 iteration recorded)."
    assert handle.cancel() is False  # Finished: nothing to cancel, nothing told.
    assert seen.states[-1] is FINISHED and len(seen.states) == 4


def test_cancel_before_start_runs_nothing() -> None:
    calls: list[RunRequest] = []

    async def must_not_run(request: RunRequest, emit: Emit, cancel: asyncio.Event) -> RunOutcome:
        calls.append(request)
        raise AssertionError("a run cancelled before it started must not run")

    seen = Recorder()
    handle = seen.handle(must_not_run)
    assert handle.cancel() is True
    handle.start()
    assert handle.join(5)
    assert calls == []
    assert seen.states == [RunState.STARTING, RunState.CANCELLING, FINISHED]
    ending = handle.ending
    assert ending is not None and ending.outcome is None and ending.error is None
    assert (
        ending.status == "cancelled"
        and ending.summary() == "Run cancelled: no outcome was recorded."
    )


def test_cancelling_twice_is_one_cancel_and_the_shorter_grace_stops_it_hard() -> None:
    """A runner deaf to the cancel event is stopped hard after the grace; like the real
    runner, it records the session as cancelled on the way out, and that is its ending."""

    async def deaf(request: RunRequest, emit: Emit, cancel: asyncio.Event) -> RunOutcome:
        emit(started())
        emit(
            UsageUpdated(
                session_id=SESSION, input_tokens=700, output_tokens=70, calls=2, cost_usd=0.01
            )
        )
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            emit(RunFinished(session_id=SESSION, status="cancelled", iterations=1))
            raise
        return outcome("passed", SESSION)

    seen = Recorder()
    handle = seen.handle(deaf)
    handle.start()
    seen.wait_for(RunState.RUNNING)
    assert handle.cancel(grace_s=60) is True
    assert handle.cancel(grace_s=0.05) is False  # Already cancelling: only the grace shrinks.
    assert handle.join(5), "the shorter grace was not used"
    assert seen.states == [RunState.STARTING, RunState.RUNNING, RunState.CANCELLING, FINISHED]
    ending = handle.ending
    assert ending is not None and ending.outcome is not None and ending.error is None
    recorded = ending.outcome
    assert (recorded.status, recorded.session_id, recorded.iterations) == ("cancelled", SESSION, 1)
    assert (recorded.usage.input_tokens, recorded.usage.calls) == (700, 2)


def test_a_runner_that_raises_finishes_with_the_error() -> None:
    async def crashes(request: RunRequest, emit: Emit, cancel: asyncio.Event) -> RunOutcome:
        raise ValueError("boom")

    seen = Recorder()
    ending = seen.handle(crashes).run()
    assert seen.states == [RunState.STARTING, FINISHED]
    assert ending.outcome is None and isinstance(ending.error, InternalError)
    assert "unexpected ValueError: boom" in str(ending.error)
    assert ending.status == "crashed" and ending.error.exit_code is ExitCode.INTERNAL


def test_a_request_that_cannot_be_built_finishes_rejected() -> None:
    def bad_request() -> RunRequest:
        raise InputError("document not found: nowhere.md")

    seen = Recorder()
    ending = seen.handle(passes, bad_request).run()
    assert seen.states == [RunState.STARTING, FINISHED] and seen.events == []
    assert isinstance(ending.error, InputError) and ending.status == "rejected"
    assert ending.summary() == "Bad input: document not found: nowhere.md"


@pytest.mark.parametrize(
    ("status", "kind"), [("error", ProviderError), ("crashed", InternalError), ("failed", None)]
)
def test_an_outcome_brings_the_error_kind_of_its_status(
    status: str, kind: type[Exception] | None
) -> None:
    nothing = UsageSnapshot(0, 0, 0, 0.0, 0, None)
    ending = RunEnding.of_outcome(RunOutcome(status, SESSION, 1, None, nothing, error="it broke"))  # type: ignore[arg-type]
    if kind is None:
        assert ending.error is None
    else:
        assert type(ending.error) is kind and str(ending.error) == "it broke"
        assert ending.error.hint == ""  # The recorded line already holds any hint.


def test_cancelling_a_real_offline_run_ends_with_the_session_it_recorded(tmp_path: Path) -> None:
    settings = Settings(_env_file=None, out_dir=tmp_path / "out", provider="offline")  # type: ignore[call-arg]
    request = RunRequest(
        mode="qa",
        query="How often are the filters backwashed?",
        doc_path=sample_document(),
        settings=settings,
    )
    seen = Recorder()
    handle: RunHandle | None = None

    def cancel_at_first_iteration(event: BaseEvent) -> None:
        seen.events.append(event)
        if isinstance(event, IterationStarted) and handle is not None:
            handle.cancel()

    handle = RunHandle(lambda: request, real_runner, cancel_at_first_iteration, seen.on_change)
    ending = handle.run()
    assert seen.states == [RunState.STARTING, RunState.RUNNING, RunState.CANCELLING, FINISHED]
    assert ending.status == "cancelled" and ending.session_id and ending.error is None
    record = TraceStore(tmp_path / "out").load_session(ending.session_id)
    assert record.status == "cancelled"
    assert isinstance(seen.events[-1], RunFinished) and seen.events[-1].status == "cancelled"


def test_the_summary_says_what_a_run_kept() -> None:
    nothing = UsageSnapshot(0, 0, 0, 0.0, 0, None)
    best = {"answer": "- a", "evidence": []}
    timed_out = RunEnding.of_outcome(RunOutcome("timed_out", SESSION, 3, best, nothing))
    assert timed_out.summary() == (
        f"Run timed out: {SESSION} (3 iterations recorded; its best candidate is shown)."
    )
