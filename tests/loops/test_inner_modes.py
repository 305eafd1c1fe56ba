"""Both inner modes end to end with the offline provider: ``rlm`` (code in the sandbox) and
``lcm`` (operators as tools, no sandbox), in QA and task mode, picked by flag or env."""

from __future__ import annotations

from pathlib import Path

import pytest

from ralph_tui.cli import run_cli
from ralph_tui.evidence import PASSAGE_MARKER
from ralph_tui.lcm.store import MessageStore
from ralph_tui.traces.store import TraceStore
from tests.loops.test_offline_runs import SAMPLE, run_json, session_events

QUESTION = "How often are the filters backwashed, and what triggers an early backwash?"
TASK = "Summarize the maintenance schedule and the staff responsible for each item."


@pytest.mark.parametrize("inner", ["rlm", "lcm"])
def test_qa_passes_in_both_inner_modes(
    inner: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    code, result = run_json(
        capsys, "--mode", "qa", "--inner", inner, "--query", QUESTION,
        "--doc", str(SAMPLE), "--out", str(out),
    )  # fmt: skip
    assert code == 0 and result["status"] == "passed"
    output = result["output"]
    assert isinstance(output, dict)
    document = SAMPLE.read_text(encoding="utf-8")
    assert len(output["evidence"]) >= 3 and all(q in document for q in output["evidence"])
    session_id = str(result["sessionId"])
    kinds = set(session_events(out, session_id))
    explored = "tool_executed" if inner == "lcm" else "sandbox_executed"
    other = "sandbox_executed" if inner == "lcm" else "tool_executed"
    assert explored in kinds and other not in kinds
    assert {"operator_called", "judge_verdict"} <= kinds if inner == "lcm" else True
    [trace] = TraceStore(out).iterations(session_id)
    assert trace.passed and (trace.isolation or "").startswith("none") == (inner == "lcm")
    store = MessageStore.load(out / "sessions" / session_id / "context-01-worker.jsonl")
    assert store.messages[0].role == "user" and store.messages[-1].role == "assistant"


def test_task_passes_in_the_lcm_mode_picked_by_env(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RALPH_INNER", "lcm")
    out = tmp_path / "out"
    code, result = run_json(capsys, "--query", TASK, "--doc", str(SAMPLE), "--out", str(out))
    assert code == 0 and result["status"] == "passed"
    session_id = str(result["sessionId"])
    assert "tool_executed" in session_events(out, session_id)
    [trace] = TraceStore(out).iterations(session_id)
    brief = trace.model_dump()["brief"].splitlines()
    document = SAMPLE.read_text(encoding="utf-8")
    assert len(brief) >= 3
    for passage in (PASSAGE_MARKER.sub("", line[2:]).strip() for line in brief[1:]):
        # The document's own text (cited by its marker), or a table row named by its
        # header ("Task: ...; ...").
        cells = [cell.rsplit(": ", 1)[-1] for cell in passage.rstrip(".").split("; ")]
        assert passage in document or all(cell in document for cell in cells), passage
    assert "maintenance" in " ".join(brief).lower()
    assert trace.quotes and all(quote.found == "exact" for quote in trace.quotes)
    assert (out / "sessions" / session_id / "context-01-doc_reader.jsonl").is_file()


def test_an_unknown_inner_mode_is_refused_with_the_choices(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = run_cli(["run", "--provider", "offline", "--inner", "sandbox", "--query", "q",
                    "--doc", str(SAMPLE), "--out", str(tmp_path / "out")])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2 and "rlm" in err and "lcm" in err
    assert not (tmp_path / "out").exists()
