"""Session ids: format, determinism, collision suffixes, and path safety."""

from __future__ import annotations

import hashlib
import re
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from ralph_tui.traces.session_ids import (
    allocate_session_dir,
    is_session_id,
    make_session_id,
    root_session_id,
    session_dir,
    subtask_session_id,
)


def test_session_id_is_utc_date_mode_and_hash8() -> None:
    when = datetime(2026, 2, 20, 9, 30, tzinfo=UTC)
    session_id = make_session_id("What changed?", "qa", when)
    digest = hashlib.sha256(b"qaWhat changed?").hexdigest()[:8]
    assert session_id == f"2026-02-20/qa-{digest}"
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}/qa-[0-9a-f]{8}", make_session_id("x", "qa"))


def test_session_id_date_is_converted_to_utc() -> None:
    late_evening_new_york = datetime(2026, 1, 1, 23, 30, tzinfo=timezone(timedelta(hours=-5)))
    assert make_session_id("q", "task", late_evening_new_york).startswith("2026-01-02/task-")


def test_same_question_same_id_other_mode_other_id() -> None:
    when = datetime(2026, 3, 1, tzinfo=UTC)
    assert make_session_id("q", "qa", when) == make_session_id("q", "qa", when)
    assert make_session_id("q", "qa", when)[-8:] != make_session_id("q", "task", when)[-8:]


@pytest.mark.parametrize("mode", ["", "QA", "qa/../x", "1qa", "q a"])
def test_mode_must_be_a_lowercase_word(mode: str) -> None:
    with pytest.raises(ValueError, match="mode"):
        make_session_id("q", mode)


def test_allocation_suffixes_collisions(tmp_path: Path) -> None:
    when = datetime(2026, 2, 20, tzinfo=UTC)
    allocated = [allocate_session_dir(tmp_path, "same q", "qa", when) for _ in range(3)]
    base = make_session_id("same q", "qa", when)
    assert [session_id for session_id, _ in allocated] == [base, f"{base}-2", f"{base}-3"]
    for session_id, folder in allocated:
        assert folder == tmp_path / "sessions" / session_id
        assert folder.is_dir()
        assert list(folder.iterdir()) == []
        assert is_session_id(session_id)


def test_subtask_ids_nest_under_their_session(tmp_path: Path) -> None:
    parent = "2026-02-20/task-0123abcd-2"
    child = subtask_session_id(parent, "s1.a")
    assert child == f"{parent}/subtask-s1.a"
    assert root_session_id(child) == parent
    assert session_dir(tmp_path, child) == tmp_path / "sessions" / parent / "subtask-s1.a"


@pytest.mark.parametrize(
    "text",
    ["../../etc", "2026-02-20/qa-0123abcd/..", "2026-02-20/qa-0123abcd/subtask-..", "/abs", ""],
)
def test_paths_are_only_made_from_well_formed_ids(tmp_path: Path, text: str) -> None:
    with pytest.raises(ValueError, match="session id"):
        session_dir(tmp_path, text)


@pytest.mark.parametrize("subtask_id", ["", "..", "a/b", ".hidden"])
def test_bad_subtask_ids_are_refused(subtask_id: str) -> None:
    with pytest.raises(ValueError, match="sub-task id"):
        subtask_session_id("2026-02-20/qa-0123abcd", subtask_id)
