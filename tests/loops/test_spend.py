"""Spend: prices a user gives, token caps, a warning when a cap cannot work, usage that adds
up across --resume legs and is written as the run goes, and the `capped` status.

Every scripted answer reports 1,000 prompt and 100 completion tokens (the wire defaults), so
with ``--price local=100/1000`` each request costs exactly $0.20.
"""

from __future__ import annotations

import asyncio
import json
from functools import partial
from pathlib import Path
from typing import Any

import httpx2
import pytest

from ralph_tui.cli import run as cli_run
from ralph_tui.cli import run_cli
from ralph_tui.config import Settings
from ralph_tui.loops import runner
from ralph_tui.loops.runner import RunRequest, execute_run
from ralph_tui.traces.store import TraceStore
from tests.loops.baseline_server import BaselineServer

SAMPLE = Path(__file__).parents[2] / "ralph_tui" / "data" / "sample_document.md"
UNANSWERABLE = "What does xyzzyplugh frobnicate?"
LOCAL = "openai:local"


def run(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    out: Path,
    *args: str,
    varies: tuple[str, ...] = (),
) -> tuple[int, dict[str, Any], str, BaselineServer]:
    """One QA run of ``UNANSWERABLE`` (each iteration fails, in two requests) via the CLI;
    ``varies``: the fields of the answer each attempt words its own way."""
    server = BaselineServer(varies=varies)
    client = httpx2.AsyncClient(transport=httpx2.MockTransport(server.handle))
    monkeypatch.setattr(cli_run, "execute_run", partial(runner.execute_run, http_client=client))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("OPENAI_BASE_URL", "https://local.test/v1")
    # A resume takes the session's own mode, question and document.
    what = (
        []
        if "--resume" in args
        else ["--mode", "qa", "--query", UNANSWERABLE, "--doc", str(SAMPLE)]
    )
    code = run_cli(
        [
            "run", "--json", *what, "--out", str(out), "--generate-model", LOCAL,
            "--validate-model", LOCAL, "--sub-model", LOCAL, *args,
        ]
    )  # fmt: skip
    captured = capsys.readouterr()
    result = json.loads(captured.out) if captured.out.strip() else {}
    return code, result, captured.err, server


