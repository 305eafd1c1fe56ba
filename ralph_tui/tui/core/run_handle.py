"""One run of the app: its thread, its one state, its one cancel path and how it ended.

A run is ``STARTING`` (its request built, its documents read) until the runner emits
``RunStarted`` (its session exists), then ``RUNNING``; ``cancel()`` makes it
``CANCELLING``; it is ``FINISHED`` once its ending is known. The state lives here alone:
whoever shows it is told of every state the run enters, in order, through ``on_change``
(``STARTING`` as the handle is made).

The run does blocking work between awaits (trace files, the index, validation), so it
gets an event loop of its own in a thread: the UI's loop never waits on it. Cancelling sets
the run's cancel event (the loops stop at their next await) and, if the run is still going
after a grace period, cancels its task. Either way the runner records the session as
cancelled, so a cancelled run ends with the outcome its session recorded.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Awaitable, Callable
from enum import StrEnum
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ralph_tui.events import BaseEvent, Emit, RunFinished, UsageUpdated
    from ralph_tui.loops.runner import RunOutcome, RunRequest
    from ralph_tui.tui.core.run_ending import RunEnding

Runner = Callable[["RunRequest", "Emit", asyncio.Event], Awaitable["RunOutcome"]]
"""Runs a request to its end: ``execute_run`` in the app, a stand-in in tests."""

CANCEL_GRACE_S = 3.0
"""How long a cancelled run may take to reach a clean stop before its task is cancelled."""


async def real_runner(request: RunRequest, emit: Emit, cancel: asyncio.Event) -> RunOutcome:
    """The loops' ``execute_run``, imported on first use so the app paints without it."""
    from ralph_tui.loops.runner import execute_run

    return await execute_run(request, on_event=emit, cancel=cancel)


class RunState(StrEnum):
    """Where a run is in its life."""

    STARTING = "starting"
    RUNNING = "running"
    CANCELLING = "cancelling"
    FINISHED = "finished"

    @property
    def active(self) -> bool:
        """Whether the run is still going (and a new one must wait)."""
        return self is not RunState.FINISHED


NEXT_STATES: dict[RunState, frozenset[RunState]] = {
    RunState.STARTING: frozenset({RunState.RUNNING, RunState.CANCELLING, RunState.FINISHED}),
    RunState.RUNNING: frozenset({RunState.CANCELLING, RunState.FINISHED}),
    RunState.CANCELLING: frozenset({RunState.FINISHED}),
    RunState.FINISHED: frozenset(),
}
"""The states a run may move to from each state; any other move is ignored."""

OnChange = Callable[["RunHandle", RunState], None]


