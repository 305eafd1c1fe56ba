"""Session folders written by someone else are read as input: through the bounded JSON
reader, each file or line within its size. ``sessions reindex`` leaves out a folder it
cannot read, with one line naming the folder and why, and indexes the rest (exit 1)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from ralph_tui.cli import run_cli
from ralph_tui.events import Notice, event_to_json
from ralph_tui.json_input import JsonRefused
from ralph_tui.lcm.store import MessageStore
from ralph_tui.llm.types import ChatMessage
from ralph_tui.memory import episodes
from ralph_tui.memory.episodes import EpisodeStore
from ralph_tui.traces import files
from ralph_tui.traces.files import read_iterations
from ralph_tui.traces.models import SessionRecord
from ralph_tui.traces.store import TraceStore
from tests.traces.trace_writers import make_trace

pytestmark = pytest.mark.usefixtures("clean_env")

HUGE = "1" + "0" * 400
DEEP = "[" * 5000 + "]" * 5000


def sessions(out: Path, count: int) -> list[Path]:
    """``count`` finished sessions under ``out``; their folders."""
    store = TraceStore(out)
    folders = []
    for n in range(count):
        handle = store.create_session(SessionRecord(mode="qa", query=f"question {n}"))
        handle.write_iteration(make_trace(1, f"answer {n}", passed=True))
        handle.finish("passed")
        folders.append(handle.folder)
    store.close()
    return folders


def spoil(folder: Path, old: str, new: str) -> None:
    path = folder / "session.json"
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_reindex_leaves_out_what_it_cannot_read_and_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    good, huge, deep = sessions(out, 3)
    spoil(huge, '"iterations": 1', f'"iterations": {HUGE}')
    spoil(deep, '"settings": {', f'"settings": {{"nested": {DEEP},')

    code = run_cli(["sessions", "reindex", "--out", str(out)])

    captured = capsys.readouterr()
    assert code == 1, captured.err
    lines = sorted(captured.err.strip().splitlines(), key=lambda line: str(huge) not in line)
    assert len(lines) == 2, captured.err
    assert lines[0].startswith(f"skipped {huge}: session.json: ") and "past 64 bits" in lines[0]
    assert lines[1] == f"skipped {deep}: session.json: nested deeper than 64 levels"
    assert "indexed 1 session from" in captured.out and "skipped 2" in captured.out

    assert run_cli(["sessions", "reindex", "--out", str(out), "--json"]) == 1
    said = json.loads(capsys.readouterr().out)
    assert said["sessions"] == 1
    assert {row["folder"] for row in said["skipped"]} == {str(huge), str(deep)}
    assert run_cli(["sessions", "list", "--out", str(out), "--json"]) == 0
    [row] = json.loads(capsys.readouterr().out)
    assert str(good).endswith(row["sessionId"])


def test_reindex_of_readable_folders_exits_0(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    sessions(out, 2)
    assert run_cli(["sessions", "reindex", "--out", str(out), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["skipped"] == []


def test_show_of_a_spoilt_session_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    [folder] = sessions(out, 1)
    spoil(folder, '"iterations": 1', f'"iterations": {HUGE}')
    session_id = folder.relative_to(out / "sessions").as_posix()
    capsys.readouterr()
    assert run_cli(["sessions", "show", session_id, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "past 64 bits" in err


def test_a_session_file_past_its_size_is_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    sessions(out, 1)
    monkeypatch.setattr(files, "MAX_SESSION_BYTES", 100)
    assert run_cli(["sessions", "reindex", "--out", str(out)]) == 1
    assert "bytes, past the 100 bytes" in capsys.readouterr().err


def test_an_iteration_file_past_the_bounds_is_skipped(tmp_path: Path) -> None:
    out = tmp_path / "out"
    [folder] = sessions(out, 1)
    trace = folder / "iter-01.json"
    trace.write_text(
        trace.read_text(encoding="utf-8").replace('"iteration": 1', f'"iteration": {HUGE}', 1),
        encoding="utf-8",
    )
    assert read_iterations(folder) == []


def test_event_lines_past_the_bounds_are_skipped(tmp_path: Path) -> None:
    out = tmp_path / "out"
    [folder] = sessions(out, 1)
    store = TraceStore(out)
    session_id = folder.relative_to(out / "sessions").as_posix()
    before, _ = store.tail_events(session_id)
    good = event_to_json(Notice(message="kept"))
    huge = good.replace('"ts":', f'"extra":{HUGE},"ts":', 1)
    deep = good.replace('"ts":', f'"extra":{DEEP},"ts":', 1)
    with (folder / "events.jsonl").open("a", encoding="utf-8") as log:
        log.write(f"{huge}\n{deep}\n{good}\n")
    events, _ = store.tail_events(session_id)
    assert len(events) == len(before) + 1
    store.close()


def test_the_episode_log_is_read_within_bounds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = EpisodeStore(tmp_path)
    log.append({"task": "a"})
    with log.path.open("a", encoding="utf-8") as file:
        file.write(f'{{"task": "b", "iteration": {HUGE}}}\n{{"deep": {DEEP}}}\n')
    log.append({"task": "c"})
    assert [episode["task"] for episode in log.load()] == ["a", "c"]
    monkeypatch.setattr(episodes, "MAX_LOG_BYTES", 100)
    with pytest.raises(JsonRefused, match="past the 100 bytes an episode log may hold"):
        log.load()


def test_a_stored_conversation_is_read_within_bounds(tmp_path: Path) -> None:
    path = tmp_path / "context-01-worker.jsonl"
    store = MessageStore(path)
    store.append(ChatMessage(role="user", content="first"))
    with path.open("a", encoding="utf-8") as file:
        file.write(f'{{"id": {HUGE}, "role": "user"}}\n{{"id": 2, "role": {DEEP}}}\n')
    assert [message.content for message in MessageStore.load(path).messages] == ["first"]


def test_a_huge_query_is_echoed_clipped_with_its_length(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    store = TraceStore(out)
    query = "How often are the filters washed? " + "q" * 300_000
    handle = store.create_session(SessionRecord(mode="qa", query=query))
    trace = make_trace(1, "every two days", passed=True).model_copy(update={"query": query})
    handle.write_iteration(trace)
    handle.finish("passed")
    store.close()
    note = f"({len(query):,} characters in all; the session's files keep it whole)"

    assert run_cli(["sessions", "show", handle.session_id, "--out", str(out)]) == 0
    shown = capsys.readouterr().out
    assert len(shown) < 10_000 and note in shown
    assert run_cli(["sessions", "show", handle.session_id, "--out", str(out), "--json"]) == 0
    shown_json = json.loads(capsys.readouterr().out)
    assert shown_json["queryChars"] == len(query) and shown_json["query"].endswith(note)
    assert shown_json["iterationTraces"][0]["query"].endswith(note)
    assert run_cli(["sessions", "list", "--out", str(out), "--json"]) == 0
    [row] = json.loads(capsys.readouterr().out)
    assert len(row["query"]) < 3000 and row["query"].startswith(query[:2000])
    assert TraceStore(out).load_session(handle.session_id).query == query


def test_terminal_control_sequences_are_echoed_as_escapes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    store = TraceStore(out)
    query = "What?\x1b]0;pwned\x07\x1b[2J\r\x9b31m done"
    handle = store.create_session(SessionRecord(mode="qa", query=query, doc_path="a\x1b[8mb"))
    handle.finish("passed")
    store.close()
    for verb in (["show", handle.session_id], ["list"]):
        assert run_cli(["sessions", *verb, "--out", str(out)]) == 0
        shown = capsys.readouterr().out
        assert not any(char in shown for char in "\x1b\x07\r\x9b"), repr(shown)
        assert "What?\\x1b]0;pwned\\x07" in shown


@pytest.mark.parametrize(
    "record", [f'{{"iterations": {HUGE}}}', '{"mode": 7}', DEEP], ids=["huge", "shape", "deep"]
)
def test_a_crafted_index_row_is_refused_with_the_way_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], record: str
) -> None:
    out = tmp_path / "out"
    sessions(out, 1)
    with sqlite3.connect(out / "index.sqlite") as conn:
        conn.execute("UPDATE sessions SET record = ?", (record,))
    conn.close()
    assert run_cli(["sessions", "list", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "the session index index.sqlite" in err and "sessions reindex" in err
    assert len(err.strip().splitlines()) == 1
    assert run_cli(["sessions", "reindex", "--out", str(out)]) == 0
    assert run_cli(["sessions", "list", "--out", str(out)]) == 0


def test_a_time_no_date_can_show_leaves_the_session_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    _, bad = sessions(out, 2)
    record = json.loads((bad / "session.json").read_text(encoding="utf-8"))
    record["created_at"] = 1e300
    (bad / "session.json").write_text(json.dumps(record), encoding="utf-8")
    assert run_cli(["sessions", "reindex", "--out", str(out)]) == 1
    assert f"skipped {bad}: session.json is no session record (created_at:" in (
        capsys.readouterr().err
    )
    assert run_cli(["sessions", "list", "--out", str(out)]) == 0
