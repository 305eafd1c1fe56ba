"""A QA run through both real SDKs on a fake network: the judge rejects iteration 1.

The worker (Anthropic) runs real code in the real sandbox; the judge (OpenAI) rejects the
first answer with an issue. Iteration 2's worker request must carry that issue as a
constraint and the previous output; iteration 2 passes; traces, events and index agree.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx2
import pytest

from ralph_tui.config import Settings
from ralph_tui.events import (
    BaseEvent,
    IndexProgress,
    JudgeVerdict,
    ModelTurnPartial,
    Notice,
    RetrievalDone,
)
from ralph_tui.loops.runner import RunRequest, execute_run
from ralph_tui.traces.store import TraceStore
from tests.agents.conftest import tool_use
from tests.llm.llm_wire import anthropic_message, openai_completion, streamed

DOCUMENT = (
    "The reservoir holds two days of supply. Filters are backwashed every 48 hours. "
    "Chlorine is dosed to 0.5 mg/L at the outlet. Alarms escalate after 10 minutes."
)
QUOTES = [
    "The reservoir holds two days of supply.",
    "Filters are backwashed every 48 hours.",
    "Alarms escalate after 10 minutes.",
]
LINKS = [[1], [2], [3]]
MISSING = "daily backwashing; the evidence says every 48 hours"
ISSUE = (
    f"Line 2 is partly supported (the quotes do not show: {MISSING}): Filters are backwashed daily."
)


def worker_reply(arguments: dict[str, Any]) -> dict[str, Any]:
    if "answer" in arguments:
        arguments = {"lineQuotes": LINKS, **arguments}
    return anthropic_message([tool_use(arguments)], stop_reason="tool_use")


def judge_reply(verdicts: list[str], issues: list[str], missing: str = "") -> dict[str, Any]:
    """The judge's tool call: a verdict per line (``missing`` for the lines not supported)."""
    lines = [
        {"line": n, "verdict": v, "missing": "" if v == "supported" else missing}
        for n, v in enumerate(verdicts, 1)
    ]
    call = {
        "id": f"call_{len(issues)}",
        "type": "function",
        "function": {
            "name": "submit_output",
            "arguments": json.dumps({"lines": lines, "issues": issues}),
        },
    }
    return openai_completion({"content": None, "tool_calls": [call]}, finish_reason="tool_calls")


ALL_SUPPORTED = judge_reply(["supported"] * 3, [])


class Network:
    """Routes each provider's requests to its own scripted replies (streamed, as the
    providers stream them, when asked to), and records them."""

    def __init__(self) -> None:
        answer1 = "- Two days of supply.\n- Filters are backwashed daily.\n- Alarms escalate."
        answer2 = "- Two days of supply.\n- Filters backwash every 48 hours.\n- Alarms escalate."
        self.scripts: dict[str, list[dict[str, Any]]] = {
            "anthropic.test": [
                worker_reply({"code": "print(len(context))", "resultReady": False}),
                worker_reply({"answer": answer1, "evidence": QUOTES, "resultReady": True}),
                worker_reply({"answer": answer2, "evidence": QUOTES, "resultReady": True}),
            ],
            "openai.test": [
                judge_reply(["supported", "partly_supported", "supported"], [], MISSING),
                ALL_SUPPORTED,
            ],
        }
        self.requests: dict[str, list[dict[str, Any]]] = {host: [] for host in self.scripts}

    def handle(self, request: httpx2.Request) -> httpx2.Response:
        host = request.url.host
        self.requests[host].append(json.loads(request.content))
        return streamed(request, httpx2.Response(200, json=self.scripts[host].pop(0)))


def settings_for(tmp_path: Path, **extra: Any) -> Settings:
    return Settings(
        _env_file=None,
        anthropic_api_key="sk-ant-test",
        openai_api_key="sk-test",
        anthropic_base_url="https://anthropic.test",
        openai_base_url="https://openai.test/v1",
        out_dir=tmp_path / "out",
        **extra,
    )


@pytest.fixture
def document(tmp_path: Path) -> Path:
    path = tmp_path / "doc.txt"
    path.write_text(DOCUMENT)
    return path


