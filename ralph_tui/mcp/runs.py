"""One run behind a tool call: its events relayed as progress notifications, and the call's
cancellation turned into the run's own cancel, so the session ends ``cancelled`` with its
traces kept rather than being cut off mid-write."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import anyio

from ralph_tui.api import RunResult
from ralph_tui.events import BaseEvent, Emit
from ralph_tui.mcp.progress import ProgressTracker, ProgressUpdate

StartRun = Callable[[Emit, asyncio.Event], Awaitable[RunResult]]
"""Starts the run with the event callback and the cancel event it is given."""
Report = Callable[[ProgressUpdate], Awaitable[None]]


async def run_reporting(start: StartRun, report: Report) -> RunResult:
    """The run's result, with ``report`` called for each step it makes. When the call is
    cancelled the run is told to stop, and waited for (shielded) before the cancellation
    goes on."""
    tracker = ProgressTracker()
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
        try:
            await report(update)
        except (OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
            return
