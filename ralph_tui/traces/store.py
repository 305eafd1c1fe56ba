"""The trace store: session folders, iteration traces, event logs, and the index over them.

``TraceStore(out_dir).create_session(record)`` allocates a fresh session folder
and returns a ``SessionHandle``, through which one process writes that session:
iteration traces, events, record updates, the final status. Every file write
is atomic and is followed by an index upsert, so readers (the session browser,
another process) see the run as it goes. The index is only a cache: when it
cannot be written the files still are, and ``reindex`` catches up.
"""

from __future__ import annotations

import logging
import os
import re
import socket
import sqlite3
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ralph_tui.atomic import append_line, write_atomic
from ralph_tui.errors import UsageError
from ralph_tui.events import BaseEvent, RunStatus, event_from_json, event_to_json
from ralph_tui.traces.children import ChildTree, read_children
from ralph_tui.traces.files import (
    EVENTS_FILE,
    SESSION_FILE,
    iter_filename,
    iteration_number,
    last_event_at,
    read_iterations,
    read_record,
    session_folders,
)
from ralph_tui.traces.index import INDEX_FILE, OnSkip, SessionIndex, scan_session_trees
from ralph_tui.traces.liveness import effective_status
from ralph_tui.traces.models import FINISHED_STATUSES, IterationTrace, SessionRecord
from ralph_tui.traces.session_ids import (
    SUBTASK_PREFIX,
    allocate_session_dir,
    is_session_id,
    session_dir,
    subtask_session_id,
)

log = logging.getLogger(__name__)


ID_TEXT = re.compile(r"[\w/-]+")
"""The characters of a session id, and so of any end of one."""


class UnknownSessionError(UsageError):
    """No session has the id (or the end of an id) given."""

    title = "No such session"
    default_hint = "`ralph-tui sessions list` shows them"


class AmbiguousSessionError(UsageError):
    """The end of an id given is the end of several sessions' ids."""

    title = "Which session?"


class SessionFolderLeadsOut(UsageError):
    """A session folder to be written again (a resume) is, or holds, a link that leads
    outside the out dir: appending to it would write there."""

    title = "A session folder leads out"
    default_hint = (
        "a session folder may come from someone else: remove the link, or re-run the session "
        "(--rerun) into a new folder"
    )


