"""The session follower without the app: what it reads of a session folder being written.

The folder is written the way writers write it (``SessionHandle``) or, where a test
needs what no well-behaved writer does (half a line, a truncated or replaced log),
byte by byte.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from ralph_tui.atomic import write_atomic
from ralph_tui.events import BaseEvent, Notice, RunFinished, event_to_json
from ralph_tui.traces.files import EVENTS_FILE, SESSION_FILE
from ralph_tui.traces.models import SessionRecord
from ralph_tui.traces.store import SessionHandle, TraceStore
from ralph_tui.tui.core.session_follower import EventLines, SessionFollower, is_followed_file
from tests.tui.scripted import scripted_events


@pytest.fixture
def store(tmp_path: Path) -> Iterator[TraceStore]:
    store = TraceStore(tmp_path / "out")
    yield store
    store.close()


@pytest.fixture
def handle(store: TraceStore) -> SessionHandle:
    return store.create_session(SessionRecord(mode="qa", query="q"))


def line(event: BaseEvent) -> bytes:
    return (event_to_json(event) + "\n").encode()


def notices(events: list[BaseEvent]) -> list[str]:
    return [e.message for e in events if isinstance(e, Notice)]


def test_event_lines_keep_an_unfinished_line_until_it_ends() -> None:
    reader = EventLines()
    data = line(Notice(message="one")) + line(Notice(message="two"))
    cut = len(line(Notice(message="one"))) + 7
    assert notices(reader.feed(data[:5])) == []
    assert notices(reader.feed(data[5:cut])) == ["one"]
    assert notices(reader.feed(data[cut:])) == ["two"]
    assert reader.feed(b"") == []


def test_event_lines_skip_lines_that_are_no_event_and_forget_on_reset() -> None:
    reader = EventLines()
    events = reader.feed(b"not json\n" + line(Notice(message="kept")) + b'{"type": "Not')
    assert notices(events) == ["kept"]
    reader.reset()
    assert notices(reader.feed(line(Notice(message="after")))) == ["after"]


def test_the_whole_log_first_then_only_what_was_appended(handle: SessionHandle) -> None:
    for event in scripted_events(handle.session_id)[:5]:
        handle.append_event(event)
    follower = SessionFollower(handle.folder)
    first = follower.follow()
    assert [type(e).__name__ for e in first.events][:2] == ["RunStarted", "IterationStarted"]
    assert len(first.events) == 5 and not first.restarted
    assert first.reload and follower.status == "running"
    assert not follower.follow()
    handle.append_event(Notice(message="more"))
    later = follower.follow([str(handle.folder / EVENTS_FILE)])
    assert notices(later.events) == ["more"] and not later.reload and not later.restarted


def test_a_line_still_being_written_is_read_once_it_ends(handle: SessionHandle) -> None:
    handle.append_event(Notice(message="whole"))
    follower = SessionFollower(handle.folder)
    log = handle.folder / EVENTS_FILE
    half = line(Notice(message="halves", session_id=handle.session_id))
    with log.open("ab") as file:
        file.write(half[:10])
    assert notices(follower.follow().events) == ["whole"]
    assert follower.follow().events == []
    with log.open("ab") as file:
        file.write(half[10:])
    assert notices(follower.follow().events) == ["halves"]


def test_a_truncated_log_is_read_again_from_its_start(handle: SessionHandle) -> None:
    for message in ("a", "b", "c"):
        handle.append_event(Notice(message=message))
    follower = SessionFollower(handle.folder)
    assert notices(follower.follow().events) == ["a", "b", "c"]
    log = handle.folder / EVENTS_FILE
    log.write_bytes(line(Notice(message="fresh")))
    update = follower.follow([str(log)])
    assert update.restarted and notices(update.events) == ["fresh"]
    assert not follower.follow().restarted


def test_a_replaced_log_is_read_again_even_when_it_is_longer(handle: SessionHandle) -> None:
    handle.append_event(Notice(message="old"))
    follower = SessionFollower(handle.folder)
    assert notices(follower.follow().events) == ["old"]
    log = handle.folder / EVENTS_FILE
    write_atomic(log, b"".join(line(Notice(message=m)) for m in ("new 1", "new 2", "new 3")))
    update = follower.follow([str(log)])
    assert update.restarted and notices(update.events) == ["new 1", "new 2", "new 3"]


def test_a_removed_log_restarts_and_a_new_one_is_read(handle: SessionHandle) -> None:
    handle.append_event(Notice(message="gone"))
    follower = SessionFollower(handle.folder)
    follower.follow()
    (handle.folder / EVENTS_FILE).unlink()
    removed = follower.follow()
    assert removed.restarted and removed.events == []
    handle.append_event(Notice(message="again"))
    update = follower.follow()
    assert notices(update.events) == ["again"] and not update.restarted


def test_a_record_update_asks_for_a_reload_and_gives_the_status(handle: SessionHandle) -> None:
    follower = SessionFollower(handle.folder)
    follower.follow()
    record_path = str(handle.folder / SESSION_FILE)
    assert not follower.follow([record_path]).reload  # Told of a change that changed nothing.
    handle.update_session(input_tokens=120)
    assert follower.follow([record_path]).reload and follower.running
    handle.finish("passed")
    handle.append_event(RunFinished(status="passed", iterations=0))
    update = follower.follow([record_path, str(handle.folder / EVENTS_FILE)])
    assert update.reload and follower.status == "passed" and not follower.running
    assert [type(e).__name__ for e in update.events] == ["RunFinished"]


def test_a_new_iteration_trace_asks_for_a_reload(handle: SessionHandle) -> None:
    follower = SessionFollower(handle.folder)
    follower.follow()
    assert follower.follow([str(handle.folder / "iter-01.json")]).reload
    assert not follower.follow([str(handle.folder / ".iter-01.json.x1y2.tmp")]).reload


def test_a_writer_that_dies_turns_the_session_crashed(handle: SessionHandle) -> None:
    writer = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        record = handle.record.model_copy(update={"pid": writer.pid})
        write_atomic(handle.folder / SESSION_FILE, record.to_json())
        follower = SessionFollower(handle.folder)
        follower.follow()
        assert follower.status == "running"
        assert not follower.follow()  # Quiet, and the writer lives.
    finally:
        writer.kill()
        writer.wait()
    update = follower.follow()
    assert update.reload and follower.status == "crashed"
    assert not follower.follow().reload  # Said once.


def test_a_folder_without_files_yet_is_nothing_new(tmp_path: Path) -> None:
    follower = SessionFollower(tmp_path)
    update = follower.follow()
    assert not update and follower.record is None and follower.status is None


def test_only_the_session_files_are_followed(tmp_path: Path) -> None:
    names = [SESSION_FILE, EVENTS_FILE, "iter-03.json", ".session.json.abc.tmp", "notes.txt"]
    assert [is_followed_file(os.fspath(tmp_path / n)) for n in names] == [
        True,
        True,
        True,
        False,
        False,
    ]
