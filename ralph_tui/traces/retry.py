"""Opening a SQLite file several processes share, and retrying work that another
process's lock made fail.

The busy timeout covers most waits, but SQLite returns ``SQLITE_BUSY`` at once
in some cases (WAL recovery, switching journal mode, a deadlock it detects), so
writers back off and try again until a deadline (with ``tenacity``).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from tenacity import Retrying, retry_if_exception, stop_before_delay, wait_random_exponential

T = TypeVar("T")

BUSY_TIMEOUT_S = 10.0
"""How long one statement waits on another process's lock before SQLite says busy."""
RETRY_DEADLINE_S = 60.0
_FIRST_DELAY_S = 0.005
_MAX_DELAY_S = 0.5
_BUSY_CODES = frozenset({sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED})


def retry_busy(work: Callable[[], T], deadline_s: float = RETRY_DEADLINE_S) -> T:
    """Call ``work`` until it does not fail on a lock, or ``deadline_s`` has passed."""
    retrying = Retrying(
        retry=retry_if_exception(
            lambda exc: isinstance(exc, sqlite3.OperationalError) and is_busy(exc)
        ),
        stop=stop_before_delay(deadline_s),
        # Jitter keeps processes that collided once from colliding again in step.
        wait=wait_random_exponential(multiplier=_FIRST_DELAY_S, max=_MAX_DELAY_S),
        reraise=True,
    )
    return retrying(work)


def is_busy(exc: sqlite3.OperationalError) -> bool:
    """Whether ``exc`` means "another connection holds the lock" (worth retrying)."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return (code & 0xFF) in _BUSY_CODES
    return "locked" in str(exc) or "busy" in str(exc)


def connect_shared(path: Path) -> sqlite3.Connection:
    """A connection to ``path`` that waits on other processes' locks, with transactions
    explicit (``BEGIN IMMEDIATE``), never implicit (``isolation_level=None``)."""
    conn = sqlite3.connect(
        path, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False
    )
    conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
    return conn


def in_transaction(conn: sqlite3.Connection, work: Callable[[sqlite3.Connection], T]) -> T:
    """``work(conn)`` in one transaction: committed, or rolled back if it raises."""
    # IMMEDIATE takes the write lock up front, so a busy wait happens here (where the
    # busy timeout applies) instead of failing later on a read-to-write upgrade.
    conn.execute("BEGIN IMMEDIATE")
    try:
        result = work(conn)
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
    return result
