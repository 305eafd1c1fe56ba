"""Following one session's folder as its writer (this process or another) fills it.

``SessionFollower.follow`` is told which of the folder's files changed (or nothing,
when the watcher woke up without a change) and answers with a ``FollowUpdate``: the
events appended to ``events.jsonl`` since the last call, whether that file started
over, and whether the session must be read again because its record or an
iteration trace changed, or because its writer died without saying so. It is plain
Python (no widgets, no watcher), so the session screen's one watching worker and
the tests drive the same code.
"""

from __future__ import annotations

import os
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path

from ralph_tui.events import BaseEvent, RunStatus
from ralph_tui.traces.files import EVENTS_FILE, SESSION_FILE, iteration_number, read_record
from ralph_tui.traces.liveness import effective_status
from ralph_tui.traces.models import SessionRecord
from ralph_tui.traces.store import parse_event_lines


class EventLines:
    """Events out of the bytes appended to an event log, whole lines only.

    A chunk may end inside a line (the writer's append is still landing, or the
    reader caught it between two reads); the unfinished part waits for the rest.
    """

    def __init__(self) -> None:
        self._partial = b""

    def feed(self, chunk: bytes) -> list[BaseEvent]:
        """The events completed by ``chunk``; an unfinished last line is kept for later."""
        data = self._partial + chunk
        end = data.rfind(b"\n") + 1
        self._partial = data[end:]
        return parse_event_lines(data[:end])

    def reset(self) -> None:
        """Forget an unfinished line (the log was replaced or truncated)."""
        self._partial = b""


@dataclass
class FollowUpdate:
    """What changed in a followed session since the last ``follow``."""

    events: list[BaseEvent] = field(default_factory=list)
    """Events appended since the last call, in the order they were written."""
    restarted: bool = False
    """The event log was replaced or truncated: ``events`` replay it from its start,
    and whatever was built from the old log must be dropped first."""
    reload: bool = False
    """The record or an iteration trace changed (or the writer died): read the session again."""

    def __bool__(self) -> bool:
        return bool(self.events) or self.restarted or self.reload


@dataclass(frozen=True)
class _LogPosition:
    """Which file the event log was, and how far into it the reader got."""

    device: int = 0
    inode: int = 0
    offset: int = 0


def is_followed_file(path: str) -> bool:
    """Whether a change to ``path`` concerns a follower: the record, the log, a trace."""
    name = Path(path).name
    return name in (SESSION_FILE, EVENTS_FILE) or iteration_number(name) is not None


class SessionFollower:
    """The reading side of one session folder: its event log and its record's status."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.lines = EventLines()
        self.record: SessionRecord | None = None
        self.status: RunStatus | None = None
        """The session's status as a reader should show it (``crashed`` once its writer died)."""
        self._position = _LogPosition()

    @property
    def running(self) -> bool:
        return self.status == "running"

    def follow(self, changed: Collection[str] = ()) -> FollowUpdate:
        """Read what is new. ``changed`` names the files a watcher saw change; the log is
        read whatever it says (a stat tells whether there is anything to read), so a
        change the watcher missed is picked up on its next wake-up."""
        update = FollowUpdate()
        self._read_events(update)
        names = {Path(path).name for path in changed}
        if self.record is None or SESSION_FILE in names:
            update.reload |= self._read_record()
        elif self.running:
            update.reload |= self._recheck_writer()
        if any(iteration_number(name) is not None for name in names):
            update.reload = True
        return update

    def _read_events(self, update: FollowUpdate) -> None:
        path = self.folder / EVENTS_FILE
        try:
            with path.open("rb") as file:
                stat = os.fstat(file.fileno())
                position = self._position
                if (stat.st_dev, stat.st_ino) != (position.device, position.inode) or (
                    stat.st_size < position.offset
                ):
                    update.restarted = position.offset > 0
                    self.lines.reset()
                    position = _LogPosition(stat.st_dev, stat.st_ino, 0)
                file.seek(position.offset)
                chunk = file.read()
        except FileNotFoundError:
            if self._position.offset > 0:
                update.restarted = True
                self.lines.reset()
            self._position = _LogPosition()
            return
        self._position = _LogPosition(position.device, position.inode, position.offset + len(chunk))
        update.events = self.lines.feed(chunk)

    def _read_record(self) -> bool:
        """Read ``session.json`` again; whether the record or the status it gives changed."""
        try:
            record = read_record(self.folder)
        except (OSError, ValueError):
            return False  # Not written yet, or being replaced by hand: the next change says.
        status = effective_status(record)
        changed = record != self.record or status != self.status
        self.record, self.status = record, status
        return changed

    def _recheck_writer(self) -> bool:
        """A writer that dies never says so: whether this session just turned ``crashed``."""
        assert self.record is not None
        status = effective_status(self.record)
        if status == self.status:
            return False
        self.status = status
        return True
