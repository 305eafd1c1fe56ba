"""A cell's own running time, measured against its limit."""

from __future__ import annotations

import asyncio
from collections.abc import Callable


class CellClock:
    """Fires ``on_expired`` once the cell has run ``limit_s``, not counting paused spans.

    The sandbox pauses the clock while host functions (``llm_query``) are running: their time
    is the host's, bounded by the host, and a cell that waits on a slow model is not a cell
    that loops forever.
    """

    def __init__(self, limit_s: float, on_expired: Callable[[], None]) -> None:
        self._loop = asyncio.get_running_loop()
        self._remaining = limit_s
        self._on_expired = on_expired
        self._started_at = 0.0
        self._timer: asyncio.TimerHandle | None = None
        self.expired = False

    def run(self) -> None:
        """Start or resume counting."""
        if self._timer is None and not self.expired:
            self._started_at = self._loop.time()
            self._timer = self._loop.call_later(max(self._remaining, 0.0), self._expire)

    def pause(self) -> None:
        """Stop counting, keeping the time left."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
            self._remaining -= self._loop.time() - self._started_at

    def _expire(self) -> None:
        self._timer = None
        self.expired = True
        self._on_expired()
