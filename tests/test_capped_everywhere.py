"""A run that reaches its token cap ends ``capped``, exit code 1, everywhere: the command
line, the API, and the session's record (the MCP tools: ``tests/mcp/test_stdio_server.py``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ralph_tui import ask
from ralph_tui.cli import run_cli
from ralph_tui.errors import ExitCode
from ralph_tui.traces.store import TraceStore

SAMPLE = Path(__file__).parents[1] / "ralph_tui" / "data" / "sample_document.md"
QUESTION = "How often are the filters backwashed?"


def test_the_command_line_ends_capped_with_exit_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = run_cli(
        [
            "run", "--provider", "offline", "--mode", "qa", "--query", QUESTION,
            "--doc", str(SAMPLE), "--out", str(tmp_path), "--token-cap", "100", "--json",
        ]
    )  # fmt: skip
    captured = capsys.readouterr()
    result = json.loads(captured.out)
    assert code == ExitCode.FAILED == result["exitCode"]
    assert result["status"] == "capped" and "token cap reached" in result["error"]
    assert "ralph-tui: error" not in captured.err, "a cap is an ending, not an error"
    assert TraceStore(tmp_path).load_session(result["sessionId"]).status == "capped"


def test_the_api_ends_capped(tmp_path: Path) -> None:
    result = ask(QUESTION, SAMPLE, provider="offline", token_cap=100, out_dir=tmp_path)
    assert result.status == "capped" and not result.passed
    assert result.error is not None and "token cap reached" in result.error
    assert TraceStore(tmp_path).load_session(result.session_id).status == "capped"
