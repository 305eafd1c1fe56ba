"""One failure policy for every phase, through the CLI and the real openai SDK.

A fake OpenAI-compatible server (at the network boundary) answers every role with the
offline baseline, except one role, which never makes a tool call, as weak models do. That
phase must be tagged on its iteration, the iteration recorded with what it had, the run
ended with a documented status and exit code, one line on stderr and no traceback.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import httpx2
import pytest

from ralph_tui.agents.stuck import STUCK_REPEATS
from ralph_tui.cli import run as cli_run
from ralph_tui.cli import run_cli
from ralph_tui.loops import runner
from ralph_tui.traces.store import TraceStore
from tests.loops.baseline_server import LOCAL_MODELS, BaselineServer, use_server

SAMPLE = Path(__file__).parents[2] / "ralph_tui" / "data" / "sample_document.md"
QA_QUERY = "How often are the filters backwashed, and what triggers an early backwash?"
TASK_QUERY = "Describe how the works responds when river turbidity exceeds 80 NTU."
PLAN_QUERY = "List the past incidents; then summarize the maintenance schedule."


RunCLI = Callable[..., tuple[int, dict[str, Any], str, Path]]


@pytest.fixture
def run_against(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> RunCLI:
    """Run the CLI against a ``BaselineServer`` whose ``failing`` role never answers."""

    def run(failing: str, *args: str) -> tuple[int, dict[str, Any], str, Path]:
        server = BaselineServer(failing)
        use_server(monkeypatch, server)
        out = tmp_path / "out"
        code = run_cli(
            [
                "run", "--json", "--doc", str(SAMPLE), "--out", str(out),
                *LOCAL_MODELS,
                "--sub-model", "openai:local", *args,
            ]
        )  # fmt: skip
        captured = capsys.readouterr()
        assert "Traceback" not in captured.err
        assert failing in server.requests, "the failing role was reached"
        return code, json.loads(captured.out), captured.err, out

    return run


def test_a_qa_judge_that_never_answers_keeps_the_candidate(run_against: RunCLI) -> None:
    code, result, _, out = run_against(
        "judge", "--mode", "qa", "--query", QA_QUERY, "--maxIters", "1"
    )
    assert (code, result["status"]) == (1, "failed")
    [trace] = TraceStore(out).iterations(result["sessionId"])
    assert trace.failure_tag == "judge_error" and not trace.passed
    stopped = f"AgentStuckError: judge stopped at step {STUCK_REPEATS} of 4, stuck: no tool call"
    assert stopped in str(trace.model_extra), "a judge that keeps not answering stops early"
    assert trace.output["evidence"], "the valid candidate is kept in iter-01.json"
    assert result["output"] == trace.output
    record = TraceStore(out).index.get(result["sessionId"])
    assert record is not None and record.status == "failed"


@pytest.mark.parametrize("phase", ["reasoner", "judge", "doc_reader"])
def test_a_task_phase_that_never_answers_is_tagged(run_against: RunCLI, phase: str) -> None:
    code, result, _, out = run_against(
        phase, "--mode", "task", "--query", TASK_QUERY, "--maxIters", "2"
    )
    assert (code, result["status"]) == (1, "failed")
    traces = TraceStore(out).iterations(result["sessionId"])
    assert [t.iteration for t in traces] == [1, 2], "the loop went on after the failure"
    tag = "judge_error" if phase == "judge" else f"{phase}_error"
    assert all(t.failure_tag == tag and not t.passed for t in traces)


def test_a_decomposer_that_never_answers_runs_the_task_whole(run_against: RunCLI) -> None:
    code, result, err, out = run_against(
        "decomposer", "--mode", "task", "--decompose", "--query", PLAN_QUERY, "--maxIters", "1"
    )
    assert code in (0, 1) and result["status"] in ("passed", "failed")
    assert "decomposer_error" in err
    folder = out / "sessions" / result["sessionId"]
    assert (folder / "iter-01.json").is_file() and not list(folder.glob("subtask-*"))


def test_an_aggregator_that_never_answers_records_the_subtask_outputs(
    run_against: RunCLI,
) -> None:
    code, result, _, out = run_against(
        "aggregator", "--mode", "task", "--decompose", "--query", PLAN_QUERY, "--maxIters", "4"
    )
    assert (code, result["status"]) == (1, "failed")
    [merged] = TraceStore(out).iterations(result["sessionId"])
    assert merged.failure_tag == "aggregator_error" and not merged.passed
    assert "incident" in merged.output["output"].lower(), "what the sub-tasks produced is kept"


def test_each_role_asks_for_no_more_tokens_than_it_needs(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server = BaselineServer()
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("OPENAI_BASE_URL", "https://local.test/v1")
    local = LOCAL_MODELS
    for mode, query in (("qa", QA_QUERY), ("task", TASK_QUERY)):
        client = httpx2.AsyncClient(transport=httpx2.MockTransport(server.handle))
        monkeypatch.setattr(cli_run, "execute_run", partial(runner.execute_run, http_client=client))
        args = ["run", "--mode", mode, "--query", query, "--doc", str(SAMPLE), "--maxIters", "1"]
        run_cli([*args, "--out", str(tmp_path / mode), *local])
    capsys.readouterr()
    assert server.max_tokens == {
        "worker": {2048},
        "judge": {1024},
        "doc_reader": {2048},
        "reasoner": {4096},
    }
