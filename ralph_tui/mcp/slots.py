"""The bound on runs at once: a burst of calls waits its turn instead of taking the machine,
and what each run leaves in the process is handed back when it ends.

A call beyond ``mcp_max_runs`` waits (first come, first served) and is told so by progress
notifications, repeated while it waits so a client's timeout that progress resets does not
fire. A call cancelled while it waits simply leaves the queue.
"""

from __future__ import annotations

import asyncio
import ctypes
import ctypes.util
import functools
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

from ralph_tui.counts import counted

WAIT_NOTICE_EVERY_S = 10.0
"""How often a waiting call hears that it is still waiting."""

Waiting = Callable[[str], Awaitable[None]]
"""Tells the caller it is waiting (the message says for what)."""


class RunSlots:
    """At most ``size`` runs at once; ``held`` waits for a slot and gives it back."""

    def __init__(self, size: int, notice_every_s: float = WAIT_NOTICE_EVERY_S) -> None:
        self.size = size
        self.notice_every_s = notice_every_s
        self._free = asyncio.Semaphore(size)
        self.waiting = 0
        self.running = 0
        self._releasing: asyncio.Future[None] | None = None

    @asynccontextmanager
    async def held(self, waiting: Waiting) -> AsyncIterator[None]:
        await self._acquire(waiting)
        self.running += 1
        try:
            yield
        finally:
            self.running -= 1
            self._free.release()
            self._release_memory()

    async def _acquire(self, waiting: Waiting) -> None:
        if not self._free.locked():
            await self._free.acquire()
            return
        self.waiting += 1
        # One acquire, waited on in turns (never cancelled by a timeout, which could lose
        # a slot it had just taken), so the call keeps its place in the queue.
        acquire = asyncio.ensure_future(self._free.acquire())
        try:
            while not acquire.done():
                ahead = self.waiting - 1
                await waiting(
                    f"waiting for a run slot: {counted(self.size, 'run')} at once "
                    f"{'is' if self.size == 1 else 'are'} busy"
                    + (f", {counted(ahead, 'other call')} waiting" if ahead > 0 else "")
                )
                await asyncio.wait({acquire}, timeout=self.notice_every_s)
        except BaseException:
            if acquire.done() and not acquire.cancelled():
                self._free.release()
            else:
                acquire.cancel()
            raise
        finally:
            self.waiting -= 1

    def _release_memory(self) -> None:
        """``release_freed_memory`` in a worker thread (it walks the whole heap: tens of
        milliseconds the event loop need not wait), one at a time."""
        if self._releasing is None or self._releasing.done():
            loop = asyncio.get_running_loop()
            self._releasing = loop.run_in_executor(None, release_freed_memory)


def release_freed_memory() -> None:
    """Give the memory a finished run freed back to the system. A run's large transient
    buffers (documents, indexes, JSON) are freed, but glibc keeps freed heap pages for
    reuse and fragmentation keeps them from being reused in full, so a server's resident
    memory would only ever grow; ``malloc_trim`` returns them. Elsewhere, nothing to do."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    name = ctypes.util.find_library("c")
    try:
        trim: Callable[[int], int] = ctypes.CDLL(name).malloc_trim
    except (OSError, AttributeError, TypeError):
        return None
    return trim