async def test_judge_feedback_reaches_the_next_iteration(tmp_path: Path, document: Path) -> None:
    network = Network()
    settings = settings_for(tmp_path, max_iters=3)
    events: list[BaseEvent] = []
    outcome = await execute_run(
        RunRequest(mode="qa", query="How is the plant run?", doc_path=document, settings=settings),
        on_event=events.append,
        http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(network.handle)),
    )
    assert outcome.status == "passed" and outcome.iterations == 2
    assert not any(isinstance(e, IndexProgress) for e in events), "no search, no indexing"

    first_code_result = network.requests["anthropic.test"][1]["messages"][-1]["content"][0]
    assert first_code_result["type"] == "tool_result"
    assert str(len(DOCUMENT)) in json.dumps(first_code_result["content"])

    iteration2 = network.requests["anthropic.test"][2]["messages"][0]["content"][0]["text"]
    assert ISSUE in iteration2
    assert "Filters are backwashed daily." in iteration2

    verdicts = [e for e in events if isinstance(e, JudgeVerdict)]
    assert [v.ok for v in verdicts] == [False, True]
    assert verdicts[0].issues[0].message == ISSUE

    store = TraceStore(settings.out_dir)
    first, second = store.iterations(outcome.session_id)
    assert not first.passed and first.judge and first.judge.issues[0].message == ISSUE
    assert any(ISSUE in c for c in first.feedback) and second.constraints == first.feedback
    assert second.passed
    record = store.index.get(outcome.session_id)
    assert record is not None and record.status == "passed" and record.iterations == 2
    logged = (settings.out_dir / "sessions" / outcome.session_id / "events.jsonl").read_text()
    assert logged.count('"type":"judge_verdict"') == 2

    partial_agents = {e.agent for e in events if isinstance(e, ModelTurnPartial)}
    assert partial_agents == {"worker", "judge"}, "both providers' turns streamed to the app"
    assert '"model_turn_partial"' not in logged, "the trace keeps whole turns only"
    assert not any("does not stream" in e.message for e in events if isinstance(e, Notice))


async def test_a_worker_out_of_steps_is_traced_and_the_loop_goes_on(
    tmp_path: Path, document: Path
) -> None:
    network = Network()
    network.scripts["anthropic.test"] = [
        worker_reply({"code": "x = 1", "resultReady": False}),
        worker_reply({"answer": "- a\n- b\n- c", "evidence": QUOTES, "resultReady": True}),
    ]
    network.scripts["openai.test"] = [ALL_SUPPORTED]
    settings = settings_for(tmp_path, max_iters=2, worker_max_steps=1)
    outcome = await execute_run(
        RunRequest(mode="qa", query="q", doc_path=document, settings=settings),
        on_event=lambda _e: None,
        http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(network.handle)),
    )
    assert outcome.status == "passed" and outcome.iterations == 2
    first, second = TraceStore(settings.out_dir).iterations(outcome.session_id)
    assert first.failure_tag == "worker_error" and "MaxStepsError" in str(first.model_extra)
    assert any("spent all 1 steps running code" in c for c in second.constraints)


async def test_worker_code_searches_with_retrieve_and_the_trace_keeps_it(
    tmp_path: Path, document: Path
) -> None:
    network = Network()
    code = "for hit in retrieve('how often are filters backwashed', k=1):\n    print(hit['text'])"
    network.scripts["anthropic.test"] = [
        worker_reply({"code": code, "resultReady": False}),
        worker_reply({"answer": "- a\n- b\n- c", "evidence": QUOTES, "resultReady": True}),
    ]
    network.scripts["openai.test"] = [ALL_SUPPORTED]
    settings = settings_for(tmp_path, max_iters=1, chunk_size=60, chunk_overlap=0)
    events: list[BaseEvent] = []
    outcome = await execute_run(
        RunRequest(mode="qa", query="q", doc_path=document, settings=settings),
        on_event=events.append,
        http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(network.handle)),
    )
    assert outcome.status == "passed"
    observation = network.requests["anthropic.test"][1]["messages"][-1]["content"][0]
    [ready] = [e for e in events if isinstance(e, IndexProgress) and e.stage == "ready"]
    assert ready.figures is not None and str(ready.figures["embedder"]).startswith("wordllama")
    [search] = [e for e in events if isinstance(e, RetrievalDone)]
    assert search.origin == "sandbox" and search.iteration == 1
    [passage] = search.passages
    assert "Filters are backwash" in passage.text and passage.text in observation["content"]
    assert passage.span is not None and DOCUMENT[slice(*passage.span)] == passage.text
    [trace] = TraceStore(settings.out_dir).iterations(outcome.session_id)
    [diagnostics] = trace.model_extra["retrieval"]  # type: ignore[index]
    assert diagnostics["origin"] == "sandbox" and diagnostics["k"] == 1
