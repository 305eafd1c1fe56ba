"""Every error kind derives from one base and is rendered one way; a run's status comes from
one table; with ``--json`` every end of a command is one JSON object on stdout."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from ralph_tui.cli import run_cli
from ralph_tui.cli.commands import COMMANDS
from ralph_tui.errors import ExitCode, InternalError, RalphError, UsageError, as_ralph_error
from ralph_tui.events import EXIT_CODE_OF_STATUS, RUN_STATUSES
from ralph_tui.llm.errors import AuthenticationError, CostCapReached, LLMError
from ralph_tui.loops import qa
from ralph_tui.loops.context import RunCancelled
from ralph_tui.loops.endings import RunTimedOut, status_of, stop_message
from ralph_tui.traces.store import TraceStore

SAMPLE = Path(__file__).parents[1] / "ralph_tui" / "data" / "sample_document.md"


def error_kinds(base: type[RalphError] = RalphError) -> set[type[RalphError]]:
    found: set[type[RalphError]] = set()
    for sub in base.__subclasses__():
        found |= {sub, *error_kinds(sub)}
    return found


def test_every_error_kind_has_a_title_and_an_exit_code() -> None:
    for command in COMMANDS.values():
        command.runner()  # loads each command's implementation and the errors it raises
    kinds = error_kinds()
    assert {k.__name__ for k in kinds} >= {
        "InputError", "SettingsError", "LLMError", "SuiteError", "RetrievalError",
        "UnknownVariantError", "NoSessionsError", "ExternalError",
    }  # fmt: skip
    for kind in kinds:
        assert kind.title and kind.title != RalphError.title, kind
        assert isinstance(kind.exit_code, ExitCode), kind


def test_one_line_carries_the_hint_and_the_provider() -> None:
    error = AuthenticationError("no key", provider="anthropic", model="claude")
    assert error.one_line() == "anthropic:claude: no key"
    assert UsageError("bad\nvalue", hint="fix it").one_line() == "bad value (fix it)"
    crash = as_ralph_error(ZeroDivisionError("x"))
    assert isinstance(crash, InternalError) and crash.exit_code == ExitCode.INTERNAL
    assert as_ralph_error(KeyboardInterrupt()).exit_code == ExitCode.CANCELLED


@pytest.mark.parametrize(
    ("stop", "status"),
    [
        (RunCancelled("cancelled by the user"), "cancelled"),
        (asyncio.CancelledError(), "cancelled"),
        (RunTimedOut("late"), "timed_out"),
        (CostCapReached("cap"), "capped"),
        (AuthenticationError("no key"), "error"),
        (LLMError("down"), "error"),
        (ZeroDivisionError("bug"), "crashed"),
        (TimeoutError(), "crashed"),
    ],
)
def test_one_table_decides_the_status(stop: BaseException, status: str) -> None:
    assert status_of(stop) == status


def test_a_crash_is_recorded_with_what_broke() -> None:
    assert stop_message(ZeroDivisionError("a\nb")).startswith("unexpected ZeroDivisionError: a b")


def test_every_status_has_an_exit_code() -> None:
    assert set(EXIT_CODE_OF_STATUS) == set(RUN_STATUSES)


def test_a_crashed_run_with_json_prints_one_object(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def broken(*_args: object, **_kw: object) -> None:
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr(qa, "hard_validate_qa", broken)
    out = tmp_path / "out"
    code = run_cli(
        [
            "run", "--provider", "offline", "--mode", "qa", "--query", "How often?",
            "--doc", str(SAMPLE), "--out", str(out), "--maxIters", "1", "--json",
        ]
    )  # fmt: skip
    captured = capsys.readouterr()
    result = json.loads(captured.out)
    [session] = TraceStore(out).index.list_sessions()
    assert code == ExitCode.INTERNAL == result["exitCode"]
    assert result["status"] == "crashed" and result["sessionId"] == session.session_id
    assert "unexpected ZeroDivisionError: a bug" in result["error"]
    assert "Traceback" not in captured.err


def test_bad_input_with_json_prints_one_object(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = run_cli(["run", "--query", "q", "--doc", str(tmp_path / "missing.txt"), "--json"])
    captured = capsys.readouterr()
    result = json.loads(captured.out)
    assert code == ExitCode.USAGE == result["exitCode"]
    assert result["status"] == "rejected" and result["sessionId"] is None
    assert result["errorKind"] == "InputError"
    assert [line for line in captured.err.splitlines() if line] == [
        f"ralph-tui: error: {result['error']}"
    ]
