"""One run behind a tool call: it waits for a slot among the runs at once, its events are
relayed as progress notifications, and the call's cancellation is turned into the run's own
cancel, so the session ends ``cancelled`` with its traces kept rather than being cut off
mid-write."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import anyio

from ralph_tui.api import RunResult
from ralph_tui.events import BaseEvent, Emit
from ralph_tui.mcp.progress import ProgressTracker, ProgressUpdate
from ralph_tui.mcp.slots import RunSlots

StartRun = Callable[[Emit, asyncio.Event], Awaitable[RunResult]]
"""Starts the run with the event callback and the cancel event it is given."""
Report = Callable[[ProgressUpdate], Awaitable[None]]


async def run_reporting(start: StartRun, report: Report, slots: RunSlots) -> RunResult:
    """The run's result, once one of ``slots`` is free, with ``report`` called while it
    waits for one and for each step the run makes. When the call is cancelled the run is
    told to stop, and waited for (shielded) before the cancellation goes on."""
    tracker = ProgressTracker()

    async def waiting(message: str) -> None:
        await _courtesy(report, tracker.waiting(message))

    async with slots.held(waiting):
        return await _reporting(start, report, tracker)


async def _reporting(start: StartRun, report: Report, tracker: ProgressTracker) -> RunResult:
    updates: asyncio.Queue[ProgressUpdate | None] = asyncio.Queue()

    def on_event(event: BaseEvent) -> None:
        update = tracker.update(event)
        if update is not None:
            updates.put_nowait(update)

    cancel = asyncio.Event()
    run = asyncio.ensure_future(start(on_event, cancel))
    relay = asyncio.ensure_future(_relay(updates, report))
    try:
        await asyncio.wait({run})
    except asyncio.CancelledError:
        relay.cancel()
        cancel.set()
        with anyio.CancelScope(shield=True):
            await asyncio.wait({run})
        raise
    updates.put_nowait(None)
    await relay
    return run.result()


async def _relay(updates: asyncio.Queue[ProgressUpdate | None], report: Report) -> None:
    """Send the updates in order until the ``None`` that ends them. Progress is a courtesy:
    a client that can no longer take it stops the relay, never the run."""
    while (update := await updates.get()) is not None:
        if not await _courtesy(report, update):
            return


async def _courtesy(report: Report, update: ProgressUpdate) -> bool:
    """``report(update)``; ``False`` when the client can no longer take progress."""
    try:
        await report(update)
    except (OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
        return False
    return True
