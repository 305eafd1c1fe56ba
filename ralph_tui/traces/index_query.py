"""Building the index's read queries: filters, sort orders, paging, full-text search."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from ralph_tui.traces.search_text import fts_query

DateBound = date | datetime | float

SORT_COLUMNS = frozenset(
    {
        "created_at",
        "updated_at",
        "finished_at",
        "duration_ms",
        "cost_usd",
        "iterations",
        "input_tokens",
        "output_tokens",
        "status",
        "mode",
        "query",
    }
)


@dataclass(frozen=True)
class IterationRow:
    """What the index knows of one iteration (the full trace is in its file)."""

    session_id: str
    iteration: int
    passed: bool
    fallback: bool
    failure_tag: str | None
    constraints: int
    started_at: float | None
    finished_at: float | None
    duration_ms: float | None
    output_preview: str


def iteration_row(row: Sequence[Any]) -> IterationRow:
    sid, number, passed, fallback, tag, constraints, started, finished, duration, preview = row
    return IterationRow(
        session_id=str(sid),
        iteration=int(number),
        passed=bool(passed),
        fallback=bool(fallback),
        failure_tag=None if tag is None else str(tag),
        constraints=int(constraints),
        started_at=_optional_float(started),
        finished_at=_optional_float(finished),
        duration_ms=_optional_float(duration),
        output_preview=str(preview),
    )


@dataclass(frozen=True)
class SessionFilter:
    """The filters of ``list_sessions``/``count_sessions``; ``None`` means "any"."""

    mode: str | None = None
    status: str | Sequence[str] | None = None
    date_from: DateBound | None = None
    date_to: DateBound | None = None
    parent: str | None = None
    text: str | None = None
    subtasks: bool = False

    def where(self) -> tuple[str, list[object]]:
        """A ``WHERE`` clause over ``sessions`` (or ``""``) and its parameters."""
        clauses: list[str] = []
        params: list[object] = []
        if self.mode is not None:
            clauses.append("mode = ?")
            params.append(self.mode)
        if self.status is not None:
            statuses = [self.status] if isinstance(self.status, str) else list(self.status)
            clauses.append(f"status IN ({', '.join('?' * len(statuses))})")
            params.extend(statuses)
        if self.date_from is not None:
            clauses.append("created_at >= ?")
            params.append(_epoch(self.date_from, end_of_day=False))
        if self.date_to is not None:
            clauses.append("created_at < ?" if _whole_day(self.date_to) else "created_at <= ?")
            params.append(_epoch(self.date_to, end_of_day=True))
        if self.parent is not None:
            clauses.append("parent_session_id = ?")
            params.append(self.parent)
        match = fts_query(self.text) if self.text else None
        if match is not None:
            clauses.append("id IN (SELECT rowid FROM search WHERE search MATCH ?)")
            params.append(match)
        if not self.subtasks:
            clauses.append("subtask_of IS NULL")
        return (" WHERE " + " AND ".join(clauses) if clauses else ""), params


def list_statement(
    where: SessionFilter, sort: str, descending: bool, limit: int | None, offset: int
) -> tuple[str, list[object]]:
    """The page query of ``list_sessions``; ties break on the session id, same direction."""
    if sort not in SORT_COLUMNS:
        raise ValueError(f"cannot sort sessions by {sort!r}; use one of {sorted(SORT_COLUMNS)}")
    direction = "DESC" if descending else "ASC"
    order = f"ORDER BY {sort} {direction}, session_id {direction}"
    clause, params = where.where()
    # Pick the page by id first, so a sort that cannot use an index moves small rows
    # around, not every session's whole record.
    statement = (
        f"SELECT record FROM sessions WHERE id IN"
        f" (SELECT id FROM sessions{clause} {order} LIMIT ? OFFSET ?) {order}"
    )
    return statement, [*params, -1 if limit is None else limit, offset]


def search_statement(match: str, limit: int, subtasks: bool) -> tuple[str, list[object]]:
    """Best full-text matches first (bm25), newest first among equals."""
    only_sessions = "" if subtasks else " AND s.subtask_of IS NULL"
    statement = (
        "SELECT s.record FROM search JOIN sessions s ON s.id = search.rowid"
        f" WHERE search MATCH ?{only_sessions}"
        " ORDER BY search.rank, s.created_at DESC, s.session_id LIMIT ?"
    )
    return statement, [match, limit]


def _whole_day(bound: DateBound) -> bool:
    return isinstance(bound, date) and not isinstance(bound, datetime)


def _epoch(bound: DateBound, end_of_day: bool) -> float:
    """Unix seconds for a bound: a ``date`` is a UTC day, a naive ``datetime`` local time."""
    if isinstance(bound, datetime):
        return bound.timestamp()
    if isinstance(bound, date):
        day = bound + timedelta(days=1) if end_of_day else bound
        return datetime.combine(day, time(0), tzinfo=UTC).timestamp()
    return float(bound)


def _optional_float(value: Any) -> float | None:
    return None if value is None else float(value)
