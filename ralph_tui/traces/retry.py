"""Retrying SQLite work that another process's lock made fail.

The busy timeout covers most waits, but SQLite returns ``SQLITE_BUSY`` at once
in some cases (WAL recovery, switching journal mode, a deadlock it detects), so
writers back off and try again until a deadline.
"""

from __future__ import annotations

import random
import sqlite3
import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

RETRY_DEADLINE_S = 60.0
_FIRST_DELAY_S = 0.005
_MAX_DELAY_S = 0.5
_BUSY_CODES = frozenset({sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED})


def retry_busy(work: Callable[[], T], deadline_s: float = RETRY_DEADLINE_S) -> T:
    """Call ``work`` until it does not fail on a lock, or ``deadline_s`` has passed."""
    give_up_at = time.monotonic() + deadline_s
    delay = _FIRST_DELAY_S
    while True:
        try:
            return work()
        except sqlite3.OperationalError as exc:
            if not is_busy(exc) or time.monotonic() + delay > give_up_at:
                raise
        # Jitter keeps processes that collided once from colliding again in step.
        time.sleep(delay * random.uniform(0.5, 1.5))
        delay = min(delay * 2, _MAX_DELAY_S)


def is_busy(exc: sqlite3.OperationalError) -> bool:
    """Whether ``exc`` means "another connection holds the lock" (worth retrying)."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return (code & 0xFF) in _BUSY_CODES
    return "locked" in str(exc) or "busy" in str(exc)
