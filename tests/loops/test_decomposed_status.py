"""A decomposed run's status follows from its sub-tasks, and each sub-task's record holds
what it spent and when it ended, through the command line with the offline provider."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ralph_tui.cli import run_cli
from ralph_tui.traces.store import TraceStore

SAMPLE = Path(__file__).parents[2] / "ralph_tui" / "data" / "sample_document.md"

FAILING = (
    "Summarise the conditions for redistributing modified versions and the patent licence terms"
)
"""The handbook says nothing of licences: the offline baseline fails both sub-tasks."""
PASSING = "List the past incidents; then summarize the maintenance schedule."


def decomposed(out: Path, query: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, dict]:  # type: ignore[type-arg]
    code = run_cli(["run", "--provider", "offline", "--json", "--mode", "task", "--decompose",
                    "--query", query, "--doc", str(SAMPLE), "--out", str(out),
                    "--maxIters", "2"])  # fmt: skip
    return code, json.loads(capsys.readouterr().out)


def test_a_run_whose_subtasks_all_failed_fails_and_names_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, result = decomposed(tmp_path, FAILING, capsys)
    assert (code, result["status"]) == (1, "failed")
    assert result["output"]["memoryUpdate"] == "Merged sub-tasks: s1 failed; s2 failed"
    [merged] = TraceStore(tmp_path).iterations(result["sessionId"])
    rules = {rule.name: rule for rule in merged.hard_validation.rules}
    assert not rules["subtasks_passed"].ok and not merged.passed
    assert "2 of 2 sub-tasks did not pass" in rules["subtasks_passed"].message
    message = rules["subtasks_passed"].message
    assert "s1 " in message and "s2 " in message and "failed (" in message, "each named, with why"
    assert "subtask_coverage" not in rules, "a failed sub-task is not counted as covered"

    assert run_cli(["sessions", "show", result["sessionId"], "--out", str(tmp_path)]) == 0
    shown = capsys.readouterr().out.splitlines()
    listed = shown[shown.index("sub-tasks:") + 1 :][:2]
    assert [line.split()[:2] for line in listed] == [["s1", "failed"], ["s2", "failed"]]


def test_a_run_whose_subtasks_passed_passes_with_their_coverage_checked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, result = decomposed(tmp_path, PASSING, capsys)
    assert (code, result["status"]) == (0, "passed")
    [merged] = TraceStore(tmp_path).iterations(result["sessionId"])
    rules = {rule.name: rule for rule in merged.hard_validation.rules}
    assert rules["subtasks_passed"].ok and rules["subtask_coverage"].ok
    assert rules["subtask_coverage"].message == "all 2 sub-tasks covered"

    assert run_cli(["sessions", "show", result["sessionId"], "--out", str(tmp_path), "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert [(s["subtaskId"], s["status"]) for s in shown["subtasks"]] == [
        ("s1", "passed"),
        ("s2", "passed"),
    ]


def test_each_subtask_records_its_own_usage_and_time(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, result = decomposed(tmp_path, FAILING, capsys)
    store = TraceStore(tmp_path)
    parent = store.load_session(result["sessionId"])
    s1, s2 = store.index.subtasks(parent.session_id)
    for part in (s1, s2):
        assert part.iterations == 2 and part.llm_calls > 0
        assert part.input_tokens > 0 and part.output_tokens > 0 and part.cost_usd == 0.0
        assert part.finished_at is not None and part.duration_ms
        assert part.duration_ms == pytest.approx((part.finished_at - part.created_at) * 1000)
    assert s1.finished_at is not None and s2.finished_at is not None
    assert s1.finished_at <= s2.created_at, "s1 ended before s2 began, not with the run"
    assert parent.finished_at is not None and s2.finished_at < parent.finished_at
    # The decomposer and the aggregator are the parent's own spending, on top of its parts.
    assert s1.input_tokens + s2.input_tokens < parent.input_tokens
    assert s1.llm_calls + s2.llm_calls < parent.llm_calls
    assert s1.query.startswith("Find the passages") and s1.query != parent.query
