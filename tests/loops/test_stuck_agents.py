"""A model stuck on the output schema, through both SDKs' wire formats: it stops after
``STUCK_REPEATS`` equal turns with a message naming what it kept getting wrong, the next
iteration is told so as a constraint, and the requests of its invalid steps do not grow.

The worker runs on the Anthropic wire (judged over the OpenAI wire) and on the OpenAI wire
(judged over the Anthropic wire), in both inner modes; the judge (the structured agent),
on the other wire of each. Every turn is streamed, as by default.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx2
import pytest

from ralph_tui.agents.stuck import STUCK_REPEATS
from ralph_tui.events import AgentStep, BaseEvent, PhaseFinished
from ralph_tui.loops.runner import RunRequest, execute_run
from ralph_tui.traces.store import TraceStore
from tests.llm.llm_wire import streamed
from tests.loops.test_claims_sdk import anthropic_call, openai_call
from tests.loops.test_sdk_run import DOCUMENT, QUOTES, settings_for

ANSWER = "- Two days of supply (draft {n}).\n- Filters every 48 hours.\n- Alarms after 10 minutes."
WRONG_EVIDENCE = "`evidence`: Input should be a valid list"
MISSING_LINKS = "`lineQuotes`: Field required"


def evidence_as_one_string(n: int) -> dict[str, Any]:
    """An answer whose ``evidence`` is one string and whose ``lineQuotes`` are missing;
    its wording changes with ``n``, as a sampling model's does."""
    return {"answer": ANSWER.format(n=n), "evidence": " ".join(QUOTES)}


def links_as_text(n: int) -> dict[str, Any]:
    """An answer wrong another way: ``lineQuotes`` as text."""
    return {"answer": ANSWER.format(n=n), "evidence": QUOTES, "lineQuotes": f"1, 2, {n}"}


Candidate = Callable[[int], dict[str, Any]]

WIRES = {
    "anthropic": ("anthropic.test", anthropic_call, {}),
    "openai": (
        "openai.test",
        openai_call,
        {
            "generate_model": "openai:gpt-4.1",
            "sub_model": "openai:gpt-4.1-mini",
            "validate_model": "anthropic:claude-sonnet-4-6",
        },
    ),
}


class StuckNetwork:
    """The worker's provider answers every turn with ``candidates`` in turn (as an RLM
    submission in ``rlm``, the output tool's fields in ``lcm``); the judge's with the
    ``judge`` verdicts in turn. Records each provider's request bodies."""

    def __init__(self, wire: str, inner: str, candidates: list[Candidate]) -> None:
        self.worker_host, self.call, _ = WIRES[wire]
        self.judge_host = (
            "openai.test" if self.worker_host == "anthropic.test" else "anthropic.test"
        )
        self.inner, self.candidates = inner, candidates
        self.judge: list[Candidate] = []
        self.requests: dict[str, list[dict[str, Any]]] = {self.worker_host: [], self.judge_host: []}

    def handle(self, request: httpx2.Request) -> httpx2.Response:
        host = request.url.host
        self.requests[host].append(json.loads(request.content))
        n = len(self.requests[host])
        if host == self.judge_host:
            judge_call = anthropic_call if host == "anthropic.test" else openai_call
            verdict = judge_call(self.judge[(n - 1) % len(self.judge)](n))
            return streamed(request, httpx2.Response(200, json=verdict))
        fields = self.candidates[(n - 1) % len(self.candidates)](n)
        arguments = {"action": {**fields, "resultReady": True}} if self.inner == "rlm" else fields
        return streamed(request, httpx2.Response(200, json=self.call(arguments)))

    def sizes(self, host: str) -> list[tuple[int, int]]:
        """Each request's message count and size in characters."""
        return [(len(body["messages"]), len(json.dumps(body))) for body in self.requests[host]]


async def run(
    tmp_path: Path, network: StuckNetwork, wire: str, **settings: Any
) -> tuple[Any, list[BaseEvent]]:
    document = tmp_path / "doc.txt"
    document.write_text(DOCUMENT)
    events: list[BaseEvent] = []
    values = {"inner": network.inner, **WIRES[wire][2], **settings}
    outcome = await execute_run(
        RunRequest(
            mode="qa", query="How is the plant run?", doc_path=document,
            settings=settings_for(tmp_path, **values),
        ),
        on_event=events.append,
        http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(network.handle)),
    )  # fmt: skip
    return outcome, events


