"""The TUI's plain models: run progress, transcripts, evidence, diffs, paths, event buffer."""

from __future__ import annotations

from pathlib import Path

from ralph_tui.events import BaseEvent, Notice, SandboxExecuted
from ralph_tui.tui.core import formatting as fmt
from ralph_tui.tui.core.diffs import output_lines, unified
from ralph_tui.tui.core.event_buffer import EventBuffer
from ralph_tui.tui.core.evidence import check_quotes, locate
from ralph_tui.tui.core.run_progress import RunProgress
from ralph_tui.tui.core.transcripts import TranscriptBook
from ralph_tui.tui.path_completion import complete_path
from ralph_tui.validate.evidence import check_quote
from tests.tui.scripted import FIRST_CONSTRAINTS, T0, VERIFIED_QUOTE, scripted_events

SESSION = "2026-01-01/qa-00000001"


def folded(events: list[BaseEvent]) -> RunProgress:
    progress = RunProgress()
    for event in events:
        progress.apply(event)
    return progress


def test_progress_follows_a_whole_run() -> None:
    events = scripted_events(SESSION)
    progress = folded(events)
    assert (progress.outcome, progress.session_id, progress.iteration) == ("passed", SESSION, 2)
    assert (progress.sub_calls, progress.sub_budget, progress.cells) == (2, 60, 2)
    assert progress.input_tokens == 4800 and progress.elapsed_s() == 20
    assert (
        progress.checks[1].passed is False and progress.checks[1].failure_tag == "hard_validation"
    )
    assert progress.checks[2].judge is not None and progress.checks[2].judge.ok
    assert progress.candidate_iteration == 2 and progress.phase is None


def test_next_constraints_are_known_after_a_failed_iteration() -> None:
    events = scripted_events(SESSION)
    first_finished = next(i for i, e in enumerate(events) if e.type == "iteration_finished")  # type: ignore[attr-defined]
    progress = folded(events[: first_finished + 1])
    assert progress.next_constraints == FIRST_CONSTRAINTS
    assert progress.phase is None and progress.outcome == "running"


def test_apply_reports_only_the_parts_an_event_changes() -> None:
    progress = RunProgress()
    cell = SandboxExecuted(agent="worker", step=1, code="1", output="", duration_ms=1)
    assert progress.apply(cell) == {"sandbox", "log"}
    assert progress.apply(Notice(message="nothing to see")) == {"log"}


def test_isolation_comes_from_the_sandbox_cells() -> None:
    progress = RunProgress()
    cell = SandboxExecuted(
        agent="worker", step=1, code="1", output="", duration_ms=1, isolation="unshare-net"
    )
    assert "status" in progress.apply(cell)
    assert progress.isolation == "unshare-net"
    assert "status" not in progress.apply(cell)


def test_phase_clock_and_elapsed() -> None:
    events = scripted_events(SESSION)
    progress = folded(events[:3])  # run started, iteration started, worker phase started
    assert progress.phase == "worker"
    assert progress.phase_running_s(now=T0 + 9) == 8
    assert progress.elapsed_s(now=T0 + 9) == 9


def test_transcript_book_files_entries_by_iteration_and_stays_bounded() -> None:
    book = TranscriptBook(per_iteration=3)
    added = book.add(scripted_events(SESSION))
    assert sorted(added) == [1, 2] and len(book.entries(1)) == 2
    cells = [
        SandboxExecuted(agent="w", step=n, code="", output="", duration_ms=1) for n in range(5)
    ]
    book.add(cells)
    assert [e.step for e in book.entries(2)] == [2, 3, 4]  # type: ignore[union-attr]
    assert book.dropped[2] == 4


def test_quotes_are_verified_verbatim_and_located() -> None:
    document = "Intro line.\nEach filter is backwashed after 48 hours in service. More."
    quotes = check_quotes([VERIFIED_QUOTE, "each filter is backwashed", ""], document)
    assert [q.verified for q in quotes] == [True, False, False]
    assert check_quotes([VERIFIED_QUOTE], None)[0].verified is None
    place = locate(check_quote(VERIFIED_QUOTE, document), document, context=6)
    assert place is not None and place.line == 2
    assert (place.before, place.after) == ("line.\n", " More.")
    assert place.clipped_start and not place.clipped_end
    assert locate(check_quote("absent from the text", document), document) is None


def test_diff_of_outputs() -> None:
    before = output_lines({"answer": "- a\n- b", "evidence": ["q1"]})
    after = output_lines({"answer": "- a\n- c", "evidence": ["q1", "q2"]})
    diff = unified(before, after, "iteration 1", "iteration 2")
    assert "-- b" in diff and "+- c" in diff and "+- q2" in diff
    assert unified(before, before, "x", "y") == []


def test_path_completion(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "doc.md").write_text("x", encoding="utf-8")
    (tmp_path / ".hidden").write_text("x", encoding="utf-8")
    assert complete_path(f"{tmp_path}/doc") == f"{tmp_path}/doc.md"
    assert complete_path(f"{tmp_path}/docs") == f"{tmp_path}/docs/"
    assert complete_path(f"{tmp_path}/.h") == f"{tmp_path}/.hidden"
    assert complete_path(f"{tmp_path}/zzz") is None
    assert complete_path(f"{tmp_path}/missing/x") is None


def test_formatting() -> None:
    assert (fmt.tokens(999), fmt.tokens(12_345), fmt.tokens(2_500_000)) == ("999", "12.3k", "2.5M")
    assert (fmt.cost(None), fmt.cost(0.01234), fmt.cost(12.5)) == (
        "cost unknown",
        "$0.0123",
        "$12.50",
    )
    assert fmt.cost(0.01234, unknown_calls=2) == "$0.0123 + unknown"
    assert (fmt.duration(75.3), fmt.duration(3725), fmt.duration(None)) == ("1:15", "1:02:05", "-")
    assert fmt.clip("a  b\nc", 10) == "a b c" and fmt.clip("abcdef", 4) == "abc…"
    assert fmt.short_session_id("2026-01-01/qa-1") == "qa-1"


def test_event_buffer_drains_in_order_up_to_a_limit() -> None:
    buffer = EventBuffer()
    for n in range(5):
        buffer.push(Notice(message=str(n)))
    assert [e.message for e in buffer.drain(3)] == ["0", "1", "2"]  # type: ignore[attr-defined]
    assert len(buffer.drain()) == 2 and len(buffer) == 0


def test_the_session_table_cells_fit_and_still_say_unknown_and_estimated() -> None:
    cells = [fmt.cost_cell(None), fmt.cost_cell(0.0123, 2), fmt.cost_cell(0.0123)]
    assert cells == ["unknown", "$0.01+?", "$0.0123"] and all(len(c) <= 7 for c in cells)
    assert fmt.tokens_cell(4200, 210, estimated_calls=1) == "~4.2k/210"
