"""CPU-bound work an ``async`` caller can stop at once (SIGTERM, Ctrl-C, a cancelled task).

Work run on the event loop's own thread keeps the loop from seeing a signal until it ends;
work in C that holds the GIL keeps even Python's signal handlers waiting. So the work runs in
a thread of its own, in short pieces separated by calls of ``checkpoint``: when the awaiting
task is cancelled, the next ``checkpoint`` raises ``Stopped`` and the thread ends, so the
process (which waits for it on the way out) exits within one piece of work.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

Checkpoint = Callable[[], None]
"""Called by the work between two short pieces; raises ``Stopped`` once it is to stop."""


class Stopped(Exception):
    """The work was asked to stop (its caller was cancelled)."""


async def run_stoppable(work: Callable[[Checkpoint], T]) -> T:
    """``work(checkpoint)`` in a thread; cancelling the caller stops it at its next
    ``checkpoint``."""
    stop = threading.Event()

    def checkpoint() -> None:
        if stop.is_set():
            raise Stopped()

    try:
        return await asyncio.to_thread(work, checkpoint)
    finally:
        stop.set()
