"""The session index: ``<out>/index.sqlite``, a queryable cache of the session folders.

Every trace write upserts the index, so it follows a run as it goes, from any
number of processes at once (WAL mode, a busy timeout, retried write
transactions). The files stay the truth: ``reindex`` rebuilds the index from
the folders, and a missing, corrupt, or older-schema index is rebuilt on open
or on first failure instead of failing the run.

The rebuild happens inside one write transaction on the live file rather than
in a new file swapped in: a writer in another process keeps its connection to
the file it opened, and would write into a replaced file's ghost.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar

from pydantic import ValidationError

from ralph_tui.json_input import JsonRefused, first_problem, parse_json
from ralph_tui.traces import index_sql as sql
from ralph_tui.traces.files import SESSION_FILE, read_iterations, read_record, session_folders
from ralph_tui.traces.index_query import (
    DateBound,
    IterationRow,
    SessionFilter,
    iteration_row,
    list_statement,
    search_statement,
)
from ralph_tui.traces.models import IterationTrace, SessionRecord
from ralph_tui.traces.retry import connect_shared, in_transaction, retry_busy
from ralph_tui.traces.search_text import fts_query
from ralph_tui.traces.session_ids import SESSIONS_DIR

INDEX_FILE = "index.sqlite"

# SQLite result codes that mean the file itself is damaged (not merely busy).
_CORRUPT_CODES = frozenset({sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB})

T = TypeVar("T")
SessionTree = tuple[SessionRecord, Sequence[IterationTrace]]
OnSkip = Callable[[Path, str], None]
"""Told of each session folder a scan skips: the folder, and why (one line)."""
log = logging.getLogger(__name__)


class SessionIndex:
    """Read and write access to one ``index.sqlite``; safe to share between threads."""

    def __init__(self, path: Path | str, on_skip: OnSkip | None = None) -> None:
        self.path = Path(path)
        self.out_dir = self.path.parent
        self.on_skip = on_skip
        """Told of each session folder a rebuild from the files leaves out."""
        self._lock = threading.RLock()
        self.rebuilt_on_open = False
        """Whether opening found the file missing, damaged or outdated and rebuilt it."""
        self._conn = self._open_healthy()

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __enter__(self) -> SessionIndex:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    # -- writes -------------------------------------------------------------------------------

    def upsert_session(self, record: SessionRecord) -> None:
        """Insert or refresh one session's row (and its search text)."""
        self._write(lambda conn: _upsert_tree(conn, record, ()))

    def record_iteration(self, record: SessionRecord, trace: IterationTrace) -> None:
        """Store one iteration and the session's refreshed row in one transaction."""
        self._write(lambda conn: _upsert_tree(conn, record, (trace,)))

    def rebuild(self, trees: Callable[[], Iterable[SessionTree]]) -> int:
        """Replace the whole index with ``trees()``, read while holding the write lock.

        Reading inside the transaction matters: a session written after the scan
        started waits for the rebuild and then upserts itself, so nothing is lost.
        """
        return self._write(lambda conn: _replace_all(conn, trees()))

    # -- reads --------------------------------------------------------------------------------

    def get(self, session_id: str) -> SessionRecord | None:
        rows = self._read(sql.SELECT_RECORD, (session_id,))
        return _indexed_record(rows[0][0]) if rows else None

    def list_sessions(
        self,
        mode: str | None = None,
        status: str | Sequence[str] | None = None,
        date_from: DateBound | None = None,
        date_to: DateBound | None = None,
        parent: str | None = None,
        text: str | None = None,
        sort: str = "created_at",
        descending: bool = True,
        limit: int | None = 50,
        offset: int = 0,
        subtasks: bool = False,
    ) -> list[SessionRecord]:
        """Sessions matching every given filter, sorted, one page at a time.

        ``date_from``/``date_to`` bound ``created_at``; a ``date`` is a whole UTC
        day (inclusive at both ends). ``text`` matches query and output words.
        Sub-task sessions are left out unless ``subtasks`` is true.
        """
        where = SessionFilter(mode, status, date_from, date_to, parent, text, subtasks)
        statement, params = list_statement(where, sort, descending, limit, offset)
        return [_indexed_record(row[0]) for row in self._read(statement, params)]

    def count_sessions(
        self,
        mode: str | None = None,
        status: str | Sequence[str] | None = None,
        date_from: DateBound | None = None,
        date_to: DateBound | None = None,
        parent: str | None = None,
        text: str | None = None,
        subtasks: bool = False,
    ) -> int:
        """How many sessions ``list_sessions`` would page through with these filters."""
        clause, params = SessionFilter(
            mode, status, date_from, date_to, parent, text, subtasks
        ).where()
        return int(self._read(f"SELECT count(*) FROM sessions{clause}", params)[0][0])

    def search(self, text: str, limit: int = 50, subtasks: bool = False) -> list[SessionRecord]:
        """Sessions whose query or outputs contain every word of ``text``, best match first."""
        match = fts_query(text)
        if match is None:
            return []
        statement, params = search_statement(match, limit, subtasks)
        return [_indexed_record(row[0]) for row in self._read(statement, params)]

    def children(self, session_id: str) -> list[SessionRecord]:
        """Sessions re-run from ``session_id`` (their ``parent_session_id``), oldest first."""
        rows = self._read(sql.SELECT_CHILDREN, (session_id,))
        return [_indexed_record(row[0]) for row in rows]

    def subtasks(self, session_id: str) -> list[SessionRecord]:
        """The sub-task sessions of a decomposed session, oldest first."""
        rows = self._read(sql.SELECT_SUBTASKS, (session_id,))
        return [_indexed_record(row[0]) for row in rows]

    def iterations(self, session_id: str) -> list[IterationRow]:
        """A summary row per stored iteration of ``session_id``, in iteration order."""
        return [iteration_row(row) for row in self._read(sql.SELECT_ITERATIONS, (session_id,))]

    # -- plumbing -----------------------------------------------------------------------------

    def _read(self, statement: str, params: Sequence[object]) -> list[tuple[Any, ...]]:
        return self._guarded(lambda conn: conn.execute(statement, params).fetchall())

    def _write(self, work: Callable[[sqlite3.Connection], T]) -> T:
        return self._guarded(lambda conn: retry_busy(lambda: in_transaction(conn, work)))

    def _guarded(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``work``; if the file turns out to be damaged, rebuild it and run again."""
        with self._lock:
            try:
                return work(self._conn)
            except sqlite3.DatabaseError as exc:
                if not _is_corruption(exc):
                    raise
                log.warning("session index %s is damaged (%s); rebuilding it", self.path, exc)
                self._conn.close()
                self._conn = self._recreate()
            return work(self._conn)

    def _open_healthy(self) -> sqlite3.Connection:
        conn = connect_shared(self.path)
        try:
            schema_changed = retry_busy(lambda: _ensure_schema(conn))
        except sqlite3.DatabaseError as exc:
            conn.close()
            if not _is_corruption(exc):
                raise
            log.warning("session index %s is damaged (%s); rebuilding it", self.path, exc)
            return self._recreate()
        # A new (or missing, or older-schema) index over existing folders starts full.
        if schema_changed and self._has_sessions():
            self._rebuild_from_files(conn)
            self.rebuilt_on_open = True
        return conn

    def _recreate(self) -> sqlite3.Connection:
        for suffix in ("", "-wal", "-shm"):
            Path(f"{self.path}{suffix}").unlink(missing_ok=True)
        conn = connect_shared(self.path)
        retry_busy(lambda: _ensure_schema(conn))
        self._rebuild_from_files(conn)
        self.rebuilt_on_open = True
        return conn

    def _rebuild_from_files(self, conn: sqlite3.Connection) -> None:
        retry_busy(
            lambda: in_transaction(
                conn, lambda c: _replace_all(c, scan_session_trees(self.out_dir, self.on_skip))
            )
        )

    def _has_sessions(self) -> bool:
        sessions = self.out_dir / SESSIONS_DIR
        return sessions.is_dir() and any(sessions.iterdir())


def reindex(out_dir: Path | str, on_skip: OnSkip | None = None) -> int:
    """Rebuild ``<out_dir>/index.sqlite`` from the session folders; returns the session count
    (``on_skip`` is told of each folder left out)."""
    with SessionIndex(Path(out_dir) / INDEX_FILE, on_skip) as index:
        if index.rebuilt_on_open:
            return index.count_sessions(subtasks=True)
        return index.rebuild(lambda: scan_session_trees(Path(out_dir), on_skip))


def scan_session_trees(out_dir: Path, on_skip: OnSkip | None = None) -> Iterator[SessionTree]:
    """Every session folder's record and traces; a folder whose ``session.json`` cannot be
    read (missing, malformed, past the bounds of the JSON reader: a 400-digit number, nesting
    1,000 deep) is skipped and passed to ``on_skip`` (else logged as a warning)."""
    for session_id, folder in session_folders(out_dir):
        try:
            record = read_record(folder)
        except (OSError, ValueError) as exc:
            (on_skip or _log_skip)(folder, unreadable_reason(folder, exc))
            continue
        if record.session_id != session_id:
            # The folder's place is the truth (a copied or moved folder keeps its old id inside).
            record = record.model_copy(update={"session_id": session_id})
        yield record, read_iterations(folder)


def _indexed_record(text: str | bytes) -> SessionRecord:
    """A record as the index holds it, read like the files it was built from (an out dir may
    come from someone else, its index too)."""
    where = f"the session index {INDEX_FILE}"
    rebuild = "`ralph-tui sessions reindex` rebuilds it from the session folders"
    try:
        return SessionRecord.model_validate(parse_json(text, where))
    except JsonRefused as exc:
        raise JsonRefused(exc.message, hint=rebuild) from None
    except ValidationError:
        raise JsonRefused(f"{where} holds a row that is no session record", hint=rebuild) from None


def unreadable_reason(folder: Path, exc: Exception) -> str:
    """Why a session folder's ``session.json`` could not be read, in one line."""
    if isinstance(exc, ValidationError):
        return f"{SESSION_FILE} is no session record ({first_problem(exc, 'the record')})"
    if isinstance(exc, OSError):
        return f"{SESSION_FILE} cannot be read ({exc.strerror or exc})"
    text = " ".join(str(exc).split())
    return f"{SESSION_FILE}: {text.removeprefix(f'{folder / SESSION_FILE}: ')}"


def _log_skip(folder: Path, reason: str) -> None:
    log.warning("skipping session folder %s: %s", folder, reason)


def _replace_all(conn: sqlite3.Connection, trees: Iterable[SessionTree]) -> int:
    for statement in sql.CLEAR_ALL:
        conn.execute(statement)
    count = 0
    for record, traces in trees:
        _upsert_tree(conn, record, traces, search=False)
        count += 1
    # One pass over everything is much faster than keeping the text index in step per session.
    conn.execute(sql.REBUILD_SEARCH)
    return count


def _ensure_schema(conn: sqlite3.Connection) -> bool:
    """Put the file in WAL mode and create what is missing; true if the schema was (re)made."""
    conn.execute("PRAGMA journal_mode = WAL")
    # NORMAL skips the fsync per commit in WAL mode; the index is a rebuildable cache.
    conn.execute("PRAGMA synchronous = NORMAL")

    def create(c: sqlite3.Connection) -> bool:
        found = int(c.execute("PRAGMA user_version").fetchone()[0])
        if found == sql.SCHEMA_VERSION:
            return False
        for statement in (*sql.DROP_ALL, *sql.CREATE_ALL):
            c.execute(statement)
        c.execute(f"PRAGMA user_version = {sql.SCHEMA_VERSION}")
        return True

    return in_transaction(conn, create)


def _upsert_tree(
    conn: sqlite3.Connection,
    record: SessionRecord,
    traces: Iterable[IterationTrace],
    search: bool = True,
) -> None:
    """Write a session's row and iteration rows, keeping its full-text entry in step."""
    known = conn.execute(sql.SELECT_ROW_ID, (record.session_id,)).fetchone()
    if search and known is not None:
        conn.execute(sql.FORGET_SEARCH_TEXT, known)
    conn.execute(sql.UPSERT_SESSION, sql.session_params(record))
    for trace in traces:
        conn.execute(sql.UPSERT_ITERATION, sql.iteration_params(record.session_id, trace))
    if search:
        row_id = known or conn.execute(sql.SELECT_ROW_ID, (record.session_id,)).fetchone()
        conn.execute(sql.INDEX_SEARCH_TEXT, row_id)


def _is_corruption(exc: sqlite3.DatabaseError) -> bool:
    return getattr(exc, "sqlite_errorcode", None) in _CORRUPT_CODES