class TraceStore:
    """All sessions under one output directory, and the index over them."""

    def __init__(self, out_dir: Path | str, on_skip: OnSkip | None = None) -> None:
        self.out_dir = Path(out_dir)
        self.on_skip = on_skip
        """Told of each session folder a rebuild of the index leaves out (else logged)."""
        self._index: SessionIndex | None = None
        self._index_lock = threading.Lock()

    @property
    def index(self) -> SessionIndex:
        """The session index, opened (and rebuilt if missing or damaged) on first use."""
        with self._index_lock:
            if self._index is None:
                self.out_dir.mkdir(parents=True, exist_ok=True)
                self._index = SessionIndex(self.out_dir / INDEX_FILE, self.on_skip)
            return self._index

    def close(self) -> None:
        with self._index_lock:
            if self._index is not None:
                self._index.close()
                self._index = None

    def create_session(self, record: SessionRecord) -> SessionHandle:
        """Start a new session for ``record`` in a folder of its own; this process writes it.

        The id (and folder) come from the record's mode, query and creation date;
        the record's own ``session_id``, ``pid`` and ``host`` are replaced.
        """
        when = datetime.fromtimestamp(record.created_at, UTC)
        session_id, folder = allocate_session_dir(self.out_dir, record.query, record.mode, when)
        fresh = record.model_copy(update={"session_id": session_id})
        return SessionHandle(self, fresh, folder, _LatestRunMirror(self.out_dir), "")

    def reopen_session(self, session_id: str) -> SessionHandle:
        """Take over an interrupted session to resume it: this process becomes its writer.
        ``SessionFolderLeadsOut`` when the folder, or anything in it, resolves outside the
        out dir (the run appends to its files: events, the memory file, the episode log)."""
        folder = session_dir(self.out_dir, session_id)
        check_inside(folder, self.out_dir)
        record = read_record(folder)
        earlier = ran_for_ms(folder, record)
        resumed = record.model_copy(
            update={
                "finished_at": None,
                "error": None,
                "duration_ms": earlier,
                "earlier_legs_ms": earlier,
                "leg_started_at": time.time(),
            }
        )
        return SessionHandle(self, resumed, folder, _LatestRunMirror(self.out_dir), "")

    def find_session(self, text: str) -> str:
        """The id of the one session (or sub-task) ``text`` names: its whole id, or a unique
        end of it without the date (``qa-1a2b3c4d``, ``1a2b3c4d``); ``UnknownSessionError``
        or ``AmbiguousSessionError`` otherwise."""
        if not ID_TEXT.fullmatch(text):
            raise UnknownSessionError(f"{text!r} is not a session id")
        if is_session_id(text) and (session_dir(self.out_dir, text) / SESSION_FILE).is_file():
            return text  # a whole id needs no scan of every session folder
        ids = [session_id for session_id, _folder in session_folders(self.out_dir)]
        matches = [i for i in ids if i.endswith(("/" + text, "-" + text))] if text else []
        if len(matches) == 1:
            return matches[0]
        if matches:
            shown = ", ".join(matches[:5]) + (", ..." if len(matches) > 5 else "")
            raise AmbiguousSessionError(
                f"{text!r} is the end of {len(matches)} session ids ({shown}); give more of it"
            )
        raise UnknownSessionError(f"no session {text!r} in {self.out_dir}")

    def load_session(self, session_id: str) -> SessionRecord:
        """The session's record as its ``session.json`` has it (see ``effective_status``)."""
        return read_record(session_dir(self.out_dir, session_id))

    def iterations(self, session_id: str) -> list[IterationTrace]:
        """Every iteration trace of the session, read from its files, in iteration order."""
        return read_iterations(session_dir(self.out_dir, session_id))

    def children(self, session_id: str) -> list[ChildTree]:
        """The child agents the session's agents started (``rlm_query``), as trees."""
        return read_children(session_dir(self.out_dir, session_id))

    def tail_events(self, session_id: str, offset: int = 0) -> tuple[list[BaseEvent], int]:
        """The events appended after byte ``offset``, and the offset to resume from.

        Only whole lines are read, so a line still being written is picked up by
        the next call. Lines that do not parse as a known event are skipped.
        """
        path = session_dir(self.out_dir, session_id) / EVENTS_FILE
        try:
            with path.open("rb") as file:
                file.seek(offset)
                chunk = file.read()
        except FileNotFoundError:
            return [], offset
        end = chunk.rfind(b"\n") + 1
        return parse_event_lines(chunk[:end]), offset + end

    def mark_crashed(self) -> list[str]:
        """Record ``crashed`` for running sessions whose writer process has died.

        ``session.json`` keeps saying ``running`` after its writer is killed;
        readers may use ``effective_status`` instead, and this makes it stick
        (for the session browser to call when it opens). Returns the ids marked.
        """
        marked = []
        for indexed in self.index.list_sessions(status="running", limit=None, subtasks=True):
            folder = session_dir(self.out_dir, indexed.session_id)
            try:
                record = read_record(folder)
            except (OSError, ValueError):
                continue
            if effective_status(record) == "crashed":
                self._save_as_crashed(folder, record)
                marked.append(record.session_id)
        return marked

    def _save_as_crashed(self, folder: Path, record: SessionRecord) -> None:
        crashed = record.model_copy(
            update={
                "status": "crashed",
                "updated_at": time.time(),
                "duration_ms": ran_for_ms(folder, record),
            }
        )
        write_atomic(folder / SESSION_FILE, crashed.to_json())
        self.update_index(lambda index: index.upsert_session(crashed))

    def reindex(self) -> int:
        """Rebuild the index from the session folders (once: opening a missing or outdated
        index has rebuilt it already); returns how many sessions it holds. A folder that
        cannot be read is left out and passed to ``on_skip``."""
        opening = self._index is None
        index = self.index
        if opening and index.rebuilt_on_open:
            return index.count_sessions(subtasks=True)
        return index.rebuild(lambda: scan_session_trees(self.out_dir, self.on_skip))

    def update_index(self, change: Callable[[SessionIndex], None]) -> None:
        """Apply ``change`` to the index; a failure is logged, not raised: files are the truth."""
        try:
            change(self.index)
        except sqlite3.Error as exc:
            log.warning("session index not updated (run `reindex` to catch up): %s", exc)


