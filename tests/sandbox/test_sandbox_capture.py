"""The bounded output capture: exact head + tail cut, exact omitted count, bounded memory."""

from __future__ import annotations

import os

from hypothesis import given
from hypothesis import strategies as st

from ralph_tui.sandbox.child.capture import OutputCapture, drain_fd_output, omission_marker


def expected_cut(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    half = limit // 2
    return text[:half] + omission_marker(len(text) - 2 * half) + text[-half:]


@given(st.lists(st.text(max_size=300), max_size=30), st.integers(min_value=20, max_value=500))
def test_capture_equals_cutting_the_whole_text(pieces: list[str], limit: int) -> None:
    capture = OutputCapture(limit)
    for piece in pieces:
        capture.write(piece)
    assert capture.text() == expected_cut("".join(pieces), limit)


def test_marker_reports_the_exact_count() -> None:
    capture = OutputCapture(100)
    capture.write("a" * 1000 + "\n")
    assert capture.text() == "a" * 50 + "\n[... 901 characters omitted ...]\n" + "a" * 49 + "\n"


def test_many_writes_keep_memory_bounded() -> None:
    capture = OutputCapture(1000)
    for _ in range(20_000):
        capture.write("x" * 1000)
    kept = sum(len(piece) for piece in capture._head + capture._tail)
    assert kept <= 1000 + 4 * 500 + 1000
    assert "[... 19999000 characters omitted ...]" in capture.text()


def test_fd_output_is_streamed_in_and_the_file_emptied() -> None:
    fd = os.memfd_create("test-output")
    try:
        os.write(fd, "héllo\n".encode() * 100_000)
        capture = OutputCapture(40)
        drain_fd_output(fd, capture)
        assert capture.text() == expected_cut("héllo\n" * 100_000, 40)
        assert os.fstat(fd).st_size == 0
        os.write(fd, b"again")
        second = OutputCapture(40)
        drain_fd_output(fd, second)
        assert second.text() == "again"
    finally:
        os.close(fd)
