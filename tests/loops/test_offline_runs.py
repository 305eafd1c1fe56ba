"""End to end with the offline provider and the real sandbox: QA, task, and decomposed task."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ralph_tui.cli import run_cli
from ralph_tui.events import event_from_json
from ralph_tui.traces.store import TraceStore

SAMPLE = Path(__file__).parents[2] / "ralph_tui" / "data" / "sample_document.md"


def run_json(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, object]]:
    code = run_cli(["run", "--provider", "offline", "--json", *args])
    return code, json.loads(capsys.readouterr().out)


def session_events(out: Path, session_id: str) -> list[str]:
    lines = (out / "sessions" / session_id / "events.jsonl").read_text().splitlines()
    return [event_from_json(line).type for line in lines]  # type: ignore[attr-defined]


def test_qa_run_passes_with_verbatim_evidence(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    code, result = run_json(
        capsys,
        "--mode", "qa",
        "--query", "How often are the filters backwashed, and what triggers an early backwash?",
        "--doc", str(SAMPLE),
        "--out", str(out),
    )  # fmt: skip
    assert code == 0 and result["status"] == "passed"
    document = SAMPLE.read_text(encoding="utf-8")
    output = result["output"]
    assert isinstance(output, dict)
    assert all(quote in document for quote in output["evidence"])
    claims = result["claims"]
    assert isinstance(claims, list) and len(claims) == len(output["evidence"])
    for number, (claim, quote) in enumerate(zip(claims, output["evidence"], strict=True), 1):
        assert claim["quotes"] == [number], "each line is linked to the quote it was built from"
        assert claim["text"].removeprefix("… ").rstrip(",;:") in " ".join(quote.split())
        assert claim["verdict"] == "supported" and claim["missing"] == ""
    session_id = str(result["sessionId"])
    store = TraceStore(out)
    assert store.load_session(session_id).status == "passed"
    [trace] = store.iterations(session_id)
    assert trace.passed and trace.hard_validation.ok and trace.judge and trace.judge.ok
    assert [claim.model_dump() for claim in trace.claims] == claims
    assert (out / "iter-01.json").is_file()
    kinds = session_events(out, session_id)
    assert kinds[0] == "run_started" and kinds[-1] == "run_finished"
    assert {"sandbox_executed", "hard_validation", "judge_verdict"} <= set(kinds)
    assert store.index.search("backwashed")[0].session_id == session_id


def test_task_run_writes_memory_and_phase_timings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    code, result = run_json(
        capsys,
        "--query", "Summarize the maintenance schedule and the staff responsible for each item.",
        "--doc", str(SAMPLE),
        "--out", str(out),
    )  # fmt: skip
    assert code == 0 and result["status"] == "passed"
    session_id = str(result["sessionId"])
    folder = out / "sessions" / session_id
    assert "## Iter 1 - " in (folder / "context.md").read_text()
    assert (folder / "episodes.jsonl").read_text().count("\n") == 1
    [trace] = TraceStore(out).iterations(session_id)
    assert {"docReaderMs", "reasonerMs", "judgeMs", "memoryMs"} <= set(trace.timings)
    assert trace.brief_len and trace.output_len and trace.failure_tag is None


def test_decomposed_task_runs_subtasks_in_order_then_merges(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    code, result = run_json(
        capsys,
        "--decompose",
        "--query", "List the past incidents; then summarize the maintenance schedule.",
        "--doc", str(SAMPLE),
        "--out", str(out),
        "--maxIters", "4",
    )  # fmt: skip
    assert code in (0, 1)
    session_id = str(result["sessionId"])
    folder = out / "sessions" / session_id
    assert (folder / "subtask-s1" / "iter-01.json").is_file()
    assert (folder / "subtask-s2" / "iter-01.json").is_file()
    [merged] = TraceStore(out).iterations(session_id)
    subtasks = merged.model_extra["subtasks"]  # type: ignore[index]
    assert [s["id"] for s in subtasks] == ["s1", "s2"]
    assert "incident" in str(merged.output["output"]).lower()
    assert {r.name for r in merged.hard_validation.rules} >= {"subtask_coverage"}
