"""Several processes writing one out dir at once lose nothing."""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ralph_tui.events import Notice
from ralph_tui.traces.index import SessionIndex, reindex
from ralph_tui.traces.session_ids import make_session_id
from ralph_tui.traces.store import TraceStore
from tests.traces.trace_writers import append_lines, assert_search_in_step, write_sessions

WORKERS = 4


def run_workers(target: Callable[..., None], *args: Any) -> None:
    """Run ``target(*args, worker, barrier, ...)`` in ``WORKERS`` spawned processes at once."""
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(WORKERS)
    processes = [
        context.Process(target=target, args=(args[0], worker, barrier, *args[1:]))
        for worker in range(WORKERS)
    ]
    for process in processes:
        process.start()
    for process in processes:
        process.join(timeout=120)
    assert [process.exitcode for process in processes] == [0] * WORKERS


def test_concurrent_appends_never_interleave(tmp_path: Path) -> None:
    log = tmp_path / "events.jsonl"
    run_workers(append_lines, log, 150)
    lines = log.read_text().split("\n")
    assert lines.pop() == ""
    seen = set()
    for line in lines:
        worker, number, size, filler = line.split(" ")
        assert len(filler) == int(size) and set(filler) <= {"x"}
        seen.add((int(worker), int(number)))
    assert seen == {(w, n) for w in range(WORKERS) for n in range(150)}
    assert len(lines) == WORKERS * 150


def test_concurrent_sessions_lose_nothing(tmp_path: Path) -> None:
    sessions, iterations, events = 4, 3, 5
    run_workers(write_sessions, tmp_path, sessions, iterations, events)

    store = TraceStore(tmp_path)
    index = store.index
    records = index.list_sessions(limit=None)
    assert len(records) == WORKERS * sessions
    for number in range(sessions):
        same_question = [r for r in records if r.query == f"shared question {number}"]
        day = datetime.fromtimestamp(same_question[0].created_at, UTC)
        base = make_session_id(same_question[0].query, "qa", day)
        expected = {base, *(f"{base}-{n}" for n in range(2, WORKERS + 1))}
        assert {r.session_id for r in same_question} == expected

    tags = set()
    for record in records:
        on_disk = store.load_session(record.session_id)
        assert on_disk == record
        assert (on_disk.status, on_disk.iterations) == ("passed", iterations)
        traces = store.iterations(record.session_id)
        assert [t.iteration for t in traces] == list(range(1, iterations + 1))
        assert [r.iteration for r in index.iterations(record.session_id)] == [1, 2, 3]
        logged, _ = store.tail_events(record.session_id)
        assert len(logged) == iterations * (events + 1)
        tag = traces[0].output["answer"].split()[0]
        assert all(isinstance(e, Notice) and e.message.split()[0] == tag for e in logged)
        assert [r.session_id for r in index.search(tag)] == [record.session_id]
        tags.add(tag)
    assert tags == {f"w{w}s{n}" for w in range(WORKERS) for n in range(sessions)}

    incremental = answers(index)
    assert_search_in_step(index.path)
    store.close()
    reindex(tmp_path)
    with SessionIndex(tmp_path / "index.sqlite") as rebuilt:
        assert answers(rebuilt) == incremental


def answers(index: SessionIndex) -> list[object]:
    listed = index.list_sessions(limit=None)
    return [
        listed,
        [index.iterations(r.session_id) for r in listed],
        [index.search(f"w{w}s1") for w in range(WORKERS)],
        index.search("answer", limit=100),
    ]
