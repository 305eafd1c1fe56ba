"""The session index: filters, sort, paging, full-text search, rebuilds and recovery."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ralph_tui.events import RunStatus
from ralph_tui.traces.index import SessionIndex, reindex
from ralph_tui.traces.models import SessionRecord
from ralph_tui.traces.store import TraceStore
from tests.traces.trace_writers import assert_search_in_step, make_trace

DAY = 86_400.0
FEB_20 = datetime(2026, 2, 20, 12, tzinfo=UTC).timestamp()

# (mode, query, final status, cost, days after Feb 20, answer text)
SESSIONS: list[tuple[str, str, RunStatus, float | None, int, str]] = [
    ("qa", "What is the refund policy?", "passed", 0.02, 0, "Refunds are issued within 30 days"),
    ("qa", "Who signed the contract?", "failed", 0.05, 0, "The CEO signed on page 4"),
    ("task", "Summarise the risks", "passed", 0.01, 1, "Currency risk and supplier risk"),
    ("task", 'what\'s "this" (x)', "error", None, 2, "Quoting is hard: AND OR NOT *"),
    ("qa", "Which penalties apply?", "cancelled", 0.03, 3, "Late delivery penalties apply"),
]


def build_sessions(store: TraceStore) -> list[str]:
    """Write ``SESSIONS`` (plus a re-run and a sub-task), returning the session ids in order."""
    ids = []
    for number, (mode, query, status, cost, days, answer) in enumerate(SESSIONS):
        created = FEB_20 + days * DAY + number
        handle = store.create_session(SessionRecord(mode=mode, query=query, created_at=created))
        handle.write_iteration(make_trace(1, f"{answer}, draft"))
        handle.write_iteration(make_trace(2, answer, passed=status == "passed"))
        handle.finish(status, cost_usd=cost)
        ids.append(handle.session_id)
    rerun = store.create_session(
        SessionRecord(
            mode="qa", query="Who signed it?", parent_session_id=ids[1], created_at=FEB_20
        )
    )
    rerun.subtask("s1", "the signature page").write_iteration(make_trace(1, "zebra stripes"))
    rerun.finish("passed", cost_usd=0.04)
    return [*ids, rerun.session_id]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[TraceStore, list[str]]]:
    store = TraceStore(tmp_path_factory.mktemp("index") / "out")
    yield store, build_sessions(store)
    store.close()


def ids_of(records: list[SessionRecord]) -> list[str]:
    return [r.session_id for r in records]


def test_newest_first_by_default(built: tuple[TraceStore, list[str]]) -> None:
    store, ids = built
    assert ids_of(store.index.list_sessions()) == [ids[4], ids[3], ids[2], ids[1], ids[0], ids[5]]
    assert store.index.count_sessions() == 6


@pytest.mark.parametrize(
    ("filters", "expected"),
    [
        ({"mode": "task"}, [3, 2]),
        ({"status": "passed"}, [2, 0, 5]),
        ({"status": ["failed", "error"]}, [3, 1]),
        ({"date_from": date(2026, 2, 21), "date_to": date(2026, 2, 22)}, [3, 2]),
        ({"date_from": FEB_20 + DAY, "date_to": FEB_20 + 2 * DAY}, [2]),
        ({"date_to": date(2026, 2, 20), "mode": "qa"}, [1, 0, 5]),
        ({"parent": "placeholder"}, [5]),
        ({"text": "risk"}, [2]),
        ({"text": "signed", "status": "passed"}, [5]),
        ({"text": "((("}, [4, 3, 2, 1, 0, 5]),
    ],
)
def test_filters(
    built: tuple[TraceStore, list[str]], filters: dict[str, Any], expected: list[int]
) -> None:
    store, ids = built
    if filters.get("parent") == "placeholder":
        filters = {**filters, "parent": ids[1]}
    assert ids_of(store.index.list_sessions(**filters)) == [ids[n] for n in expected]
    assert store.index.count_sessions(**filters) == len(expected)


def test_sorting_and_paging(built: tuple[TraceStore, list[str]]) -> None:
    store, ids = built
    by_cost = store.index.list_sessions(sort="cost_usd", descending=False)
    assert ids_of(by_cost) == [ids[n] for n in (3, 2, 0, 4, 5, 1)]
    pages = [ids_of(store.index.list_sessions(limit=4, offset=offset)) for offset in (0, 4, 8)]
    assert [len(page) for page in pages] == [4, 2, 0]
    assert pages[0] + pages[1] == ids_of(store.index.list_sessions(limit=None))
    with pytest.raises(ValueError, match="cannot sort"):
        store.index.list_sessions(sort="record; DROP TABLE sessions")


def test_search_finds_query_and_output_words(built: tuple[TraceStore, list[str]]) -> None:
    store, ids = built
    assert ids_of(store.index.search("refund")) == [ids[0]]
    assert ids_of(store.index.search("REFUNDS issued")) == [ids[0]]
    assert ids_of(store.index.search("penal*")) == [ids[4]]
    assert set(ids_of(store.index.search("signed"))) == {ids[1], ids[5]}
    assert store.index.search("zebra") == []
    assert ids_of(store.index.search("zebra", subtasks=True)) == [f"{ids[5]}/subtask-s1"]


@pytest.mark.parametrize(
    "text",
    ['what\'s "this" (x)', "AND OR NOT", "hard AND", "NEAR(a b)", 'x" OR "y', "col:this"],
)
def test_awkward_search_text_is_taken_literally(
    built: tuple[TraceStore, list[str]], text: str
) -> None:
    store, ids = built
    found = ids_of(store.index.search(text))
    assert found in ([], [ids[3]])
    if text.startswith("what's") or text == "AND OR NOT":
        assert found == [ids[3]]


@settings(max_examples=150, deadline=None)
@given(text=st.text(alphabet=st.characters(codec="utf-8"), max_size=40))
def test_no_search_text_raises(built: tuple[TraceStore, list[str]], text: str) -> None:
    store, _ = built
    assert isinstance(store.index.search(text), list)
    assert store.index.count_sessions(text=text) >= 0


def test_search_follows_rewritten_iterations_and_updates(tmp_path: Path) -> None:
    store = TraceStore(tmp_path)
    build_sessions(store)
    assert_search_in_step(store.index.path)
    handle = store.create_session(SessionRecord(mode="qa", query="first wording"))
    handle.write_iteration(make_trace(1, "aardvark"))
    handle.write_iteration(make_trace(1, "badger"))
    handle.update_session(query="second wording")
    assert store.index.search("aardvark") == []
    assert store.index.search("first") == []
    assert ids_of(store.index.search("badger second")) == [handle.session_id]
    assert_search_in_step(store.index.path)
    store.close()


def test_children_subtasks_and_iterations(built: tuple[TraceStore, list[str]]) -> None:
    store, ids = built
    assert ids_of(store.index.children(ids[1])) == [ids[5]]
    assert ids_of(store.index.subtasks(ids[5])) == [f"{ids[5]}/subtask-s1"]
    rows = store.index.iterations(ids[0])
    assert [(r.iteration, r.passed, r.constraints) for r in rows] == [(1, False, 0), (2, True, 1)]


def index_answers(index: SessionIndex, ids: list[str]) -> list[object]:
    """Everything the browser would ask, for comparing two indexes."""
    answers: list[object] = [
        index.list_sessions(limit=None, subtasks=True),
        index.list_sessions(sort="cost_usd", limit=3, offset=1),
        index.list_sessions(mode="qa", status=["passed", "failed"]),
        index.count_sessions(date_from=date(2026, 2, 21)),
    ]
    answers += [index.search(text) for text in ("risk", "signed", "answer", "penal*", "x")]
    for session_id in ids:
        answers += [index.get(session_id), index.iterations(session_id)]
        answers += [index.children(session_id), index.subtasks(session_id)]
    return answers


def test_reindex_gives_the_same_answers(tmp_path: Path) -> None:
    store = TraceStore(tmp_path)
    ids = build_sessions(store)
    incremental = index_answers(store.index, ids)
    store.close()
    assert reindex(tmp_path) == 7
    with SessionIndex(tmp_path / "index.sqlite") as rebuilt:
        assert index_answers(rebuilt, ids) == incremental
    assert_search_in_step(tmp_path / "index.sqlite")
    (tmp_path / "index.sqlite").unlink()
    assert reindex(tmp_path) == 7
    with SessionIndex(tmp_path / "index.sqlite") as fresh:
        assert not fresh.rebuilt_on_open
        assert index_answers(fresh, ids) == incremental


def test_reindex_through_an_open_store_keeps_it_usable(tmp_path: Path) -> None:
    store = TraceStore(tmp_path)
    ids = build_sessions(store)
    expected = index_answers(store.index, ids)
    assert store.reindex() == 7
    assert index_answers(store.index, ids) == expected
    later = store.create_session(SessionRecord(mode="qa", query="after the rebuild"))
    assert store.index.list_sessions(limit=1)[0].session_id == later.session_id
    store.close()


@pytest.mark.parametrize("damage", ["garbage", "truncated", "missing", "old_schema"])
def test_a_damaged_index_is_rebuilt_from_the_files(tmp_path: Path, damage: str) -> None:
    store = TraceStore(tmp_path)
    ids = build_sessions(store)
    expected = index_answers(store.index, ids)
    store.close()
    index_file = tmp_path / "index.sqlite"
    if damage == "old_schema":
        with sqlite3.connect(index_file) as conn:
            conn.execute("PRAGMA user_version = 999")
    else:
        healthy = index_file.read_bytes()
        for suffix in ("", "-wal", "-shm"):
            Path(f"{index_file}{suffix}").unlink(missing_ok=True)
        if damage == "garbage":
            index_file.write_bytes(b"this is not a database" * 300)
        elif damage == "truncated":
            index_file.write_bytes(healthy[:100] + b"\0garbage" * 2000)
    reopened = TraceStore(tmp_path)
    assert index_answers(reopened.index, ids) == expected
    reopened.close()


def test_an_index_damaged_while_open_recovers_on_the_next_query(tmp_path: Path) -> None:
    store = TraceStore(tmp_path)
    ids = build_sessions(store)
    expected = index_answers(store.index, ids)
    index_file = store.index.path
    with sqlite3.connect(index_file) as other:
        other.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    with index_file.open("r+b") as file:
        file.write(b"\x13" * index_file.stat().st_size)
    assert index_answers(store.index, ids) == expected
    store.close()


def test_an_older_write_does_not_undo_a_newer_one(tmp_path: Path) -> None:
    with SessionIndex(tmp_path / "index.sqlite") as index:
        newer = SessionRecord(
            session_id="2026-02-20/qa-0123abcd", mode="qa", query="q", status="passed"
        )
        index.upsert_session(newer)
        index.upsert_session(newer.model_copy(update={"status": "running", "updated_at": 1.0}))
        assert index.get(newer.session_id) == newer
