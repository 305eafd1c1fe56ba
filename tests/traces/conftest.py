"""Fixtures for the trace store tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ralph_tui.traces.store import TraceStore


@pytest.fixture
def store(tmp_path: Path) -> Iterator[TraceStore]:
    trace_store = TraceStore(tmp_path / "out")
    yield trace_store
    trace_store.close()
