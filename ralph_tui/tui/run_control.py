"""Run one request on a private event loop in a worker thread, and cancel it from the UI.

The run does blocking work between awaits (trace files, the index, validation), so it
gets an event loop of its own in a thread: the UI's loop never waits on it. Events go
out through ``EventBuffer.push``; cancelling first sets the run's cancel event (the
loops stop cleanly at the next phase) and, if the run is still going after a grace
period, cancels its task (the runner then records the session as cancelled).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from ralph_tui.events import Emit

if TYPE_CHECKING:
    from ralph_tui.loops.runner import RunOutcome, RunRequest

Runner = Callable[["RunRequest", Emit, asyncio.Event], Awaitable["RunOutcome"]]
"""Runs a request to its end: ``execute_run`` in the app, a stand-in in tests."""

CANCEL_GRACE_S = 3.0
"""How long a cancelled run may take to reach a clean stop before its task is cancelled."""


async def real_runner(request: RunRequest, emit: Emit, cancel: asyncio.Event) -> RunOutcome:
    """The loops' ``execute_run``, imported on first use so the app paints without it."""
    from ralph_tui.loops.runner import execute_run

    return await execute_run(request, on_event=emit, cancel=cancel)


class RunControl:
    """One run: ``run()`` blocks its (worker) thread until the run ends; ``cancel()`` from any.

    The request is built by ``make_request`` inside ``run()``, on the run's thread.
    """

    def __init__(self, make_request: Callable[[], RunRequest], runner: Runner, emit: Emit) -> None:
        self._make_request = make_request
        self._runner = runner
        self._emit = emit
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._cancel: asyncio.Event | None = None
        self._task: asyncio.Task[RunOutcome] | None = None
        self._grace_s: float | None = None

    def run(self) -> RunOutcome | None:
        """Run to the end; ``None`` when the run had to be stopped by cancelling its task."""
        return asyncio.run(self._main())

    def cancel(self, grace_s: float = CANCEL_GRACE_S) -> None:
        """Ask the run to stop; after ``grace_s`` seconds, stop it hard. Safe from any thread."""
        with self._lock:
            self._grace_s = grace_s if self._grace_s is None else min(self._grace_s, grace_s)
            loop = self._loop
        if loop is not None and not loop.is_closed():
            try:
                loop.call_soon_threadsafe(self._start_cancelling)
            except RuntimeError:
                return  # The loop closed between the check and the call: the run is over.

    async def _main(self) -> RunOutcome | None:
        request = self._make_request()
        self._cancel = asyncio.Event()
        self._task = asyncio.ensure_future(self._runner(request, self._emit, self._cancel))
        with self._lock:
            self._loop = asyncio.get_running_loop()
            requested = self._grace_s is not None
        if requested:
            self._start_cancelling()
        try:
            return await self._task
        except asyncio.CancelledError:
            return None
        finally:
            with self._lock:
                self._loop = None

    def _start_cancelling(self) -> None:
        """On the run's loop: set the cancel event, and schedule the hard stop."""
        assert self._cancel is not None and self._task is not None
        self._cancel.set()
        grace = self._grace_s or 0.0
        loop = asyncio.get_running_loop()
        loop.call_later(grace, self._task.cancel)
