"""Crash safety: a failed write leaves the old file, appends are whole lines."""

from __future__ import annotations

import os
import stat
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from ralph_tui.memory.atomic import append_line, write_atomic
from ralph_tui.memory.context_file import append_memory, read_memory

NOW = datetime(2026, 3, 1, tzinfo=UTC)


class SimulatedCrash(Exception):
    """Stands in for the process dying at a given point of a write."""


def crash(*_args: object) -> None:
    raise SimulatedCrash


@pytest.mark.parametrize("point", ["fsync", "replace"])
def test_a_crash_during_a_memory_write_leaves_the_old_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, point: str
) -> None:
    path = tmp_path / "context.md"
    append_memory(path, "the finding that must survive", 1, now=NOW)
    before = read_memory(path)
    monkeypatch.setattr(os, point, crash)
    with pytest.raises(SimulatedCrash):
        append_memory(path, "a newer finding", 2, now=NOW)
    monkeypatch.undo()
    assert read_memory(path) == before
    assert os.listdir(tmp_path) == ["context.md"]  # no temporary file left behind


class HalfWriter:
    """A file handle that writes half of the text and then "crashes"."""

    def __init__(self, handle: Any) -> None:
        self.handle = handle

    def __enter__(self) -> HalfWriter:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.handle.close()

    def fileno(self) -> int:
        return int(self.handle.fileno())

    def write(self, text: str) -> int:
        self.handle.write(text[: len(text) // 2])
        self.handle.flush()
        raise SimulatedCrash


def test_a_crash_halfway_through_the_text_leaves_the_old_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "notes.md"
    write_atomic(path, "old text\n")
    real_fdopen = os.fdopen
    monkeypatch.setattr(os, "fdopen", lambda *a, **k: HalfWriter(real_fdopen(*a, **k)))
    with pytest.raises(SimulatedCrash):
        write_atomic(path, "new text that is long enough to be cut in half\n")
    monkeypatch.undo()
    assert path.read_text() == "old text\n"
    assert os.listdir(tmp_path) == ["notes.md"]


def test_write_atomic_keeps_the_file_mode(tmp_path: Path) -> None:
    path = tmp_path / "context.md"
    path.write_text("old")
    path.chmod(0o640)
    write_atomic(path, "new")
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert path.read_text() == "new"


def test_a_new_file_gets_an_ordinary_mode(tmp_path: Path) -> None:
    path = tmp_path / "fresh.md"
    write_atomic(path, "text")
    assert stat.S_IMODE(path.stat().st_mode) == 0o644


def test_append_line_writes_whole_lines(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    append_line(path, "one")
    append_line(path, "two")
    assert path.read_text() == "one\ntwo\n"


def test_append_line_rejects_a_multi_line_record(tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        append_line(tmp_path / "log.jsonl", "one\ntwo")


def test_append_line_does_not_glue_onto_a_torn_line(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    path.write_text('{"whole": 1}\n{"torn": ')
    append_line(path, '{"next": 2}')
    assert path.read_text().splitlines() == ['{"whole": 1}', '{"torn": ', '{"next": 2}']