def ran_for_ms(folder: Path, record: SessionRecord) -> float:
    """How long the session in ``folder`` ran: its recorded duration once it ended, else (its
    writer died) the time until its last event."""
    if record.status != "running" and record.duration_ms is not None:
        return record.duration_ms
    return record.duration_until(last_event_at(folder) or record.updated_at)


class SessionHandle:
    """Writes one session (or sub-task) folder: traces, events, record, final status."""

    def __init__(
        self,
        store: TraceStore,
        record: SessionRecord,
        folder: Path,
        mirror: _LatestRunMirror,
        mirror_subdir: str,
    ) -> None:
        self.store = store
        self.folder = folder
        self._mirror = mirror
        self._mirror_subdir = mirror_subdir
        self._lock = threading.RLock()
        self._subtasks: dict[str, SessionHandle] = {}
        self._passed_any = False
        self._record = record
        self.update_session(status="running")

    @property
    def session_id(self) -> str:
        return self._record.session_id

    @property
    def record(self) -> SessionRecord:
        return self._record

    def write_iteration(self, trace: IterationTrace) -> None:
        """Store one iteration's trace: in the session folder, as the latest run, in the index."""
        text = trace.to_json()
        name = iter_filename(trace.iteration)
        write_atomic(self.folder / name, text)
        self._mirror.write(self._mirror_subdir, name, text)
        with self._lock:
            self._passed_any = self._passed_any or trace.passed
            record = self._save(iterations=max(self._record.iterations, trace.iteration))
            # One index transaction for the iteration row, the session row and its search text.
            self.store.update_index(lambda index: index.record_iteration(record, trace))

    def append_event(self, event: BaseEvent) -> None:
        """Append ``event`` to ``events.jsonl`` as one line; usable as an ``Emit``. Transient
        events (a turn still streaming) are not kept: the trace holds whole turns only."""
        if event.transient:
            return
        if not event.session_id:
            event = event.model_copy(update={"session_id": self.session_id})
        append_line(self.folder / EVENTS_FILE, event_to_json(event))

    def update_session(self, **fields: Any) -> SessionRecord:
        """Change fields of the session record (tokens, cost, settings...) and save it.

        Fields the record does not declare are kept too (the model allows extras).
        """
        if "session_id" in fields:
            raise ValueError("a session's id cannot change")
        with self._lock:
            record = self._save(**fields)
            self.store.update_index(lambda index: index.upsert_session(record))
            return record

    def finish(
        self, status: RunStatus, *, error: str | None = None, **fields: Any
    ) -> SessionRecord:
        """Record how the run ended; sub-tasks still open are closed along with it."""
        if status not in FINISHED_STATUSES:
            raise ValueError(f"not a final status: {status!r}")
        with self._lock:
            for child in self._subtasks.values():
                if child.record.status == "running":
                    child.finish(child._status_when_parent_ends(status))
            finished_at = time.time()
            fields.setdefault("duration_ms", self._record.duration_until(finished_at))
            if error is not None:
                fields["error"] = error
            return self.update_session(status=status, finished_at=finished_at, **fields)

    def subtask(self, subtask_id: str, query: str | None = None) -> SessionHandle:
        """The handle of sub-task ``subtask_id``: a session in ``subtask-<id>/`` of this one."""
        with self._lock:
            if subtask_id not in self._subtasks:
                session_id = subtask_session_id(self.session_id, subtask_id)
                folder = self.folder / f"{SUBTASK_PREFIX}{subtask_id}"
                folder.mkdir(exist_ok=True)
                record = SessionRecord(
                    session_id=session_id,
                    mode=self._record.mode,
                    query=self._record.query if query is None else query,
                    doc_path=self._record.doc_path,
                    doc_sha256=self._record.doc_sha256,
                    doc_chars=self._record.doc_chars,
                    subtask_of=self.session_id,
                    subtask_id=subtask_id,
                )
                subdir = Path(self._mirror_subdir, folder.name).as_posix()
                self._subtasks[subtask_id] = SessionHandle(
                    self.store, record, folder, self._mirror, subdir
                )
            return self._subtasks[subtask_id]

    def _status_when_parent_ends(self, parent_status: RunStatus) -> RunStatus:
        if self._passed_any:
            return "passed"
        return "failed" if parent_status in ("passed", "failed") else parent_status

    def _save(self, **fields: Any) -> SessionRecord:
        """Validate the updated record, stamp this process as its writer, write ``session.json``."""
        merged = {**self._record.model_dump(), **fields}
        merged.update(updated_at=time.time(), pid=os.getpid(), host=socket.gethostname())
        self._record = SessionRecord.model_validate(merged)
        write_atomic(self.folder / SESSION_FILE, self._record.to_json())
        return self._record


