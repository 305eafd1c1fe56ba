"""Writing sessions through the store: folders, the latest-run mirror, events, statuses."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys

import pytest
from pydantic import ValidationError

from ralph_tui.atomic import write_atomic
from ralph_tui.events import ModelTurnPartial, Notice, RunFinished, SandboxExecuted
from ralph_tui.traces.files import last_event_at
from ralph_tui.traces.index import SessionIndex
from ralph_tui.traces.liveness import effective_status, writer_alive
from ralph_tui.traces.models import SessionRecord
from ralph_tui.traces.store import TraceStore
from tests.traces.trace_writers import make_trace


def test_create_session_makes_the_folder_and_indexes_it(store: TraceStore) -> None:
    handle = store.create_session(SessionRecord(mode="qa", query="Who signed?", doc_chars=9))
    session_json = json.loads((handle.folder / "session.json").read_text())
    assert session_json["session_id"] == handle.session_id
    assert (session_json["status"], session_json["pid"]) == ("running", os.getpid())
    assert handle.folder == store.out_dir / "sessions" / handle.session_id
    assert [r.session_id for r in store.index.list_sessions()] == [handle.session_id]


def test_write_iteration_writes_session_copy_mirror_and_index(store: TraceStore) -> None:
    handle = store.create_session(SessionRecord(mode="qa", query="q"))
    handle.write_iteration(make_trace(1, "- first answer"))
    session_copy = (handle.folder / "iter-01.json").read_text()
    assert (store.out_dir / "iter-01.json").read_text() == session_copy
    assert json.loads(session_copy)["failureTag"] == "judge"
    assert store.load_session(handle.session_id).iterations == 1
    rows = store.index.iterations(handle.session_id)
    assert [(r.iteration, r.passed, r.failure_tag) for r in rows] == [(1, False, "judge")]
    assert rows[0].output_preview.startswith("- first answer")
    assert rows[0].duration_ms == pytest.approx(500.0)


def test_a_new_run_replaces_the_previous_runs_top_level_traces(store: TraceStore) -> None:
    earlier = store.create_session(SessionRecord(mode="task", query="old"))
    for iteration in (1, 2, 3):
        earlier.write_iteration(make_trace(iteration, "old answer"))
    earlier.subtask("a").write_iteration(make_trace(1, "old sub-task"))
    (store.out_dir / "notes.txt").write_text("mine")

    later = store.create_session(SessionRecord(mode="task", query="new"))
    later.write_iteration(make_trace(1, "new answer"))

    top_level = sorted(p.name for p in store.out_dir.iterdir())
    index_files = ["index.sqlite", "index.sqlite-shm", "index.sqlite-wal"]
    assert top_level == [*index_files, "iter-01.json", "notes.txt", "sessions"]
    assert "new answer" in (store.out_dir / "iter-01.json").read_text()
    assert len(store.iterations(earlier.session_id)) == 3


def test_an_unwritable_index_does_not_stop_the_run(
    store: TraceStore, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    handle = store.create_session(SessionRecord(mode="qa", query="q"))

    def locked(*_args: object) -> None:
        raise sqlite3.OperationalError("database is locked")

    monkeypatch.setattr(SessionIndex, "record_iteration", locked)
    handle.write_iteration(make_trace(1, "kept on disk"))
    assert "session index not updated" in caplog.text
    assert store.index.iterations(handle.session_id) == []
    assert len(store.iterations(handle.session_id)) == 1
    store.reindex()
    assert [r.iteration for r in store.index.iterations(handle.session_id)] == [1]


def test_iterations_come_back_in_numeric_order(store: TraceStore) -> None:
    handle = store.create_session(SessionRecord(mode="qa", query="q"))
    for iteration in (10, 2, 1):
        handle.write_iteration(make_trace(iteration, f"answer {iteration}"))
    assert [t.iteration for t in store.iterations(handle.session_id)] == [1, 2, 10]
    assert store.load_session(handle.session_id).iterations == 10


def test_update_and_finish(store: TraceStore) -> None:
    handle = store.create_session(SessionRecord(mode="qa", query="q"))
    handle.update_session(input_tokens=1200, output_tokens=300, cost_usd=0.012)
    with pytest.raises(ValidationError):
        handle.update_session(status="done")
    with pytest.raises(ValueError, match="id cannot change"):
        handle.update_session(session_id="2026-01-01/qa-00000000")
    with pytest.raises(ValueError, match="final status"):
        handle.finish("running")
    final = handle.finish("failed", error="no iteration passed")
    assert final.finished_at is not None and final.duration_ms is not None
    on_disk = store.load_session(handle.session_id)
    assert (on_disk.status, on_disk.error, on_disk.cost_usd) == ("failed", final.error, 0.012)
    indexed = store.index.get(handle.session_id)
    assert indexed == on_disk


def test_finish_keeps_an_error_recorded_earlier(store: TraceStore) -> None:
    handle = store.create_session(SessionRecord(mode="qa", query="q"))
    handle.update_session(error="AuthenticationError: bad key")
    assert handle.finish("error").error == "AuthenticationError: bad key"


def test_subtasks_are_sessions_inside_their_parent(store: TraceStore) -> None:
    handle = store.create_session(SessionRecord(mode="task", query="Big task", doc_chars=50))
    passing, failing = handle.subtask("s1", "part one"), handle.subtask("s2")
    assert handle.subtask("s1") is passing
    passing.write_iteration(make_trace(1, "part one done", passed=True))
    failing.write_iteration(make_trace(1, "part two tried"))
    handle.finish("passed")

    assert passing.folder == handle.folder / "subtask-s1"
    assert (store.out_dir / "subtask-s1" / "iter-01.json").is_file()
    subtasks = store.index.subtasks(handle.session_id)
    assert [(s.subtask_id, s.query, s.status) for s in subtasks] == [
        ("s1", "part one", "passed"),
        ("s2", "Big task", "failed"),
    ]
    assert subtasks[0].session_id == f"{handle.session_id}/subtask-s1"
    assert [r.session_id for r in store.index.list_sessions()] == [handle.session_id]
    assert len(store.iterations(passing.session_id)) == 1


def test_cancelling_a_parent_cancels_its_open_subtasks(store: TraceStore) -> None:
    handle = store.create_session(SessionRecord(mode="task", query="t"))
    handle.subtask("s1").write_iteration(make_trace(1, "half way"))
    handle.finish("cancelled")
    assert store.load_session(handle.subtask("s1").session_id).status == "cancelled"


def test_a_turn_still_streaming_is_not_kept_in_the_trace(store: TraceStore) -> None:
    handle = store.create_session(SessionRecord(mode="qa", query="q"))
    handle.append_event(
        ModelTurnPartial(agent="worker", step=1, arguments='{"code": "pri', first_token_ms=5)
    )
    handle.append_event(Notice(message="whole"))
    events, _ = store.tail_events(handle.session_id)
    assert [type(e).__name__ for e in events] == ["Notice"]


def test_tail_events_reads_whole_lines_from_an_offset(store: TraceStore) -> None:
    handle = store.create_session(SessionRecord(mode="qa", query="q"))
    assert store.tail_events(handle.session_id, 0) == ([], 0)
    handle.append_event(Notice(message="one"))
    handle.append_event(
        SandboxExecuted(agent="worker", step=1, code="print(1)", output="1\n", duration_ms=3.0)
    )
    events, offset = store.tail_events(handle.session_id)
    assert [type(e).__name__ for e in events] == ["Notice", "SandboxExecuted"]
    assert all(e.session_id == handle.session_id for e in events)
    log = handle.folder / "events.jsonl"
    assert offset == log.stat().st_size

    finished = RunFinished(status="passed", iterations=1).model_dump_json()
    with log.open("ab") as file:
        file.write(b"not json at all\n")
        file.write(b'{"type": "from_the_future", "ts": 1}\n')
        file.write(finished[:20].encode())
    events, partial_offset = store.tail_events(handle.session_id, offset)
    assert events == []
    assert partial_offset == log.stat().st_size - 20

    with log.open("ab") as file:
        file.write(finished[20:].encode() + b"\n")
    events, final_offset = store.tail_events(handle.session_id, partial_offset)
    assert [type(e).__name__ for e in events] == ["RunFinished"]
    assert final_offset == log.stat().st_size
    assert store.tail_events(handle.session_id, final_offset) == ([], final_offset)


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def _rewrite_record(store: TraceStore, record: SessionRecord) -> None:
    """Make the files and the index say what a killed writer would have left."""
    write_atomic(store.out_dir / "sessions" / record.session_id / "session.json", record.to_json())
    store.index.upsert_session(record)


def test_running_sessions_of_dead_writers_are_marked_crashed(store: TraceStore) -> None:
    dead = store.create_session(SessionRecord(mode="qa", query="killed"))
    alive = store.create_session(SessionRecord(mode="qa", query="still going"))
    elsewhere = store.create_session(SessionRecord(mode="qa", query="other host"))
    orphan = dead.record.model_copy(update={"pid": _dead_pid()})
    _rewrite_record(store, orphan)
    _rewrite_record(store, elsewhere.record.model_copy(update={"host": "another-machine"}))

    assert effective_status(store.load_session(dead.session_id)) == "crashed"
    assert effective_status(store.load_session(alive.session_id)) == "running"
    assert store.mark_crashed() == [dead.session_id]
    assert store.load_session(dead.session_id).status == "crashed"
    assert [r.session_id for r in store.index.list_sessions(status="crashed")] == [dead.session_id]
    assert store.mark_crashed() == []


def test_a_reused_pid_is_not_mistaken_for_the_writer() -> None:
    record = SessionRecord(mode="qa", query="q", pid=os.getpid(), updated_at=0.0)
    assert writer_alive(record) is False
    assert writer_alive(record.model_copy(update={"updated_at": 4e9})) is True


def _kill_writer(store: TraceStore, record: SessionRecord) -> None:
    _rewrite_record(store, record.model_copy(update={"pid": _dead_pid()}))


def test_a_killed_session_lasts_until_its_last_event(store: TraceStore) -> None:
    created = 1_700_000_000.0
    handle = store.create_session(SessionRecord(mode="qa", query="killed", created_at=created))
    handle.append_event(Notice(message="first", ts=created + 1.0))
    handle.append_event(Notice(message="last", ts=created + 2.5))
    with (handle.folder / "events.jsonl").open("ab") as file:
        file.write(b'{"type": "notice", "ts": 1700009999.0, "mess')  # cut off by the kill
    _kill_writer(store, handle.record)
    assert store.mark_crashed() == [handle.session_id]
    assert store.load_session(handle.session_id).duration_ms == pytest.approx(2500.0)


def test_a_resumed_session_adds_its_legs(store: TraceStore) -> None:
    created = 1_700_000_000.0
    first = store.create_session(SessionRecord(mode="qa", query="two legs", created_at=created))
    first.append_event(Notice(message="killed after", ts=created + 2.0))
    _kill_writer(store, first.record)

    second = store.reopen_session(first.session_id)
    assert second.record.earlier_legs_ms == pytest.approx(2000.0)
    leg_started = second.record.leg_started_at
    assert leg_started is not None and leg_started > created + 2.0
    finished = second.finish("failed")
    assert finished.finished_at is not None
    this_leg = (finished.finished_at - leg_started) * 1000
    assert finished.duration_ms == pytest.approx(2000.0 + this_leg)

    third = store.reopen_session(first.session_id)  # a finished leg counts as recorded
    assert third.finish("failed").duration_ms == pytest.approx(2000.0 + this_leg, abs=50.0)


def test_the_last_event_is_read_from_the_end_of_a_long_log(store: TraceStore) -> None:
    handle = store.create_session(SessionRecord(mode="qa", query="long"))
    for n in range(50):
        handle.append_event(Notice(message="x" * 500, ts=1_700_000_000.0 + n))
    assert last_event_at(handle.folder, chunk=700) == 1_700_000_049.0
    assert last_event_at(handle.folder / "nowhere") is None
