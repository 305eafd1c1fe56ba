"""The sub-call cache: answers of ``llm_query``, ``llm_query_batched``, ``llm_map`` and
``look`` kept under the out dir (``<out>/cache/subcalls.sqlite``), so a question asked again
is not paid for again.

An answer is addressed by what decides it: the sub-model, its sampling settings, the exact
prompt, the JSON Schema it must match and the pictures sent with it (their bytes' hash).
Its value is the answer and the usage it was paid with. A scope keeps sessions apart
(``session``: one session's iterations and legs share answers) or not (``shared``: every
session under the out dir does).

The file is shared by every process writing to the out dir, as the session index is (WAL
mode, a busy timeout, retried write transactions). Its size is bounded: past
``max_bytes`` the least recently used answers go. An entry whose bytes no longer match its
checksum is dropped with a notice; a file that is not a database is started afresh.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import sqlite3
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from pydantic import ValidationError

from ralph_tui.llm.types import Completion
from ralph_tui.traces.retry import connect_shared, in_transaction, retry_busy

CACHE_FILE = Path("cache") / "subcalls.sqlite"
"""Where the cache lives, under the out dir."""
SHARED_SCOPE = "shared"
SCHEMA_VERSION = 1
KEPT_FIELDS = {"text", "usage", "model", "provider", "cost_usd"}
"""What an answer keeps of its completion: the answer, and what it was paid with."""

OnNotice = Callable[[str], None]
T = TypeVar("T")

_CREATE = (
    """CREATE TABLE IF NOT EXISTS answers (
        scope TEXT NOT NULL,
        key TEXT NOT NULL,
        value TEXT NOT NULL,
        checksum TEXT NOT NULL,
        size INTEGER NOT NULL,
        used_at REAL NOT NULL,
        PRIMARY KEY (scope, key)
    ) WITHOUT ROWID""",
    "CREATE INDEX IF NOT EXISTS answers_by_use ON answers (used_at)",
    "CREATE TABLE IF NOT EXISTS total (one INTEGER PRIMARY KEY CHECK (one = 1), bytes INTEGER)",
    "INSERT OR IGNORE INTO total VALUES (1, 0)",
    # The running total is kept by triggers, so every process's writes keep it right.
    """CREATE TRIGGER IF NOT EXISTS answers_added AFTER INSERT ON answers
        BEGIN UPDATE total SET bytes = bytes + new.size; END""",
    """CREATE TRIGGER IF NOT EXISTS answers_dropped AFTER DELETE ON answers
        BEGIN UPDATE total SET bytes = bytes - old.size; END""",
)
_CORRUPT_CODES = frozenset({sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB})


def answer_key(
    model: str,
    sampling: dict[str, Any],
    prompt: str,
    schema: dict[str, Any] | None,
    images: Sequence[str] = (),
) -> str:
    """The address of an answer: a digest of everything that decides it (``images``: the
    SHA-256 of each picture sent with the prompt; a prompt without pictures keeps the
    address it always had)."""
    parts: list[Any] = [model, sampling, prompt, schema]
    if images:
        parts.append(list(images))
    what = json.dumps(parts, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(what.encode("utf-8", "surrogatepass")).hexdigest()


class SubCallCache:
    """One scope of the sub-call cache file at ``path``; safe to share between threads
    and tasks (one connection, one lock; the work runs off the event loop)."""

    def __init__(
        self, path: Path, scope: str, max_bytes: int, on_notice: OnNotice | None = None
    ) -> None:
        self.path = path
        self.scope = scope
        self.max_bytes = max_bytes
        self.notice = on_notice or (lambda _message: None)
        self._lock = threading.Lock()
        self._failed = False
        self._said: deque[str] = deque()
        """Notices of work done in a thread, said on the event loop once it is back."""
        self._conn = self._open()
        self._say_pending()

    @classmethod
    def for_run(
        cls, out_dir: Path, mode: str, session_id: str, max_mb: float, on_notice: OnNotice
    ) -> SubCallCache | None:
        """The cache a run's settings ask for (``mode``: ``session``, ``shared`` or
        ``off``), or ``None`` when it is off."""
        if mode == "off":
            return None
        scope = SHARED_SCOPE if mode == "shared" else f"session:{session_id}"
        path = Path(out_dir) / CACHE_FILE
        try:
            return cls(path, scope, int(max_mb * 1024 * 1024), on_notice)
        except (OSError, sqlite3.Error) as exc:
            on_notice(f"sub-call cache {path} cannot be opened ({exc}); every sub-call is paid")
            return None

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    async def get(self, key: str) -> Completion | None:
        """The answer kept under ``key``, marked as just used; ``None`` when there is none
        (or it was damaged, and has been dropped, or the file cannot be read)."""
        return await self._off_loop(self._get, key)

    async def put(self, key: str, completion: Completion) -> None:
        """Keep ``completion`` under ``key``, then drop the least recently used answers
        past the size bound."""
        value = completion.model_dump_json(include=KEPT_FIELDS)
        await self._off_loop(self._put, key, value)

    async def forget(self, key: str) -> None:
        """Drop the answer under ``key`` (one its asker found unusable)."""
        await self._off_loop(self._write, lambda c: self._delete(c, key))

    async def _off_loop(self, work: Callable[..., T], *args: Any) -> T | None:
        """``work(*args)`` in a thread (a busy file may make it wait); a cache that cannot be
        used is said once and skipped, never the sub-call's failure."""
        try:
            return await asyncio.to_thread(work, *args)
        except sqlite3.Error as exc:
            if not self._failed:
                self._failed = True
                self._said.append(f"sub-call cache {self.path} not used for a call ({exc})")
            return None
        finally:
            self._say_pending()

    def _say_pending(self) -> None:
        while self._said:
            self.notice(self._said.popleft())

    # -- work on the connection ---------------------------------------------------------------

    def _get(self, key: str) -> Completion | None:
        row = self._guarded(
            lambda c: c.execute(
                "SELECT value, checksum FROM answers WHERE scope = ? AND key = ?",
                (self.scope, key),
            ).fetchone()
        )
        if row is None:
            return None
        value, checksum = row
        try:
            if _checksum(value) != checksum:
                raise ValueError("its checksum does not match")
            completion = Completion.model_validate_json(value)
        except (ValueError, ValidationError) as exc:
            reason = str(exc).splitlines()[0][:160]
            message = f"sub-call cache: a damaged answer was dropped ({reason}); asking again"
            self._said.append(message)
            self._write(lambda c: self._delete(c, key))
            return None
        self._write(
            lambda c: c.execute(
                "UPDATE answers SET used_at = ? WHERE scope = ? AND key = ?",
                (time.time(), self.scope, key),
            )
        )
        return completion

    def _put(self, key: str, value: str) -> None:
        size = len(value.encode("utf-8", "surrogatepass")) + len(key) + len(self.scope)

        def store(c: sqlite3.Connection) -> None:
            self._delete(c, key)
            c.execute(
                "INSERT INTO answers VALUES (?, ?, ?, ?, ?, ?)",
                (self.scope, key, value, _checksum(value), size, time.time()),
            )
            self._evict(c)

        self._write(store)

    def _delete(self, c: sqlite3.Connection, key: str) -> None:
        c.execute("DELETE FROM answers WHERE scope = ? AND key = ?", (self.scope, key))

    def _evict(self, c: sqlite3.Connection) -> None:
        """Drop the least recently used answers (of every scope) until the rest fit."""
        excess = int(c.execute("SELECT bytes FROM total").fetchone()[0]) - self.max_bytes
        if excess <= 0:
            return
        dropped = 0
        victims: list[tuple[str, str]] = []
        for scope, key, size in c.execute("SELECT scope, key, size FROM answers ORDER BY used_at"):
            if dropped >= excess:
                break
            victims.append((scope, key))
            dropped += size
        c.executemany("DELETE FROM answers WHERE scope = ? AND key = ?", victims)

    def _write(self, work: Callable[[sqlite3.Connection], object]) -> None:
        self._guarded(lambda c: retry_busy(lambda: in_transaction(c, work)))

    def _guarded(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``work``; when the file turns out not to be a database, start it afresh."""
        with self._lock:
            try:
                return work(self._conn)
            except sqlite3.DatabaseError as exc:
                if getattr(exc, "sqlite_errorcode", None) not in _CORRUPT_CODES:
                    raise
                self._conn.close()
                self._conn = self._recreate(exc)
            return work(self._conn)

    def _open(self) -> sqlite3.Connection:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        conn = connect_shared(self.path)
        try:
            retry_busy(lambda: _ensure_schema(conn))
        except sqlite3.DatabaseError as exc:
            conn.close()
            if getattr(exc, "sqlite_errorcode", None) not in _CORRUPT_CODES:
                raise
            return self._recreate(exc)
        return conn

    def _recreate(self, exc: sqlite3.DatabaseError) -> sqlite3.Connection:
        self._said.append(f"sub-call cache {self.path} is damaged ({exc}); starting it afresh")
        for suffix in ("", "-wal", "-shm"):
            Path(f"{self.path}{suffix}").unlink(missing_ok=True)
        conn = connect_shared(self.path)
        retry_busy(lambda: _ensure_schema(conn))
        return conn


def _checksum(value: str) -> str:
    return hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def _ensure_schema(conn: sqlite3.Connection) -> None:
    conn.execute("PRAGMA journal_mode = WAL")
    # NORMAL skips the fsync per commit in WAL mode: a lost answer is only asked again.
    conn.execute("PRAGMA synchronous = NORMAL")

    def create(c: sqlite3.Connection) -> None:
        found = int(c.execute("PRAGMA user_version").fetchone()[0])
        if found not in (0, SCHEMA_VERSION):
            for table in ("answers", "total"):
                c.execute(f"DROP TABLE IF EXISTS {table}")
        for statement in _CREATE:
            c.execute(statement)
        c.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    in_transaction(conn, create)
