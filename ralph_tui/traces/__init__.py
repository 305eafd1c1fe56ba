"""Trace files, session ids, the event log, and the SQLite session index.

Files under ``<out>/sessions/`` are the truth; ``<out>/index.sqlite`` is a
cache over them that ``reindex`` rebuilds.

The names below load on first use: a module that needs one part (``atomic``'s whole-line
appends) does not pay for the index, the store and their models.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

PUBLIC = {
    "INDEX_FILE": "ralph_tui.traces.index",
    "IterationRow": "ralph_tui.traces.index_query",
    "IterationTrace": "ralph_tui.traces.models",
    "SessionHandle": "ralph_tui.traces.store",
    "SessionIndex": "ralph_tui.traces.index",
    "SessionRecord": "ralph_tui.traces.models",
    "TraceStore": "ralph_tui.traces.store",
    "allocate_session_dir": "ralph_tui.traces.session_ids",
    "append_line": "ralph_tui.atomic",
    "effective_status": "ralph_tui.traces.liveness",
    "make_session_id": "ralph_tui.traces.session_ids",
    "reindex": "ralph_tui.traces.index",
    "write_atomic": "ralph_tui.atomic",
}
"""Each public name and the module that defines it."""

__all__ = list(PUBLIC)

if TYPE_CHECKING:
    from ralph_tui.atomic import append_line as append_line
    from ralph_tui.atomic import write_atomic as write_atomic
    from ralph_tui.traces.index import INDEX_FILE as INDEX_FILE
    from ralph_tui.traces.index import SessionIndex as SessionIndex
    from ralph_tui.traces.index import reindex as reindex
    from ralph_tui.traces.index_query import IterationRow as IterationRow
    from ralph_tui.traces.liveness import effective_status as effective_status
    from ralph_tui.traces.models import IterationTrace as IterationTrace
    from ralph_tui.traces.models import SessionRecord as SessionRecord
    from ralph_tui.traces.session_ids import allocate_session_dir as allocate_session_dir
    from ralph_tui.traces.session_ids import make_session_id as make_session_id
    from ralph_tui.traces.store import SessionHandle as SessionHandle
    from ralph_tui.traces.store import TraceStore as TraceStore


def __getattr__(name: str) -> Any:
    if name not in PUBLIC:
        raise AttributeError(f"module 'ralph_tui.traces' has no attribute {name!r}")
    return getattr(importlib.import_module(PUBLIC[name]), name)