class _LatestRunMirror:
    """The out dir's top-level ``iter-XX.json`` (and ``subtask-<id>/``): the latest run only.

    The first write of a session removes the files an earlier run left there.
    With several runs at once in one out dir, the top level holds whatever was
    written last; the session folders are the record.
    """

    def __init__(self, out_dir: Path) -> None:
        self.out_dir = out_dir
        self._cleared = False
        self._lock = threading.Lock()

    def write(self, subdir: str, name: str, text: str) -> None:
        with self._lock:
            if not self._cleared:
                _remove_iteration_files(self.out_dir)
                self._cleared = True
        target = self.out_dir / subdir
        target.mkdir(parents=True, exist_ok=True)
        write_atomic(target / name, text)


def _remove_iteration_files(folder: Path) -> None:
    """Remove ``iter-XX.json`` files here and in ``subtask-*/`` below (then empty folders)."""
    for path in folder.iterdir():
        if path.is_dir() and path.name.startswith(SUBTASK_PREFIX):
            _remove_iteration_files(path)
            _remove_if_empty(path)
        elif iteration_number(path.name) is not None:
            path.unlink(missing_ok=True)


def _remove_if_empty(folder: Path) -> None:
    try:
        folder.rmdir()
    except OSError:
        return


def check_inside(folder: Path, out_dir: Path) -> None:
    """``SessionFolderLeadsOut`` unless ``folder`` and every path under it resolve inside
    ``out_dir`` (links resolved: a ``context.md`` linked to a file elsewhere is refused)."""
    root = out_dir.resolve()
    for path in (folder, *folder.rglob("*")):
        if not path.resolve().is_relative_to(root):
            raise SessionFolderLeadsOut(
                f"{path} leads outside the out dir {root} (to {path.resolve()})"
            )


def parse_event_lines(chunk: bytes) -> list[BaseEvent]:
    """The events in ``chunk``, whole JSON lines; a line that is no known event is skipped."""
    events = []
    for line in chunk.splitlines():
        if not line.strip():
            continue
        try:
            events.append(event_from_json(line))
        except ValueError:
            log.debug("skipping an unreadable event line: %.80r", line)
    return events
