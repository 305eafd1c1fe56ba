"""Atomic whole-file writes and whole-line appends."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ralph_tui.traces import atomic
from ralph_tui.traces.atomic import append_line, write_atomic


def test_write_atomic_creates_and_replaces(tmp_path: Path) -> None:
    target = tmp_path / "trace.json"
    write_atomic(target, "first")
    write_atomic(target, b"second \xe2\x9c\x93")
    assert target.read_text(encoding="utf-8") == "second ✓"
    assert [p.name for p in tmp_path.iterdir()] == ["trace.json"]


@pytest.mark.parametrize("failing", ["replace", "fsync", "write"])
def test_a_crash_mid_write_keeps_the_old_file_and_leaves_no_temp(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failing: str
) -> None:
    target = tmp_path / "session.json"
    write_atomic(target, '{"status": "running"}')

    def crash(*_args: object) -> None:
        raise OSError("disk on fire")

    monkeypatch.setattr(atomic.os, failing, crash)
    with pytest.raises(OSError, match="disk on fire"):
        write_atomic(target, '{"status": "passed"}')
    monkeypatch.undo()
    assert target.read_text() == '{"status": "running"}'
    assert sorted(p.name for p in tmp_path.iterdir()) == ["session.json"]


def test_a_crash_mid_write_of_a_new_file_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def crash(*_args: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(atomic.os, "replace", crash)
    with pytest.raises(KeyboardInterrupt):
        write_atomic(tmp_path / "iter-01.json", "{}")
    assert list(tmp_path.iterdir()) == []


def test_append_line_adds_whole_lines(tmp_path: Path) -> None:
    log = tmp_path / "events.jsonl"
    append_line(log, '{"n": 1}')
    append_line(log, '{"n": 2, "text": "é"}')
    assert log.read_text(encoding="utf-8") == '{"n": 1}\n{"n": 2, "text": "é"}\n'
    assert os.stat(log).st_mode & 0o777 == 0o600


@pytest.mark.parametrize("line", ["two\nlines", "carriage\rreturn", "trailing\n"])
def test_append_line_refuses_embedded_newlines(tmp_path: Path, line: str) -> None:
    with pytest.raises(ValueError, match="one line"):
        append_line(tmp_path / "events.jsonl", line)
    assert not (tmp_path / "events.jsonl").exists()
