"""Reading the session folders: the source of truth the index is built from.

A session folder holds ``session.json`` (a ``SessionRecord``), one
``iter-XX.json`` per iteration (an ``IterationTrace``), ``events.jsonl``, and
one ``subtask-<id>/`` folder (laid out the same way) per sub-task.

A session folder may come from someone else, so its files are read as input: through the
bounded JSON reader (``json_input``), each file or line no larger than the sizes below,
before pydantic sees them.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Iterator
from pathlib import Path

from ralph_tui.events import MAX_EVENT_LINE_BYTES
from ralph_tui.json_input import parse_json, read_json
from ralph_tui.traces.models import IterationTrace, SessionRecord
from ralph_tui.traces.session_ids import SESSIONS_DIR, SUBTASK_PREFIX

SESSION_FILE = "session.json"
EVENTS_FILE = "events.jsonl"
ITER_GLOB = "iter-*.json"

MAX_SESSION_BYTES = 64 * 2**20
"""The largest ``session.json`` read (ours hold the query and the settings: kilobytes)."""
MAX_ITERATION_BYTES = 64 * 2**20
"""The largest ``iter-XX.json`` read (an iteration's output, quotes and checks)."""

_ITER_NAME_RE = re.compile(r"iter-(\d+)\.json")

log = logging.getLogger(__name__)


def iter_filename(iteration: int) -> str:
    """``iter-01.json`` for iteration 1 (two digits at least, like the seeds)."""
    return f"iter-{iteration:02d}.json"


def iteration_number(filename: str) -> int | None:
    """The iteration an ``iter-XX.json`` name stands for, or ``None`` for other names."""
    match = _ITER_NAME_RE.fullmatch(filename)
    return int(match.group(1)) if match else None


def read_record(folder: Path) -> SessionRecord:
    """The ``session.json`` of a session folder; ``JsonRefused`` (naming the file) when it
    is past the bounds of ``parse_json``, a ``ValidationError`` when it is no record."""
    path = folder / SESSION_FILE
    return SessionRecord.model_validate(read_json(path, max_bytes=MAX_SESSION_BYTES))


def read_trace(path: Path) -> IterationTrace:
    """An ``iter-XX.json`` file, read as ``read_record`` reads a record."""
    return IterationTrace.model_validate(read_json(path, max_bytes=MAX_ITERATION_BYTES))


def read_iterations(folder: Path) -> list[IterationTrace]:
    """Every readable iteration trace in a session folder, in iteration order.

    A file that does not parse (edited by hand, say) is skipped with a warning
    rather than hiding the rest of the session.
    """
    numbered = sorted(
        (number, path)
        for path in folder.glob(ITER_GLOB)
        if (number := iteration_number(path.name)) is not None
    )
    traces = []
    for _, path in numbered:
        try:
            traces.append(read_trace(path))
        except (OSError, ValueError) as exc:  # JsonRefused and ValidationError included
            log.warning("skipping unreadable trace %s: %s", path, exc)
    return traces


def last_event_at(folder: Path, chunk: int = 64 * 1024) -> float | None:
    """When the last whole event line of the session's ``events.jsonl`` happened (``None``
    without one): where a killed run stopped. Reads back from the end, not the whole log."""
    try:
        with (folder / EVENTS_FILE).open("rb") as file:
            start = file.seek(0, os.SEEK_END)
            tail = b""
            while start > 0:
                end, start = start, max(0, start - chunk)
                file.seek(start)
                tail = file.read(end - start) + tail
                lines = tail[: tail.rfind(b"\n") + 1].splitlines()
                # A line cut by the chunk's start is whole only at the start of the file.
                for line in reversed(lines if start == 0 else lines[1:]):
                    if (ts := _event_time(line)) is not None:
                        return ts
    except OSError:
        return None
    return None


def _event_time(line: bytes) -> float | None:
    try:
        ts = parse_json(line, EVENTS_FILE, max_bytes=MAX_EVENT_LINE_BYTES).get("ts")
    except (ValueError, AttributeError):
        return None
    return float(ts) if isinstance(ts, (int, float)) else None


def session_folders(out_dir: Path) -> Iterator[tuple[str, Path]]:
    """``(session_id, folder)`` for every session and sub-task folder under ``out_dir``."""
    sessions = out_dir / SESSIONS_DIR
    if not sessions.is_dir():
        return
    for day in sorted(p for p in sessions.iterdir() if p.is_dir()):
        for folder in sorted(p for p in day.iterdir() if p.is_dir()):
            yield from _with_subtasks(f"{day.name}/{folder.name}", folder)


def _with_subtasks(session_id: str, folder: Path) -> Iterator[tuple[str, Path]]:
    if (folder / SESSION_FILE).is_file():
        yield session_id, folder
    for child in sorted(folder.glob(f"{SUBTASK_PREFIX}*")):
        if child.is_dir():
            yield from _with_subtasks(f"{session_id}/{child.name}", child)
