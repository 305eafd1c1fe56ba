"""Every error kind derives from one base and is rendered one way; a run's status comes from
one table; with ``--json`` every end of a command is one JSON object on stdout."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from ralph_tui.cli import run_cli
from ralph_tui.cli.commands import COMMANDS
from ralph_tui.errors import (
    OUTCOMES,
    CostCapReached,
    ExitCode,
    InternalError,
    ProviderError,
    RalphError,
    RunTimedOut,
    UsageError,
    as_ralph_error,
    outcome_of,
)
from ralph_tui.events import ERROR_OF_STATUS, EXIT_CODE_OF_STATUS, KIND_OF_STATUS, RUN_STATUSES
from ralph_tui.llm.errors import AuthenticationError, LLMError
from ralph_tui.loops import qa
from ralph_tui.loops.context import RunCancelled
from ralph_tui.loops.endings import status_of, stop_message
from ralph_tui.traces.store import TraceStore

SAMPLE = Path(__file__).parents[1] / "ralph_tui" / "data" / "sample_document.md"


def error_kinds(base: type[RalphError] = RalphError) -> set[type[RalphError]]:
    found: set[type[RalphError]] = set()
    for sub in base.__subclasses__():
        found |= {sub, *error_kinds(sub)}
    return found


def test_every_error_class_has_a_row_of_the_one_table_and_a_title() -> None:
    for command in COMMANDS.values():
        command.runner()  # loads each command's implementation and the errors it raises
    kinds = error_kinds()
    assert {k.__name__ for k in kinds} >= {
        "InputError", "SettingsError", "LLMError", "SuiteError", "RetrievalError",
        "UnknownVariantError", "NoSessionsError", "ExternalError", "DirectPromptTooLong",
    }  # fmt: skip
    for kind in kinds:
        assert kind.title and kind.title != RalphError.title, kind
        row = next(cls for cls in kind.__mro__ if cls in OUTCOMES)
        assert issubclass(row, RalphError), f"{kind} ends as a bug would: it has no kind"
        assert "status" not in vars(kind) and "exit_code" not in vars(kind), kind


def test_an_error_class_outside_the_table_cannot_be_declared() -> None:
    with pytest.raises(TypeError, match="derives from no kind"):

        class Stray(RalphError):
            pass

    with pytest.raises(TypeError, match="sets exit_code"):

        class OwnCode(UsageError):
            exit_code = ExitCode.PROVIDER  # type: ignore[assignment]


def test_a_cap_is_its_own_kind_not_a_provider_failure() -> None:
    """A cost or token cap ends a run ``capped`` with exit 1 and says so; nothing that
    catches a provider's failure catches it."""
    cap = CostCapReached("cost cap reached: $0.60 spent of the $0.50 cap")
    assert not isinstance(cap, ProviderError | LLMError)
    assert cap.to_json() == {
        "status": "capped",
        "error": "cost cap reached: $0.60 spent of the $0.50 cap",
        "errorKind": "CostCapReached",
        "exitCode": 1,
    }
    assert cap.title == "The run reached its cap" and as_ralph_error(cap).exit_code == 1
    assert status_of(cap) == "capped" and EXIT_CODE_OF_STATUS["capped"] == cap.exit_code


def test_every_status_a_run_is_stopped_with_reads_the_table() -> None:
    for status, kind in KIND_OF_STATUS.items():
        assert outcome_of(kind).status == status
        assert EXIT_CODE_OF_STATUS[status] == outcome_of(kind).exit_code
    assert set(KIND_OF_STATUS) == set(RUN_STATUSES) - {"running", "passed", "failed"}
    assert {"error": ProviderError, "crashed": InternalError} == ERROR_OF_STATUS
    # Input refused mid-run would be a bug: no run is ever recorded "rejected".
    assert status_of(UsageError("late")) == "crashed"


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


def test_the_app_ends_a_capped_run_as_capped_not_as_a_provider_failure() -> None:
    from ralph_tui.tui.core.run_ending import RunEnding

    ending = RunEnding.of_error(CostCapReached("cost cap reached: $5.01 spent of the $5.00 cap"))
    assert ending.status == "capped"
    assert ending.summary().startswith("The run reached its cap: cost cap reached")
