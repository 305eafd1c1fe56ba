"""Crash-safe writes, one set of rules: whole-file replacement (old or new, never a mix;
the file's mode kept, a new one private or following the umask) and whole-line appends."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import pytest

from ralph_tui import atomic
from ralph_tui.atomic import append_line, write_atomic, write_atomic_with


class SimulatedCrash(Exception):
    """Stands in for the process dying at a given point of a write."""


def test_write_atomic_creates_and_replaces(tmp_path: Path) -> None:
    target = tmp_path / "trace.json"
    write_atomic(target, "first")
    write_atomic(target, b"second \xe2\x9c\x93")
    assert target.read_text(encoding="utf-8") == "second ✓"
    assert [p.name for p in tmp_path.iterdir()] == ["trace.json"]


@pytest.mark.parametrize("failing", ["replace", "fsync", "fdopen"])
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
    append_line(path, '{"next": 2}', durable=True)
    assert path.read_text().splitlines() == ['{"whole": 1}', '{"torn": ', '{"next": 2}']


def test_a_new_private_file_is_0600_and_a_shared_one_follows_the_umask(tmp_path: Path) -> None:
    old = os.umask(0o027)
    try:
        write_atomic(tmp_path / "trace.json", "{}")
        write_atomic(tmp_path / "report.html", "<p>", private=False)
        append_line(tmp_path / "episodes.jsonl", "{}", private=False)
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "trace.json").stat().st_mode) == 0o600
    assert stat.S_IMODE((tmp_path / "report.html").stat().st_mode) == 0o640
    assert stat.S_IMODE((tmp_path / "episodes.jsonl").stat().st_mode) == 0o640


def test_a_private_write_keeps_the_mode_of_a_file_the_user_opened_up(tmp_path: Path) -> None:
    path = tmp_path / "shared.json"
    path.write_text("old")
    path.chmod(0o644)
    write_atomic(path, "new")
    assert stat.S_IMODE(path.stat().st_mode) == 0o644


def test_write_atomic_with_gives_the_writer_a_file_and_leaves_nothing_on_failure(
    tmp_path: Path,
) -> None:
    path = tmp_path / "vectors.npy"
    write_atomic_with(path, lambda handle: handle.write(b"first"))

    def fail_halfway(handle: Any) -> None:
        handle.write(b"half")
        raise SimulatedCrash

    with pytest.raises(SimulatedCrash):
        write_atomic_with(path, fail_halfway)
    assert path.read_bytes() == b"first"
    assert os.listdir(tmp_path) == ["vectors.npy"]


def test_a_durable_append_is_fsynced(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    synced: list[int] = []
    monkeypatch.setattr(atomic.os, "fsync", synced.append)
    append_line(tmp_path / "events.jsonl", "a")
    assert synced == []
    append_line(tmp_path / "episodes.jsonl", "b", durable=True)
    assert len(synced) == 1


def test_nothing_here_creates_a_folder(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        write_atomic(tmp_path / "missing" / "x.json", "{}")
    with pytest.raises(FileNotFoundError):
        append_line(tmp_path / "missing" / "x.jsonl", "{}")
    assert os.listdir(tmp_path) == []