def test_a_given_price_makes_the_cost_cap_work_and_the_run_ends_capped(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, result, err, server = run(
        monkeypatch, capsys, tmp_path, "--price", "local=100/1000", "--cost-cap", "0.5",
        "--maxIters", "4",
    )  # fmt: skip
    assert (code, result["status"]) == (1, "capped")
    assert "cost cap reached: $0.6000 spent of the $0.50 cap" in result["error"]
    assert len(server.requests) == 3 and result["usage"]["calls"] == 3
    assert result["usage"]["costUsd"] == pytest.approx(0.6)
    assert result["output"]["answer"], "the best candidate (iteration 1) is printed"
    assert "cannot be enforced" not in err
    record = TraceStore(tmp_path).load_session(result["sessionId"])
    assert record.status == "capped" and record.cost_usd == pytest.approx(0.6)


def test_a_cost_cap_without_a_price_is_warned_about(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, result, err, _ = run(
        monkeypatch, capsys, tmp_path, "--cost-cap", "0.5", "--maxIters", "1"
    )
    assert "--cost-cap $0.50 cannot be enforced for openai:local: its price is unknown" in err
    assert "--price local=IN/OUT" in err and "--token-cap" in err
    assert (code, result["status"]) == (1, "failed"), "the run itself goes on"


def test_a_token_cap_stops_the_run(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, result, _, server = run(
        monkeypatch, capsys, tmp_path, "--token-cap", "3000", "--maxIters", "4"
    )
    assert (code, result["status"]) == (1, "capped")
    assert "token cap reached: 3,300 tokens used of the 3,000 cap" in result["error"]
    assert len(server.requests) == 3


@pytest.mark.parametrize(
    "bad",
    ["local", "local=1", "local=a/b", "=1/2", "local=-1/2"],
)
def test_a_malformed_price_is_one_line_and_exit_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path, bad: str
) -> None:
    out = tmp_path / "out"
    code, _, err, server = run(monkeypatch, capsys, out, "--price", bad)
    assert code == 2 and server.requests == []
    [line] = err.strip().splitlines()
    assert line.startswith("ralph-tui: error:") and "price" in line.lower()
    assert not out.exists()


def test_usage_adds_up_across_resume_legs_and_the_cap_is_the_sessions(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, first, _, _ = run(monkeypatch, capsys, tmp_path, "--token-cap", "3000", "--maxIters", "4")
    assert first["status"] == "capped" and first["usage"]["calls"] == 3
    session = first["sessionId"]
    # The same cap again: the session has used it up, so no request is sent.
    code, again, _, server = run(monkeypatch, capsys, tmp_path, "--resume", session)
    assert (code, again["status"], server.requests) == (1, "capped", [])
    # A higher cap: the leg goes on, and the totals are the session's.
    code, last, _, server = run(
        monkeypatch, capsys, tmp_path, "--resume", session, "--token-cap", "100000"
    )
    assert last["status"] == "failed" and len(server.requests) > 0
    assert last["usage"]["calls"] == 3 + len(server.requests)
    record = TraceStore(tmp_path).load_session(session)
    assert record.llm_calls == last["usage"]["calls"]
    assert record.input_tokens == 1000 * record.llm_calls


async def test_usage_is_written_while_the_run_goes(tmp_path: Path) -> None:
    """A run killed mid-way still shows what it spent: session.json is updated as it goes."""
    release = asyncio.Event()
    server = BaselineServer()

    async def slow_second(request: httpx2.Request) -> httpx2.Response:
        if len(server.requests) == 1:
            await release.wait()
        return await server.handle(request)

    settings = Settings(
        _env_file=None,  # type: ignore[call-arg]
        openai_api_key="sk-test",
        openai_base_url="https://local.test/v1",
        out_dir=tmp_path,
        generate_model=LOCAL,
        validate_model=LOCAL,
        sub_model=LOCAL,
        max_iters=1,
    )
    client = httpx2.AsyncClient(transport=httpx2.MockTransport(slow_second))
    run_task = asyncio.create_task(
        execute_run(
            RunRequest(mode="qa", query=UNANSWERABLE, doc_path=SAMPLE, settings=settings),
            on_event=lambda _e: None,
            http_client=client,
        )
    )
    while len(server.requests) < 1:
        await asyncio.sleep(0.01)
    await asyncio.sleep(0.2)  # the second request is waiting
    [session] = TraceStore(tmp_path).index.list_sessions()
    record = TraceStore(tmp_path).load_session(session.session_id)
    assert record.status == "running" and record.input_tokens == 1000 and record.llm_calls == 1
    release.set()
    assert (await run_task).status == "failed"


def test_a_run_has_a_default_cost_cap_and_none_removes_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """At $2.00 a request, the default $5.00 cap ends a run capped after its third request,
    with its best candidate; ``--cost-cap none`` lets the same run spend all it needs: four
    iterations whose answers differ, none repeating the one before."""
    pricey = ("--price", "local=1000/10000", "--maxIters", "4")
    code, result, err, server = run(
        monkeypatch, capsys, tmp_path / "a", *pricey, varies=("answer",)
    )
    assert (code, result["status"]) == (1, "capped")
    assert "cost cap reached: $6.0000 spent of the $5.00 cap" in result["error"]
    assert len(server.requests) == 3 and result["output"]["answer"]
    code, result, err, server = run(
        monkeypatch, capsys, tmp_path / "b", *pricey, "--cost-cap", "none", varies=("answer",)
    )
    assert (code, result["status"]) == (1, "failed") and len(server.requests) == 8
    assert "cannot be enforced" not in err, "no cap, nothing to warn about"
    record = TraceStore(tmp_path / "b").load_session(result["sessionId"])
    assert record.settings["costCapUsd"] is None and record.cost_usd == pytest.approx(16.0)


def test_the_default_cap_over_a_model_without_a_price_is_said_at_the_start(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, result, err, _ = run(monkeypatch, capsys, tmp_path, "--maxIters", "1")
    [said] = [line for line in err.splitlines() if "cannot be enforced" in line]
    assert "--cost-cap $5.00 cannot be enforced for openai:local" in said
    assert "the cap sees only priced calls" in said and "--price local=IN/OUT" in said
    assert (code, result["status"]) == (1, "failed"), "the run itself goes on"
