"""Trace files, session ids, the event log, and the SQLite session index.

Files under ``<out>/sessions/`` are the truth; ``<out>/index.sqlite`` is a
cache over them that ``reindex`` rebuilds.
"""

from ralph_tui.traces.atomic import append_line, write_atomic
from ralph_tui.traces.index import INDEX_FILE, SessionIndex, reindex
from ralph_tui.traces.index_query import IterationRow
from ralph_tui.traces.liveness import effective_status
from ralph_tui.traces.models import IterationTrace, SessionRecord
from ralph_tui.traces.session_ids import allocate_session_dir, make_session_id
from ralph_tui.traces.store import SessionHandle, TraceStore

__all__ = [
    "INDEX_FILE",
    "IterationRow",
    "IterationTrace",
    "SessionHandle",
    "SessionIndex",
    "SessionRecord",
    "TraceStore",
    "allocate_session_dir",
    "append_line",
    "effective_status",
    "make_session_id",
    "reindex",
    "write_atomic",
]
