"""A run is bounded: --timeout ends it as timed_out with its best candidate, cancel stops it
wherever it is, a sandbox that cannot start fails the iteration, and nothing unexpected
reaches the user as a traceback."""

from __future__ import annotations

import asyncio
import json
import os
import time
from functools import partial
from pathlib import Path
from typing import Any

import httpx2
import pytest

from ralph_tui.cli import run as cli_run
from ralph_tui.cli import run_cli
from ralph_tui.config import Settings
from ralph_tui.events import BaseEvent, IterationStarted
from ralph_tui.loops import qa, runner
from ralph_tui.loops.runner import RunRequest, execute_run
from ralph_tui.traces.store import TraceStore
from tests.agents.conftest import tool_use
from tests.llm.llm_wire import anthropic_message
from tests.sandbox.sandbox_probes import descendants

SAMPLE = Path(__file__).parents[2] / "ralph_tui" / "data" / "sample_document.md"
UNSUPPORTED = {
    "answer": "- The filters are never washed.",
    "evidence": ["not in the handbook"],
    "lineQuotes": [[1]],
}
SLOW_S = 30.0
ROLES = ("generate_model", "validate_model", "sub_model")
CLAUDE_EVERYWHERE = [
    arg for flag in ("--generate-model", "--validate-model", "--sub-model")
    for arg in (flag, "anthropic:claude-sonnet-4-6")
]  # fmt: skip


class SlowServer:
    """Answers the worker's first request at once, then every request after ``SLOW_S``."""

    def __init__(self, first: dict[str, Any]) -> None:
        self.first = first
        self.requests = 0

    async def handle(self, request: httpx2.Request) -> httpx2.Response:
        self.requests += 1
        if self.requests > 1:
            await asyncio.sleep(SLOW_S)
        action = {"action": self.first}
        reply = anthropic_message([tool_use(action)], stop_reason="tool_use")
        return httpx2.Response(200, json=reply)


def claude_settings(tmp_path: Path, **values: Any) -> Settings:
    """Every role on Claude, behind the fake API."""
    return Settings(
        _env_file=None,  # type: ignore[call-arg]
        anthropic_api_key="sk-ant-test",
        anthropic_base_url="https://anthropic.test",
        out_dir=tmp_path / "out",
        **{role: "anthropic:claude-sonnet-4-6" for role in ROLES},
        **values,
    )


def cli_against(monkeypatch: pytest.MonkeyPatch, server: SlowServer) -> None:
    client = httpx2.AsyncClient(transport=httpx2.MockTransport(server.handle))
    monkeypatch.setattr(cli_run, "execute_run", partial(runner.execute_run, http_client=client))
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "https://anthropic.test")


def test_timeout_ends_the_run_as_timed_out_with_its_best_candidate(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cli_against(monkeypatch, SlowServer({**UNSUPPORTED, "resultReady": True}))
    out = tmp_path / "out"
    code = run_cli(
        [
            "run", "--json", "--mode", "qa", *CLAUDE_EVERYWHERE,
            "--query", "How often are filters backwashed?",
            "--doc", str(SAMPLE), "--out", str(out), "--maxIters", "3", "--timeout", "5",
        ]
    )  # fmt: skip
    result = json.loads(capsys.readouterr().out)
    assert (code, result["status"]) == (1, "timed_out")
    assert result["output"]["answer"] == UNSUPPORTED["answer"], "iteration 1's candidate"
    assert "--timeout of 5 s" in result["error"]
    record = TraceStore(out).load_session(result["sessionId"])
    assert record.status == "timed_out" and record.iterations == 1


async def test_cancel_stops_a_run_waiting_on_the_model(tmp_path: Path) -> None:
    server = SlowServer({"code": "print(len(context))"})
    cancel = asyncio.Event()

    def on_event(event: BaseEvent) -> None:
        if isinstance(event, IterationStarted):
            asyncio.get_running_loop().call_later(0.5, cancel.set)

    started = time.perf_counter()
    outcome = await execute_run(
        RunRequest(
            mode="qa",
            query="q",
            doc_path=SAMPLE,
            settings=claude_settings(tmp_path),
        ),
        on_event=on_event,
        cancel=cancel,
        http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(server.handle)),
    )
    assert outcome.status == "cancelled"
    assert server.requests == 2, "cancelled during the second request"
    assert time.perf_counter() - started < SLOW_S / 2
    events = (tmp_path / "out" / "sessions" / outcome.session_id / "events.jsonl").read_text()
    assert json.loads(events.splitlines()[-1])["status"] == "cancelled"


async def test_cancel_stops_a_run_inside_a_long_cell(tmp_path: Path) -> None:
    server = SlowServer({"code": "import time\ntime.sleep(30)"})
    cancel = asyncio.Event()
    # Processes an earlier test left for the session (multiprocessing's resource tracker).
    lasting = set(descendants(os.getpid()))

    def on_event(event: BaseEvent) -> None:
        if type(event).__name__ == "AgentStep" or isinstance(event, IterationStarted):
            return
        if type(event).__name__ == "UsageUpdated":  # the first answer is in: its cell runs
            asyncio.get_running_loop().call_later(0.5, cancel.set)

    started = time.perf_counter()
    outcome = await execute_run(
        RunRequest(
            mode="qa",
            query="q",
            doc_path=SAMPLE,
            settings=claude_settings(tmp_path, cell_timeout_s=60),
        ),
        on_event=on_event,
        cancel=cancel,
        http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(server.handle)),
    )
    assert outcome.status == "cancelled" and server.requests == 1
    assert time.perf_counter() - started < 15
    assert set(descendants(os.getpid())) <= lasting, "the sandbox running the cell is gone"


def test_a_sandbox_that_cannot_start_fails_the_iteration(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("RALPH_SANDBOX_START_TIMEOUT_S", "0.001")
    out = tmp_path / "out"
    code = run_cli(
        [
            "run", "--json", "--provider", "offline", "--mode", "qa", "--query", "q",
            "--doc", str(SAMPLE), "--out", str(out), "--maxIters", "1",
        ]
    )  # fmt: skip
    result = json.loads(capsys.readouterr().out)
    assert (code, result["status"]) == (1, "failed")
    [trace] = TraceStore(out).iterations(result["sessionId"])
    assert trace.failure_tag == "worker_error"
    assert "did not start within" in str(trace.model_extra["error"])


def test_an_unexpected_error_is_one_line_and_exit_4(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def broken(*_args: object, **_kw: object) -> None:
        raise ZeroDivisionError("a bug\nover two lines")

    monkeypatch.setattr(qa, "hard_validate_qa", broken)
    out = tmp_path / "out"
    code = run_cli(
        [
            "run", "--provider", "offline", "--mode", "qa", "--query", "How often?",
            "--doc", str(SAMPLE), "--out", str(out), "--maxIters", "1",
        ]
    )  # fmt: skip
    err = capsys.readouterr().err
    assert code == 4 and "Traceback" not in err
    [line] = [text for text in err.splitlines() if text.startswith("ralph-tui: error:")]
    assert "unexpected ZeroDivisionError: a bug over two lines" in line
    [session] = TraceStore(out).index.list_sessions()
    assert session.status == "crashed"
