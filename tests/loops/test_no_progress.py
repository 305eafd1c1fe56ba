"""A run stops once an iteration gives the answer the one before gave and fails the same
checks: the next would be asked what it was (the question, the same constraints, the same
previous answer; in task mode the same DocReader hints and nothing new in memory), and would
spend as much to come to the same. End to end, on the offline baseline, which answers the
same inputs the same way; the run ends ``failed``, and why is said while it runs and
recorded where its ending is (the session and ``sessions show``, ``--json``, the API's
result)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ralph_tui import ask
from ralph_tui.cli import run_cli
from ralph_tui.events import BaseEvent, Notice
from ralph_tui.traces.store import TraceStore
from tests.loops.baseline_server import LOCAL_MODELS, BaselineServer, use_server

SAMPLE = Path(__file__).parents[2] / "ralph_tui" / "data" / "sample_document.md"
UNANSWERABLE = "What does xyzzyplugh frobnicate?"
STOPPED = "stopped after iteration 2: it gave the same answer as iteration 1"


def run(
    capsys: pytest.CaptureFixture[str], out: Path, mode: str, *args: str
) -> tuple[int, dict[str, object], str]:
    """One run of ``UNANSWERABLE`` through the command line: exit code, ``--json``, stderr."""
    code = run_cli(
        [
            "run", "--json", "--mode", mode, "--query", UNANSWERABLE, "--doc", str(SAMPLE),
            "--out", str(out), *args,
        ]
    )  # fmt: skip
    captured = capsys.readouterr()
    return code, json.loads(captured.out), captured.err


def iteration_files(out: Path) -> list[str]:
    [session] = list((out / "sessions").glob("*/*"))
    return sorted(p.name for p in session.glob("iter-*.json"))


@pytest.mark.parametrize("mode", ["qa", "task"])
def test_a_run_stops_when_an_iteration_repeats_the_one_before(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], mode: str
) -> None:
    code, result, err = run(capsys, tmp_path, mode, "--provider", "offline", "--maxIters", "4")
    assert code == 1
    assert (result["status"], result["iterations"]) == ("failed", 2)
    assert str(result["error"]).startswith(STOPPED), "recorded as why the run stopped"
    assert "so iteration 3 would be asked what iteration 2 was" in str(result["error"])
    assert "change the question or the constraints" in str(result["error"])
    assert f"warning: {STOPPED}" in err, "said while the run goes"
    assert iteration_files(tmp_path) == ["iter-01.json", "iter-02.json"]
    store = TraceStore(tmp_path)
    record = store.load_session(str(result["sessionId"]))
    assert (record.status, record.iterations, record.error) == ("failed", 2, result["error"])
    [first, second] = store.iterations(record.session_id)
    assert second.output == first.output and second.constraints != first.constraints
    assert run_cli(["sessions", "show", record.session_id, "--out", str(tmp_path)]) == 0
    assert f"error: {result['error']}\n" in capsys.readouterr().out


def test_the_last_iteration_allowed_ends_the_run_as_before(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """With no iteration after it, one that repeats the one before says nothing of a next."""
    code, result, err = run(capsys, tmp_path, "qa", "--provider", "offline", "--maxIters", "2")
    assert (code, result["status"], result["iterations"]) == (1, "failed", 2)
    assert result["error"] is None and "stopped after" not in err


def test_a_task_iteration_that_leaves_something_new_in_memory_is_progress(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same output and memory update under the same constraints, but the memory was
    compacted into a summary it did not hold: the next iteration reads something new, so
    the run goes on."""
    monkeypatch.setenv("RALPH_COMPACT_AFTER_EPISODES", "2")
    use_server(monkeypatch, BaselineServer(varies=("summary",)))
    code, result, err = run(capsys, tmp_path, "task", *LOCAL_MODELS, "--maxIters", "3")
    assert (code, result["status"], result["iterations"]) == (1, "failed", 3)
    assert result["error"] is None and "stopped after" not in err
    traces = TraceStore(tmp_path).iterations(str(result["sessionId"]))
    assert traces[1].output == traces[2].output == traces[0].output
    assert traces[1].constraints == traces[2].constraints


def test_the_api_result_says_why_the_run_stopped(tmp_path: Path) -> None:
    events: list[BaseEvent] = []
    result = ask(UNANSWERABLE, SAMPLE, provider="offline", max_iters=4, on_event=events.append)
    assert (result.status, result.iterations) == ("failed", 2)
    assert result.error is not None and result.error.startswith(STOPPED)
    notices = [e.message for e in events if isinstance(e, Notice)]
    assert result.error in notices


def test_a_sub_task_that_repeats_itself_stops_and_records_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    query = "List what xyzzyplugh frobnicates; then summarize the plughxyzzy schedule."
    code = run_cli(
        [
            "run", "--json", "--mode", "task", "--decompose", "--provider", "offline",
            "--query", query, "--doc", str(SAMPLE), "--out", str(tmp_path), "--maxIters", "8",
        ]
    )  # fmt: skip
    result = json.loads(capsys.readouterr().out)
    assert (code, result["status"]) == (1, "failed")
    store = TraceStore(tmp_path)
    subtasks = store.index.subtasks(result["sessionId"])
    assert len(subtasks) == 2
    for subtask in subtasks:
        assert (subtask.status, subtask.iterations) == ("failed", 2), "of the 4 allowed"
        assert subtask.error is not None and subtask.error.startswith(STOPPED)
