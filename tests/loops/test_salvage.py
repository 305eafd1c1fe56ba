"""A salvaged candidate (the worker ran out of steps) never passes, and every view says so."""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path
from typing import Any

import httpx2
import pytest

from ralph_tui.cli import run as cli_run
from ralph_tui.cli import run_cli
from ralph_tui.events import SALVAGE_NOTE
from ralph_tui.loops import runner
from ralph_tui.traces.store import TraceStore
from ralph_tui.tui.core.run_progress import IterationChecks
from ralph_tui.tui.session_detail import iteration_content, timeline_label
from ralph_tui.tui.widgets.output_pane import candidate_text
from ralph_tui.tui.widgets.validation_pane import iteration_heading
from tests.agents.conftest import tool_use
from tests.llm.llm_wire import anthropic_message
from tests.loops.test_sdk_run import DOCUMENT, QUOTES

ANSWER = "- Two days of supply.\n- Filters backwash every 48 hours.\n- Alarms escalate."
CLAUDE = "anthropic:claude-sonnet-4-6"


def replies(*arguments: dict[str, Any]) -> list[httpx2.Response]:
    return [
        httpx2.Response(200, json=anthropic_message([tool_use(a)], stop_reason="tool_use"))
        for a in arguments
    ]


def run_salvaged(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, *extra: str) -> int:
    """One iteration: the worker runs code, runs out of its one step, the salvage gives a
    well-formed answer with real quotes, and the judge approves it."""
    script = replies(
        {"action": {"code": "print(context[:120])"}},
        {"answer": ANSWER, "evidence": QUOTES, "lineQuotes": [[1], [2], [3]]},
        {"lines": [{"line": n, "verdict": "supported"} for n in (1, 2, 3)], "issues": []},
    )
    client = httpx2.AsyncClient(transport=httpx2.MockTransport(lambda _r: script.pop(0)))
    monkeypatch.setattr(cli_run, "execute_run", partial(runner.execute_run, http_client=client))
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "https://anthropic.test")
    doc = tmp_path / "doc.txt"
    doc.write_text(DOCUMENT, encoding="utf-8")
    models = ["--generate-model", CLAUDE, "--validate-model", CLAUDE, "--sub-model", CLAUDE]
    code = run_cli(
        [
            "run", "--mode", "qa", "--query", "What does the works hold and do?",
            "--doc", str(doc), "--out", str(tmp_path / "out"), "--maxIters", "1",
            "--worker-max-steps", "1", *models, *extra,
        ]
    )  # fmt: skip
    assert not script, "every scripted reply was used"
    return code


@pytest.fixture
def salvaged_run(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> tuple[int, str, Path]:
    code = run_salvaged(monkeypatch, tmp_path)
    return code, capsys.readouterr().out, tmp_path / "out"


def test_a_salvage_fails_and_the_cli_says_it_is_one(salvaged_run: tuple[int, str, Path]) -> None:
    code, stdout, out = salvaged_run
    assert code == 1 and stdout.startswith("status: failed")
    assert f"note: {SALVAGE_NOTE}" in stdout
    [trace] = TraceStore(out).iterations(TraceStore(out).index.list_sessions()[0].session_id)
    assert trace.fallback and not trace.passed
    assert trace.hard_validation.ok and trace.judge is not None and trace.judge.ok


def test_sessions_show_and_the_session_view_flag_the_salvage(
    salvaged_run: tuple[int, str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    _, _, out = salvaged_run
    [session] = TraceStore(out).index.list_sessions()
    assert run_cli(["sessions", "show", session.session_id, "--out", str(out)]) == 0
    assert f"iteration 1: failed ({SALVAGE_NOTE})" in capsys.readouterr().out
    [trace] = TraceStore(out).iterations(session.session_id)
    assert "salvage" in timeline_label(trace).plain
    assert SALVAGE_NOTE in iteration_content(trace, DOCUMENT).plain


def test_the_json_result_flags_the_salvage(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = run_salvaged(monkeypatch, tmp_path, "--json")
    result = json.loads(capsys.readouterr().out)
    assert (code, result["status"], result["salvaged"]) == (1, "failed", True)


def test_the_live_output_and_validation_panes_flag_a_salvage() -> None:
    checks = IterationChecks(iteration=2, passed=False, salvaged=True)
    assert "salvage: not verified" in iteration_heading(checks).plain
    assert SALVAGE_NOTE in candidate_text({"answer": "a"}, salvaged=True).plain
    assert SALVAGE_NOTE not in candidate_text({"answer": "a"}).plain