@pytest.mark.parametrize("inner", ["rlm", "lcm"])
@pytest.mark.parametrize("wire", ["anthropic", "openai"])
async def test_a_worker_that_repeats_an_invalid_output_stops_and_says_what_it_got_wrong(
    wire: str, inner: str, tmp_path: Path
) -> None:
    network = StuckNetwork(wire, inner, [evidence_as_one_string])
    outcome, events = await run(tmp_path, network, wire, max_iters=2)

    assert outcome.status == "failed" and outcome.iterations == 2
    assert len(network.requests[network.worker_host]) == 2 * STUCK_REPEATS, (
        "each iteration's worker stopped after the documented number of repeats"
    )
    assert not network.requests[network.judge_host], "nothing valid to judge"
    stops = [e for e in events if isinstance(e, AgentStep) and e.action == "stuck"]
    assert [(s.agent, s.step) for s in stops] == [("worker", STUCK_REPEATS)] * 2
    failed = [e.error for e in events if isinstance(e, PhaseFinished) and e.phase == "worker"]
    for said in [stops[0].detail, *(error or "" for error in failed)]:
        assert f"same invalid output {STUCK_REPEATS} times in a row" in said
        assert WRONG_EVIDENCE in said and MISSING_LINKS in said

    first, second = TraceStore(tmp_path / "out").iterations(outcome.session_id)
    assert first.failure_tag == "worker_error"
    assert "AgentStuckError" in str(first.model_extra) and WRONG_EVIDENCE in str(first.model_extra)
    [advice] = [c for c in second.constraints if "was stopped" in c]
    assert WRONG_EVIDENCE in advice and MISSING_LINKS in advice
    second_iteration = json.dumps(network.requests[network.worker_host][STUCK_REPEATS])
    assert "was stopped" in second_iteration and "lineQuotes" in second_iteration

    warned = json.dumps(network.requests[network.worker_host][STUCK_REPEATS - 1])
    assert "once more and this attempt stops" in warned, "the model was warned before"


@pytest.mark.parametrize("inner", ["rlm", "lcm"])
@pytest.mark.parametrize("wire", ["anthropic", "openai"])
async def test_the_requests_of_invalid_steps_do_not_grow(
    wire: str, inner: str, tmp_path: Path
) -> None:
    steps = 8
    network = StuckNetwork(wire, inner, [evidence_as_one_string, links_as_text])
    outcome, events = await run(tmp_path, network, wire, max_iters=1, worker_max_steps=steps)

    assert outcome.status == "failed"
    assert not [e for e in events if isinstance(e, AgentStep) and e.action == "stuck"], (
        "two problems in turn are not the same problem repeated"
    )
    sizes = network.sizes(network.worker_host)
    assert len(sizes) == steps
    counts = {count for count, _ in sizes[1:]}
    assert len(counts) == 1, f"the same messages at every invalid step: {sizes}"
    chars = [size for _, size in sizes[1:]]
    assert max(chars) - min(chars) < 200, f"no step pays for the ones before it: {chars}"

    last = json.dumps(network.requests[network.worker_host][-1])
    assert f"draft {steps - 1}" in last and "draft 1)" not in last, "only the latest attempt"
    assert "Input should be a valid list" in last, "and what was wrong with it"
    store = tmp_path / "out" / "sessions" / outcome.session_id / "context-01-worker.jsonl"
    lines = store.read_text(encoding="utf-8").splitlines()
    assert sum('"role":"assistant"' in line for line in lines) == steps, "the store keeps all"


@pytest.mark.parametrize("wire", ["anthropic", "openai"])
async def test_a_judge_that_repeats_an_invalid_verdict_stops_with_requests_that_do_not_grow(
    wire: str, tmp_path: Path
) -> None:
    network = StuckNetwork(wire, "rlm", [])
    links = [[1], [2], [3]]
    answer = {"answer": ANSWER.format(n=1), "evidence": QUOTES, "lineQuotes": links}
    network.candidates = [lambda _n: answer]
    network.judge = [lambda n: {"lines": [{"line": 1, "verdict": f"fine {n}"}], "issues": []}]
    outcome, events = await run(tmp_path, network, wire, max_iters=1)

    assert outcome.status == "failed"
    assert len(network.requests[network.judge_host]) == STUCK_REPEATS, "stopped when stuck"
    [stop] = [e for e in events if isinstance(e, AgentStep) and e.action == "stuck"]
    assert stop.agent == "judge" and "lines.0.verdict" in stop.detail
    [trace] = TraceStore(tmp_path / "out").iterations(outcome.session_id)
    assert trace.failure_tag == "judge_error"
    sizes = network.sizes(network.judge_host)
    assert len({count for count, _ in sizes[1:]}) == 1, sizes


def test_the_documented_number_of_repeats_is_the_one_the_agents_use() -> None:
    page = Path(__file__).parents[2] / "docs" / "reference" / "inner-modes.md"
    assert f"**{STUCK_REPEATS} times in a row**" in page.read_text(encoding="utf-8")
