"""SQLite work that hits another process's lock is retried until a deadline; other
failures are not retried."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from ralph_tui.traces.retry import retry_busy


def locked_database(tmp_path: Path) -> tuple[sqlite3.Connection, sqlite3.Connection]:
    """Two connections to one database; the first holds a write lock."""
    path = tmp_path / "db.sqlite"
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("CREATE TABLE t (x)")
    holder.execute("BEGIN IMMEDIATE")
    waiter = sqlite3.connect(path, timeout=0, isolation_level=None)
    return holder, waiter


def test_a_busy_write_is_retried_until_the_lock_is_gone(tmp_path: Path) -> None:
    holder, waiter = locked_database(tmp_path)
    attempts = 0

    def write() -> str:
        nonlocal attempts
        attempts += 1
        if attempts == 3:
            holder.execute("COMMIT")  # the other writer finishes
        waiter.execute("INSERT INTO t VALUES (1)")
        return "written"

    assert retry_busy(write) == "written"
    assert attempts == 3


def test_a_lock_held_past_the_deadline_fails_with_the_busy_error(tmp_path: Path) -> None:
    _holder, waiter = locked_database(tmp_path)
    with pytest.raises(sqlite3.OperationalError, match="locked"):
        retry_busy(lambda: waiter.execute("INSERT INTO t VALUES (1)"), deadline_s=0.05)


def test_other_database_errors_are_not_retried(tmp_path: Path) -> None:
    attempts = 0

    def broken() -> None:
        nonlocal attempts
        attempts += 1
        raise sqlite3.OperationalError("no such table: nowhere")

    with pytest.raises(sqlite3.OperationalError, match="no such table"):
        retry_busy(broken)
    assert attempts == 1
