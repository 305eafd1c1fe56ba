"""Claims through both SDKs' wire formats: the worker links each answer line to its quotes,
a line without one fails the hard check (and the judge is not asked), and the judge's
per-line verdicts reach the events, the iteration traces, the outcome and ``--json``.

Each direction is run: an Anthropic worker with an OpenAI judge, and an OpenAI worker with
an Anthropic judge.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx2

from ralph_tui.events import BaseEvent, CandidateProduced, HardValidation, JudgeVerdict
from ralph_tui.loops.runner import RunRequest, execute_run
from ralph_tui.traces.store import TraceStore
from tests.agents.conftest import tool_use
from tests.llm.llm_wire import anthropic_message, openai_completion
from tests.loops.test_sdk_run import DOCUMENT, QUOTES, settings_for

ANSWER = (
    "- The reservoir holds two days of supply.\n"
    "- Filters are backwashed every 48 hours.\n"
    "- Alarms escalate after 10 minutes to the plant director."
)
UNLINKED = [[1], [], [3]]
LINKED = [[1], [2], [3]]
MISSING = "who the alarms escalate to"
VERDICTS = [
    {"line": 1, "verdict": "supported"},
    {"line": 2, "verdict": "supported"},
    {"line": 3, "verdict": "partly_supported", "missing": MISSING},
]
QUERY = "How is the plant run?"


def candidate(links: list[list[int]]) -> dict[str, Any]:
    return {"answer": ANSWER, "evidence": QUOTES, "lineQuotes": links, "resultReady": True}


def anthropic_call(arguments: dict[str, Any]) -> dict[str, Any]:
    return anthropic_message([tool_use(arguments)], stop_reason="tool_use")


def openai_call(arguments: dict[str, Any]) -> dict[str, Any]:
    call = {
        "id": "call_1",
        "type": "function",
        "function": {"name": "submit_output", "arguments": json.dumps(arguments)},
    }
    return openai_completion({"content": None, "tool_calls": [call]}, finish_reason="tool_calls")


class Network:
    """The worker's provider answers with ``worker`` replies, the judge's with ``judge``."""

    def __init__(self, worker_host: str, worker: list[dict[str, Any]], judge: list[dict[str, Any]]):
        judge_host = "openai.test" if worker_host == "anthropic.test" else "anthropic.test"
        self.scripts = {worker_host: worker, judge_host: judge}
        self.worker_host, self.judge_host = worker_host, judge_host
        self.requests: dict[str, list[dict[str, Any]]] = {worker_host: [], judge_host: []}

    def handle(self, request: httpx2.Request) -> httpx2.Response:
        host = request.url.host
        self.requests[host].append(json.loads(request.content))
        return httpx2.Response(200, json=self.scripts[host].pop(0))


async def run(tmp_path: Path, network: Network, **settings: Any) -> tuple[Any, list[BaseEvent]]:
    document = tmp_path / "doc.txt"
    document.write_text(DOCUMENT)
    events: list[BaseEvent] = []
    outcome = await execute_run(
        RunRequest(
            mode="qa",
            query=QUERY,
            doc_path=document,
            settings=settings_for(tmp_path, **{"max_iters": 2, **settings}),
        ),
        on_event=events.append,
        http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(network.handle)),
    )
    assert not any(network.scripts.values()), "every scripted reply was used"
    return outcome, events


def judge_fields(network: Network) -> dict[str, Any]:
    """The fields the judge was sent (the JSON block of its user message)."""
    [body] = network.requests[network.judge_host]
    text = json.dumps(body["messages"])
    start = text.index("```json\\n") + len("```json\\n")
    end = text.index("\\n```", start)
    return json.loads(json.loads(f'"{text[start:end]}"'))


def check_claims_run(
    tmp_path: Path, network: Network, outcome: Any, events: list[BaseEvent]
) -> None:
    assert outcome.status == "failed" and outcome.iterations == 2

    hard = [e for e in events if isinstance(e, HardValidation)]
    [first_rule] = [r for r in hard[0].rules if r.name == "line_quotes"]
    assert not first_rule.ok and first_rule.message == "line 2 names no quote"
    assert hard[1].ok

    second_request = json.dumps(network.requests[network.worker_host][1])
    assert "Name the quotes behind every answer line" in second_request
    assert "line 2 names no quote" in second_request

    fields = judge_fields(network)
    assert fields["query"] == QUERY
    assert [line["text"] for line in fields["lines"]] == [
        line.removeprefix("- ") for line in ANSWER.splitlines()
    ]
    [quote] = fields["lines"][1]["quotes"]
    assert quote["number"] == 2 and quote["quote"] == QUOTES[1]
    assert QUOTES[1] in quote["window"] and len(quote["window"]) > len(QUOTES[1])

    produced = [e for e in events if isinstance(e, CandidateProduced)]
    assert [c.quotes for c in produced[0].claims] == UNLINKED
    assert [c.quotes for c in produced[1].claims] == LINKED
    assert all(c.verdict is None for e in produced for c in e.claims)

    [verdict] = [e for e in events if isinstance(e, JudgeVerdict)]
    assert not verdict.ok
    assert [c.verdict for c in verdict.claims] == ["supported", "supported", "partly_supported"]
    assert verdict.claims[2].missing == MISSING
    assert [i.message for i in verdict.issues] == [
        f"Line 3 is partly supported (the quotes do not show: {MISSING}): "
        "Alarms escalate after 10 minutes to the plant director."
    ]

    store = TraceStore(tmp_path / "out")
    first, second = store.iterations(outcome.session_id)
    assert [c.quotes for c in first.claims] == UNLINKED and first.judge is None
    assert second.claims == verdict.claims
    saved = json.loads((tmp_path / "out" / "iter-02.json").read_text())
    assert saved["claims"][2]["verdict"] == "partly_supported"

    assert outcome.claims == verdict.claims, "the reported iteration's claims"
    printed = outcome.to_json()["claims"]
    assert [c["verdict"] for c in printed] == ["supported", "supported", "partly_supported"]
    assert printed[2] == {
        "line": 3,
        "text": "Alarms escalate after 10 minutes to the plant director.",
        "quotes": [3],
        "verdict": "partly_supported",
        "missing": MISSING,
    }


async def test_claims_from_an_anthropic_worker_judged_by_an_openai_judge(tmp_path: Path) -> None:
    network = Network(
        "anthropic.test",
        worker=[anthropic_call(candidate(UNLINKED)), anthropic_call(candidate(LINKED))],
        judge=[openai_call({"lines": VERDICTS, "issues": []})],
    )
    outcome, events = await run(tmp_path, network)
    check_claims_run(tmp_path, network, outcome, events)


async def test_claims_from_an_openai_worker_judged_by_an_anthropic_judge(tmp_path: Path) -> None:
    network = Network(
        "openai.test",
        worker=[
            openai_call({"action": candidate(UNLINKED)}),
            openai_call({"action": candidate(LINKED)}),
        ],
        judge=[anthropic_call({"lines": VERDICTS, "issues": []})],
    )
    outcome, events = await run(
        tmp_path,
        network,
        generate_model="openai:gpt-4.1",
        sub_model="openai:gpt-4.1-mini",
        validate_model="anthropic:claude-sonnet-4-6",
    )
    check_claims_run(tmp_path, network, outcome, events)


async def test_a_judge_that_leaves_a_line_out_does_not_pass_it(tmp_path: Path) -> None:
    network = Network(
        "anthropic.test",
        worker=[anthropic_call(candidate(LINKED))],
        judge=[openai_call({"lines": VERDICTS[:2], "issues": []})],
    )
    outcome, events = await run(tmp_path, network, max_iters=1)
    [verdict] = [e for e in events if isinstance(e, JudgeVerdict)]
    assert not verdict.ok and outcome.status == "failed"
    assert [c.verdict for c in verdict.claims] == ["supported", "supported", None]
    assert verdict.issues[0].message.startswith("Line 3 got no verdict")
