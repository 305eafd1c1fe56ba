"""Crash safety: a failed write leaves the old file, appends are whole lines."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

import pytest

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
