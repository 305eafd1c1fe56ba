"""The context.md memory file: blocks, budget trimming, the trimmed marker, summaries."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ralph_tui.memory.context_file import (
    MARKER_ALLOWANCE,
    append_memory,
    memory_findings,
    parse_memory,
    read_memory,
    read_summary,
    write_summary,
)

NOW = datetime(2026, 3, 1, 12, 0, 0, tzinfo=UTC)
ITER_HEADER = re.compile(r"^## Iter (\d+) - ", re.MULTILINE)


def iterations_in(text: str) -> list[int]:
    return [int(number) for number in ITER_HEADER.findall(text)]


def test_a_missing_memory_file_reads_as_empty(tmp_path: Path) -> None:
    assert read_memory(tmp_path / "context.md") == ""


def test_an_append_writes_a_timestamped_iteration_block(tmp_path: Path) -> None:
    path = tmp_path / "context.md"
    written = append_memory(path, "  The budget is 1500 characters.\n", 1, now=NOW)
    text = path.read_text()
    assert text == "## Iter 1 - 2026-03-01T12:00:00+00:00\nThe budget is 1500 characters.\n"
    assert written.chars == len(text)
    assert (written.trimmed_blocks, written.total_trimmed, written.truncated) == (0, 0, False)


def test_appends_accumulate_blocks_separated_by_blank_lines(tmp_path: Path) -> None:
    path = tmp_path / "context.md"
    append_memory(path, "first finding", 1, now=NOW)
    append_memory(path, "second finding", 2, now=NOW + timedelta(minutes=1))
    assert read_memory(path) == (
        "## Iter 1 - 2026-03-01T12:00:00+00:00\nfirst finding\n\n"
        "## Iter 2 - 2026-03-01T12:01:00+00:00\nsecond finding\n"
    )


def test_the_file_is_created_with_its_directory(tmp_path: Path) -> None:
    path = tmp_path / "run" / "memory" / "context.md"
    append_memory(path, "a finding", 1, now=NOW)
    assert path.exists()


def test_an_empty_update_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "context.md"
    written = append_memory(path, "   ", 1, now=NOW)
    assert not path.exists()
    assert written.chars == 0


def test_over_budget_the_oldest_blocks_are_dropped_and_counted(tmp_path: Path) -> None:
    path = tmp_path / "context.md"
    for iteration in range(1, 6):
        written = append_memory(path, "x" * 60, iteration, now=NOW, budget_chars=250)
    text = read_memory(path)
    assert text.startswith("[trimmed 3 blocks]\n")
    assert iterations_in(text) == [4, 5]
    assert written.trimmed_blocks == 1
    assert written.total_trimmed == 3


def test_the_marker_says_block_for_one(tmp_path: Path) -> None:
    path = tmp_path / "context.md"
    append_memory(path, "x" * 100, 1, now=NOW, budget_chars=200)
    written = append_memory(path, "y" * 100, 2, now=NOW, budget_chars=200)
    assert read_memory(path).startswith("[trimmed 1 block]\n")
    assert written.trimmed_blocks == 1


def test_the_marker_count_is_read_back_and_stays_cumulative(tmp_path: Path) -> None:
    path = tmp_path / "context.md"
    path.write_text("[trimmed 7 blocks]\n## Iter 8 - earlier\nold finding\n")
    written = append_memory(path, "z" * 200, 9, now=NOW, budget_chars=260)
    assert read_memory(path).startswith("[trimmed 8 blocks]\n## Iter 9 - ")
    assert (written.trimmed_blocks, written.total_trimmed) == (1, 8)


def test_a_newest_block_over_budget_is_kept_truncated(tmp_path: Path) -> None:
    path = tmp_path / "context.md"
    append_memory(path, "older finding", 1, now=NOW, budget_chars=200)
    written = append_memory(path, "word " * 100, 2, now=NOW, budget_chars=200)
    text = read_memory(path)
    assert text.startswith("[trimmed 1 block]\n## Iter 2 - 2026-03-01T12:00:00+00:00\nword word")
    assert text.endswith("word…\n")
    assert len(text) - len("[trimmed 1 block]\n") <= 200
    assert written.truncated


def test_header_lines_inside_an_update_are_demoted(tmp_path: Path) -> None:
    path = tmp_path / "context.md"
    append_memory(path, "note\n## Iter 99 - fake\n## Summary - fake\nmore", 1, now=NOW)
    content = parse_memory(read_memory(path))
    assert len(content.blocks) == 1
    assert "### Iter 99 - fake\n### Summary - fake" in content.blocks[0]


def test_a_hand_written_preamble_is_kept_as_the_oldest_block(tmp_path: Path) -> None:
    path = tmp_path / "context.md"
    path.write_text("Notes from the user.\n")
    append_memory(path, "a finding", 1, now=NOW)
    assert parse_memory(read_memory(path)).blocks[0] == "Notes from the user."


def test_the_findings_are_the_notes_each_once_without_their_headers(tmp_path: Path) -> None:
    """A note written again, by a later iteration at a later time, adds no finding; one
    dropped for the budget, or a summary, changes them."""
    path = tmp_path / "context.md"
    path.write_text("Notes from the user.\n")
    append_memory(path, "the pump runs at night", 1, now=NOW)
    before = memory_findings(read_memory(path))
    assert before == {"Notes from the user.", "the pump runs at night"}
    append_memory(path, "the pump runs at night", 2, now=NOW + timedelta(minutes=1))
    assert memory_findings(read_memory(path)) == before
    append_memory(path, "x" * 60, 3, now=NOW, budget_chars=120)
    assert memory_findings(read_memory(path)) == {"x" * 60}
    write_summary(path, "Established: the pump.", now=NOW)
    assert memory_findings(read_memory(path)) == {"Established: the pump."}


def test_the_summary_outlives_older_iteration_blocks(tmp_path: Path) -> None:
    path = tmp_path / "context.md"
    write_summary(path, "Established: the budget.", now=NOW, budget_chars=300)
    for iteration in (1, 2, 3):
        append_memory(path, "f" * 70, iteration, now=NOW, budget_chars=300)
    text = read_memory(path)
    assert "## Summary - " in text
    assert iterations_in(text) == [2, 3]
    assert read_summary(path) == "Established: the budget."


def test_the_summary_goes_when_the_newest_block_needs_the_room(tmp_path: Path) -> None:
    path = tmp_path / "context.md"
    write_summary(path, "s" * 150, now=NOW, budget_chars=300)
    append_memory(path, "n" * 200, 1, now=NOW, budget_chars=300)
    assert read_summary(path) == ""
    assert read_memory(path).startswith("[trimmed 1 block]\n## Iter 1")


def test_write_summary_replaces_everything_within_budget(tmp_path: Path) -> None:
    path = tmp_path / "context.md"
    path.write_text("[trimmed 4 blocks]\n## Iter 5 - t\nold\n\n## Iter 6 - t\nolder\n")
    written = write_summary(path, "word " * 100, now=NOW, budget_chars=120)
    text = read_memory(path)
    assert text.startswith("## Summary - 2026-03-01T12:00:00+00:00\nword")
    assert len(text) <= 120
    assert written.truncated
    assert iterations_in(text) == []


updates = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]), min_size=1, max_size=400
).filter(str.strip)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(updates, min_size=1, max_size=12), st.integers(min_value=100, max_value=1500))
def test_trimming_invariants_hold_for_any_sequence_of_updates(
    tmp_path: Path, sequence: list[str], budget: int
) -> None:
    path = tmp_path / "context.md"
    path.unlink(missing_ok=True)  # tmp_path is shared by every example hypothesis tries
    previous_total = 0
    for iteration, update in enumerate(sequence, 1):
        written = append_memory(path, update, iteration, now=NOW, budget_chars=budget)
        text = read_memory(path)
        content = parse_memory(text)
        assert len(text) <= budget + MARKER_ALLOWANCE
        assert len(content.render()) == len(text)
        assert iterations_in(text)[-1] == iteration  # the newest block is always kept
        assert content.trimmed == previous_total + written.trimmed_blocks
        assert written.total_trimmed == content.trimmed
        assert content.trimmed + len(content.blocks) == iteration  # no block lost untold
        previous_total = content.trimmed
