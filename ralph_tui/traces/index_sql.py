"""The index's SQLite schema and the statements that keep it in step with the files.

``sessions`` holds one row per session (the full ``session.json`` in
``record``, plus the columns filters and sorts use); ``iterations`` one row per
iteration trace, with the text of its output. ``search`` is an FTS5 index over
the view ``search_source`` (a session's query and all its output text, rowid =
``sessions.id``): an external-content table, so the text is stored once.

External content means the index must be told what it forgets: before a
session's rows change, its old text is deleted from ``search`` (read from the
view, so it is exactly what was indexed); after, the new text is inserted.
"""

from __future__ import annotations

from ralph_tui.traces.models import IterationTrace, SessionRecord
from ralph_tui.traces.search_text import output_text

SCHEMA_VERSION = 2
"""2: ``sessions.variant``, the configuration variant a session ran under."""

CREATE_ALL = (
    """CREATE TABLE sessions (
        id INTEGER PRIMARY KEY,
        session_id TEXT NOT NULL UNIQUE,
        mode TEXT NOT NULL,
        status TEXT NOT NULL,
        query TEXT NOT NULL,
        parent_session_id TEXT,
        subtask_of TEXT,
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL,
        finished_at REAL,
        iterations INTEGER NOT NULL,
        duration_ms REAL,
        input_tokens INTEGER NOT NULL,
        output_tokens INTEGER NOT NULL,
        cost_usd REAL,
        variant TEXT,
        record TEXT NOT NULL
    )""",
    "CREATE INDEX sessions_variant ON sessions(variant)",
    # The default listing (top-level sessions, newest first) and sub-task lookups
    # both walk this index in order, without sorting.
    "CREATE INDEX sessions_listing ON sessions(subtask_of, created_at, session_id)",
    "CREATE INDEX sessions_mode ON sessions(mode, created_at)",
    "CREATE INDEX sessions_status ON sessions(status, created_at)",
    "CREATE INDEX sessions_parent ON sessions(parent_session_id)",
    """CREATE TABLE iterations (
        session_id TEXT NOT NULL,
        iteration INTEGER NOT NULL,
        passed INTEGER NOT NULL,
        fallback INTEGER NOT NULL,
        failure_tag TEXT,
        constraints INTEGER NOT NULL,
        started_at REAL,
        finished_at REAL,
        duration_ms REAL,
        output_text TEXT NOT NULL,
        UNIQUE (session_id, iteration)
    )""",
    """CREATE VIEW search_source AS
        SELECT s.id AS id, s.query AS query,
            (SELECT group_concat(output_text, char(10)) FROM (
                SELECT output_text FROM iterations i
                WHERE i.session_id = s.session_id ORDER BY i.iteration
            )) AS output
        FROM sessions s""",
    """CREATE VIRTUAL TABLE search USING fts5(
        query, output, content = 'search_source', content_rowid = 'id',
        tokenize = 'porter unicode61 remove_diacritics 2'
    )""",
)

DROP_ALL = (
    "DROP TABLE IF EXISTS search",
    "DROP VIEW IF EXISTS search_source",
    "DROP TABLE IF EXISTS iterations",
    "DROP TABLE IF EXISTS sessions",
)

CLEAR_ALL = (
    "INSERT INTO search (search) VALUES ('delete-all')",
    "DELETE FROM iterations",
    "DELETE FROM sessions",
)
REBUILD_SEARCH = "INSERT INTO search (search) VALUES ('rebuild')"

_SESSION_COLUMNS = (
    "session_id, mode, status, query, parent_session_id, subtask_of, created_at, updated_at,"
    " finished_at, iterations, duration_ms, input_tokens, output_tokens, cost_usd, variant,"
    " record"
)
_SESSION_UPDATES = ", ".join(
    f"{column} = excluded.{column}" for column in _SESSION_COLUMNS.replace(" ", "").split(",")[1:]
)

# The updated_at guard keeps a late, older write from undoing a newer one.
UPSERT_SESSION = f"""
    INSERT INTO sessions ({_SESSION_COLUMNS}) VALUES ({", ".join("?" * 16)})
    ON CONFLICT (session_id) DO UPDATE SET {_SESSION_UPDATES}
    WHERE excluded.updated_at >= sessions.updated_at
"""

UPSERT_ITERATION = """
    INSERT OR REPLACE INTO iterations (session_id, iteration, passed, fallback, failure_tag,
        constraints, started_at, finished_at, duration_ms, output_text)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
"""

SELECT_ROW_ID = "SELECT id FROM sessions WHERE session_id = ?"
FORGET_SEARCH_TEXT = """
    INSERT INTO search (search, rowid, query, output)
    SELECT 'delete', id, query, output FROM search_source WHERE id = ?
"""
INDEX_SEARCH_TEXT = """
    INSERT INTO search (rowid, query, output)
    SELECT id, query, output FROM search_source WHERE id = ?
"""

SELECT_RECORD = "SELECT record FROM sessions WHERE session_id = ?"
SELECT_CHILDREN = (
    "SELECT record FROM sessions WHERE parent_session_id = ? ORDER BY created_at, session_id"
)
SELECT_SUBTASKS = "SELECT record FROM sessions WHERE subtask_of = ? ORDER BY created_at, session_id"
SELECT_ITERATIONS = """
    SELECT session_id, iteration, passed, fallback, failure_tag, constraints, started_at,
        finished_at, duration_ms, substr(output_text, 1, 200)
    FROM iterations WHERE session_id = ? ORDER BY iteration
"""


def session_params(record: SessionRecord) -> tuple[object, ...]:
    return (
        record.session_id,
        record.mode,
        record.status,
        record.query,
        record.parent_session_id,
        record.subtask_of,
        record.created_at,
        record.updated_at,
        record.finished_at,
        record.iterations,
        record.duration_ms,
        record.input_tokens,
        record.output_tokens,
        record.cost_usd,
        record.settings.get("variant"),
        record.model_dump_json(),
    )


def iteration_params(session_id: str, trace: IterationTrace) -> tuple[object, ...]:
    return (
        session_id,
        trace.iteration,
        trace.passed,
        trace.fallback,
        trace.failure_tag,
        len(trace.constraints),
        trace.started_at,
        trace.finished_at,
        iteration_duration_ms(trace),
        output_text(trace.output),
    )


def iteration_duration_ms(trace: IterationTrace) -> float | None:
    """Wall time of an iteration: from its timestamps, else the sum of its phase timings."""
    if trace.started_at is not None and trace.finished_at is not None:
        return (trace.finished_at - trace.started_at) * 1000
    return sum(trace.timings.values()) if trace.timings else None
