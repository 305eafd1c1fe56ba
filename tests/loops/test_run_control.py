"""Heartbeats during long phases, cancellation, and the cost cap stopping a run cleanly."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx2

from ralph_tui.config import Settings
from ralph_tui.events import BaseEvent, Heartbeat, IterationStarted, RunFinished
from ralph_tui.loops.context import RunContext
from ralph_tui.loops.runner import RunRequest, execute_run
from ralph_tui.traces.store import TraceStore
from tests.agents.conftest import tool_use
from tests.llm.llm_wire import anthropic_message

SAMPLE = Path(__file__).parents[2] / "ralph_tui" / "data" / "sample_document.md"


def settings(tmp_path: Path, **values: object) -> Settings:
    return Settings(_env_file=None, out_dir=tmp_path / "out", **values)  # type: ignore[call-arg, arg-type]


async def test_a_long_phase_sends_heartbeats(tmp_path: Path) -> None:
    events: list[BaseEvent] = []
    ctx = RunContext(
        settings=settings(tmp_path, progress_heartbeat_ms=10),
        clients=None,  # type: ignore[arg-type]
        document="",
        doc_path=SAMPLE,
        query="q",
        emit=events.append,
        traces=None,  # type: ignore[arg-type]
    )
    async with ctx.phase(1, "worker"):
        await asyncio.sleep(0.08)
    beats = [e for e in events if isinstance(e, Heartbeat)]
    assert len(beats) >= 3 and beats[0].phase == "worker"
    assert beats[-1].elapsed_ms > beats[0].elapsed_ms


async def test_cancel_stops_the_run_and_keeps_its_traces(tmp_path: Path) -> None:
    cancel = asyncio.Event()
    events: list[BaseEvent] = []

    def on_event(event: BaseEvent) -> None:
        events.append(event)
        if isinstance(event, IterationStarted) and event.iteration == 1:
            cancel.set()

    request = RunRequest(
        mode="qa",
        query="How often are the filters backwashed?",
        doc_path=SAMPLE,
        settings=settings(tmp_path, provider="offline"),
    )
    outcome = await execute_run(request, on_event=on_event, cancel=cancel)
    assert outcome.status == "cancelled"
    assert TraceStore(tmp_path / "out").load_session(outcome.session_id).status == "cancelled"
    assert isinstance(events[-1], RunFinished) and events[-1].status == "cancelled"


async def test_cost_cap_stops_the_run_cleanly(tmp_path: Path) -> None:
    expensive = anthropic_message(
        [tool_use({"code": "print(1)", "resultReady": False})],
        stop_reason="tool_use",
        input_tokens=100_000,
        output_tokens=1000,
    )
    requests: list[httpx2.Request] = []

    def handle(request: httpx2.Request) -> httpx2.Response:
        requests.append(request)
        return httpx2.Response(200, json=expensive)

    request = RunRequest(
        mode="qa",
        query="q",
        doc_path=SAMPLE,
        settings=settings(
            tmp_path,
            anthropic_api_key="k",
            openai_api_key="k",
            anthropic_base_url="https://anthropic.test",
            cost_cap_usd=0.5,
        ),
    )
    outcome = await execute_run(
        request,
        on_event=lambda _e: None,
        http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(handle)),
    )
    assert len(requests) == 2  # $0.315 each at $3/$15 per million tokens: the third is refused
    assert outcome.status == "capped" and "cost cap" in (outcome.error or "")
    assert outcome.usage.cost_usd == 0.63
    record = TraceStore(tmp_path / "out").load_session(outcome.session_id)
    assert record.status == "capped" and record.cost_usd == 0.63