class RunHandle:
    """One run, from ``start()`` to its ``ending``; ``cancel()`` from any thread.

    ``make_request`` builds the request on the run's thread (it imports the loops);
    ``emit`` gets every event the run emits; ``on_change`` is called for every state the
    run enters, from whichever thread moved it, with the handle's lock held so calls
    arrive in order: it must return at once and must not call back into the handle.
    """

    def __init__(
        self,
        make_request: Callable[[], RunRequest],
        runner: Runner,
        emit: Emit,
        on_change: OnChange | None = None,
    ) -> None:
        self._make_request = make_request
        self._runner = runner
        self._emit = emit
        self._on_change = on_change
        self._lock = threading.Lock()
        self._state = RunState.STARTING
        self._ending: RunEnding | None = None
        self._grace_s: float | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._cancel: asyncio.Event | None = None
        self._task: asyncio.Task[RunOutcome] | None = None
        self._thread: threading.Thread | None = None
        self._finished: RunFinished | None = None
        self._usage: UsageUpdated | None = None
        self._tell(RunState.STARTING)

    @property
    def state(self) -> RunState:
        return self._state

    @property
    def ending(self) -> RunEnding | None:
        """How the run ended; ``None`` until it is ``FINISHED``."""
        return self._ending

    def start(self) -> None:
        """Run in a thread of its own. The thread is not a daemon: the process waits for
        the run to close its session, and quitting the app cancels the run first."""
        if self._thread is not None:
            raise RuntimeError("a run handle starts once")
        self._thread = threading.Thread(target=self.run, name="ralph-run")
        self._thread.start()

    def join(self, timeout: float | None = None) -> bool:
        """Wait for the thread ``start()`` began; whether the run has finished."""
        if self._thread is not None:
            self._thread.join(timeout)
        return self._state is RunState.FINISHED

    def run(self) -> RunEnding:
        """Run to the end on the calling thread and return how it ended."""
        # Imported with the first run: the app's first frame does without it.
        from ralph_tui.tui.core.run_ending import RunEnding

        try:
            ending = asyncio.run(self._main())
        except BaseException as exc:
            self._finish(RunEnding.of_error(exc))
            raise
        self._finish(ending)
        return ending

    def cancel(self, grace_s: float = CANCEL_GRACE_S) -> bool:
        """The one way a run is stopped: ask it to stop, and after ``grace_s`` seconds stop
        it hard. A later call may shorten the grace. Whether this call began cancelling."""
        with self._lock:
            if self._state is RunState.FINISHED:
                return False
            self._grace_s = grace_s if self._grace_s is None else min(self._grace_s, grace_s)
            began = self._move(RunState.CANCELLING)
            loop = self._loop
        if loop is not None:
            # The run's loop may close between the check and the call: the run is then over.
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(self._start_cancelling)
        return began

    async def _main(self) -> RunEnding:
        from ralph_tui.tui.core.run_ending import RunEnding

        try:
            request = self._make_request()
        except Exception as exc:
            return RunEnding.of_error(exc)
        with self._lock:
            if self._state is RunState.CANCELLING:
                return RunEnding(None)  # Cancelled before it started: nothing to run.
            self._cancel = asyncio.Event()
            self._task = asyncio.ensure_future(self._runner(request, self._observe, self._cancel))
            self._loop = asyncio.get_running_loop()
        try:
            return RunEnding.of_outcome(await self._task)
        except asyncio.CancelledError:
            return RunEnding(self._recorded())
        except Exception as exc:
            return RunEnding.of_error(exc, self._recorded())
        finally:
            with self._lock:
                self._loop = None

    def _observe(self, event: BaseEvent) -> None:
        """Pass ``event`` on, noting what it says of the run: that its session started,
        what it has spent, how its session recorded its end."""
        from ralph_tui.events import RunFinished, RunStarted, UsageUpdated

        self._emit(event)
        if isinstance(event, RunStarted):
            self._advance(RunState.RUNNING)
        elif isinstance(event, UsageUpdated):
            self._usage = event
        elif isinstance(event, RunFinished):
            self._finished = event

    def _recorded(self) -> RunOutcome | None:
        """The outcome the run's session recorded, if the run got as far as recording one."""
        if self._finished is None:
            return None
        from ralph_tui.tui.core.run_ending import recorded_outcome

        return recorded_outcome(self._finished, self._usage)

    def _start_cancelling(self) -> None:
        """On the run's loop: set the cancel event, and schedule the hard stop."""
        if self._cancel is None or self._task is None:
            return
        self._cancel.set()
        asyncio.get_running_loop().call_later(self._grace_s or 0.0, self._task.cancel)

    def _finish(self, ending: RunEnding) -> None:
        with self._lock:
            self._ending = ending
            self._move(RunState.FINISHED)

    def _advance(self, state: RunState) -> None:
        with self._lock:
            self._move(state)

    def _move(self, state: RunState) -> bool:
        """With the lock held: enter ``state`` if the run may, and say so."""
        if state not in NEXT_STATES[self._state]:
            return False
        self._state = state
        self._tell(state)
        return True

    def _tell(self, state: RunState) -> None:
        if self._on_change is not None:
            self._on_change(self, state)
