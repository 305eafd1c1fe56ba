"""Task mode's passages end to end: the DocReader's brief cites verbatim passages as [P1],
[P2]..., the reasoner's statements cite their markers, and each statement carries its
passages' locations in the document — through the offline baseline (both inner modes) and
through both SDKs' wire formats; a passage not in the document is ``missing`` and becomes a
constraint for the next DocReader; ``sessions show``, ``report`` and ``verify`` read them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx2
import pytest

from ralph_tui.cli import run_cli
from ralph_tui.events import BaseEvent, CandidateProduced, event_from_json
from ralph_tui.evidence import QuoteLocation
from ralph_tui.loops.runner import RunRequest, execute_run
from ralph_tui.traces.models import IterationTrace
from ralph_tui.traces.store import TraceStore
from tests.agents.conftest import tool_use
from tests.llm.llm_wire import anthropic_message, openai_completion, streamed
from tests.loops.test_sdk_run import DOCUMENT, settings_for

SAMPLE = Path(__file__).parents[2] / "ralph_tui" / "data" / "sample_document.md"
TASK = "Describe how the works responds when river turbidity exceeds 80 NTU."


def assert_at_their_passages(quotes: list[QuoteLocation], document: str) -> None:
    """Every passage found exactly, its span in the document holding it character for
    character."""
    assert quotes
    for quote in quotes:
        assert quote.found == "exact" and quote.start is not None and quote.end is not None
        assert document[quote.start : quote.end] == quote.text


@pytest.mark.parametrize("inner", ["rlm", "lcm"])
def test_an_offline_task_cites_real_passages_and_its_statements_carry_their_locations(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], inner: str
) -> None:
    out = tmp_path / "out"
    code = run_cli(
        [
            "run", "--provider", "offline", "--json", "--mode", "task", "--query", TASK,
            "--doc", str(SAMPLE), "--out", str(out), "--maxIters", "2", "--inner", inner,
        ]
    )  # fmt: skip
    result = json.loads(capsys.readouterr().out)
    assert code == 0 and result["status"] == "passed"
    document = SAMPLE.read_text(encoding="utf-8")
    quotes = [QuoteLocation.model_validate(quote) for quote in result["quotes"]]
    assert_at_their_passages(quotes, document)

    output = result["output"]["output"]
    cited = [claim for claim in result["claims"] if claim["quotes"]]
    assert cited, "the output's statements cite the passages they were written from"
    for claim in cited:
        assert f"[P{claim['quotes'][0]}]" in output
        for number in claim["quotes"]:
            passage = " ".join(quotes[number - 1].text.split())
            assert claim["text"].rstrip(".") in passage, "the statement is its passage's words"

    session_id = str(result["sessionId"])
    [trace] = TraceStore(out).iterations(session_id)
    assert [q.model_dump(mode="json") for q in trace.quotes] == result["quotes"]
    assert [c.model_dump() for c in trace.claims] == result["claims"]
    assert any(rule.name == "brief_passages" and rule.ok for rule in trace.hard_validation.rules)
    events = (out / "sessions" / session_id / "events.jsonl").read_text().splitlines()
    [produced] = [e for e in map(event_from_json, events) if isinstance(e, CandidateProduced)]
    assert produced.quotes == trace.quotes and produced.claims == trace.claims


def test_sessions_show_report_and_verify_read_a_task_sessions_passages(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    run_cli(
        [
            "run", "--provider", "offline", "--json", "--mode", "task", "--query", TASK,
            "--doc", str(SAMPLE), "--out", str(out), "--maxIters", "1",
        ]
    )  # fmt: skip
    result = json.loads(capsys.readouterr().out)
    session_id = str(result["sessionId"])
    claim = next(claim for claim in result["claims"] if claim["quotes"])
    passage = result["quotes"][claim["quotes"][0] - 1]

    assert run_cli(["sessions", "show", session_id, "--out", str(out)]) == 0
    shown = capsys.readouterr().out
    first_words = " ".join(passage["text"].split())[:60]
    assert f"  {claim['line']}. [not judged] {claim['text']}" in shown
    assert f"quote {claim['quotes'][0]}: {first_words}" in shown
    assert "(no such quote)" not in shown

    assert run_cli(["report", session_id, "--out", str(out), "--format", "md"]) == 0
    report = capsys.readouterr().out.replace("\\", "")  # Markdown's escapes
    assert "```text" not in report, "the statements are listed, not the raw output"
    assert f"**not judged:** {claim['text']} [{claim['quotes'][0]}]" in report
    start, end = passage["start"], passage["end"]
    assert f"**[{claim['quotes'][0]}]** {SAMPLE.name}, characters {start}–{end}" in report

    bundle = tmp_path / "bundle.json"
    assert run_cli(["report", session_id, "--out", str(out), "-o", str(bundle), "--json"]) == 0
    capsys.readouterr()
    assert run_cli(["verify", str(bundle), "--json"]) == 0
    checked = json.loads(capsys.readouterr().out)
    assert len(checked["quotes"]) == len(result["quotes"])
    assert {quote["status"] for quote in checked["quotes"]} == {"holds"}


GOOD = ["Filters are backwashed every 48 hours.", "Alarms escalate after 10 minutes."]
INVENTED = "Filters are backwashed daily."
OUTPUT = (
    "How the plant is kept running:\n"
    "- The filters are backwashed every 48 hours, so they stay clean [P1].\n"
    "- Alarms escalate after 10 minutes when nobody acknowledges them [P2]."
)
MEMORY = "Backwash every 48 hours; alarms escalate after 10 minutes."


def anthropic_tool(arguments: dict[str, Any]) -> dict[str, Any]:
    return anthropic_message([tool_use(arguments)], stop_reason="tool_use")


def task_judge_ok() -> dict[str, Any]:
    call = {
        "id": "call_ok",
        "type": "function",
        "function": {"name": "submit_output", "arguments": json.dumps({"ok": "yes", "issues": []})},
    }
    return openai_completion({"content": None, "tool_calls": [call]}, finish_reason="tool_calls")


class TaskNetwork:
    """Anthropic plays the DocReader and the reasoner, OpenAI the judge. Iteration 1's brief
    cites a passage the document does not hold; iteration 2's only passages it does."""

    def __init__(self) -> None:
        brief = "Backwashing is every 48 hours [P1]; alarms escalate after 10 minutes [P2]."
        self.scripts: dict[str, list[dict[str, Any]]] = {
            "anthropic.test": [
                anthropic_tool({"code": "print(context[:80])", "resultReady": False}),
                anthropic_tool(
                    {"brief": brief, "passages": [INVENTED, GOOD[1]], "resultReady": True}
                ),
                anthropic_tool({"output": OUTPUT, "memoryUpdate": MEMORY}),
                anthropic_tool({"code": "print(context[:80])", "resultReady": False}),
                anthropic_tool({"brief": brief, "passages": GOOD, "resultReady": True}),
                anthropic_tool({"output": OUTPUT, "memoryUpdate": MEMORY}),
            ],
            "openai.test": [task_judge_ok()],
        }
        self.requests: dict[str, list[dict[str, Any]]] = {host: [] for host in self.scripts}

    def handle(self, request: httpx2.Request) -> httpx2.Response:
        host = request.url.host
        self.requests[host].append(json.loads(request.content))
        return streamed(request, httpx2.Response(200, json=self.scripts[host].pop(0)))


async def test_through_the_sdks_statements_carry_passage_locations_and_a_missing_passage_is_fixed(
    tmp_path: Path,
) -> None:
    network = TaskNetwork()
    path = tmp_path / "plant.txt"
    path.write_text(DOCUMENT)
    settings = settings_for(tmp_path, max_iters=2)
    events: list[BaseEvent] = []
    outcome = await execute_run(
        RunRequest(mode="task", query="How is the plant kept running?", doc_path=path,
                   settings=settings),
        on_event=events.append,
        http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(network.handle)),
    )  # fmt: skip
    assert outcome.status == "passed" and outcome.iterations == 2
    assert not any(network.scripts.values()), "every scripted turn was asked for"

    first, second = TraceStore(settings.out_dir).iterations(outcome.session_id)
    assert [q.found for q in first.quotes] == ["missing", "exact"]
    [rule] = [r for r in first.hard_validation.rules if r.name == "brief_passages"]
    assert not rule.ok and f'[P1] is not in the document: "{INVENTED}"' in rule.message
    assert any("[P1] is not in the document" in c for c in second.constraints)
    reader_request = json.dumps(network.requests["anthropic.test"][3]["messages"][0])
    assert "[P1] is not in the document" in reader_request, "the DocReader is told, as a hint"
    reasoner_request = json.dumps(network.requests["anthropic.test"][2]["messages"][0])
    assert json.dumps(f"[P2] {GOOD[1]}")[1:-1] in reasoner_request

    assert_at_their_passages(second.quotes, DOCUMENT)
    assert outcome.quotes == second.quotes and outcome.claims == second.claims
    assert [(c.line, c.quotes) for c in outcome.claims] == [(1, []), (2, [1]), (3, [2])]
    assert outcome.claims[1].text == (
        "The filters are backwashed every 48 hours, so they stay clean."
    )
    located = {q.number: q for q in outcome.quotes}
    assert [located[c.quotes[0]].text for c in outcome.claims[1:]] == GOOD
    produced = [e for e in events if isinstance(e, CandidateProduced)]
    assert [p.claims for p in produced] == [first.claims, second.claims]
    assert produced[-1].quotes == second.quotes
    assert outcome.to_json()["claims"][2]["quotes"] == [2]


def test_a_task_trace_written_before_passages_still_loads() -> None:
    older = {
        "iteration": 1,
        "task": "Summarise",
        "output": {"output": "The plant runs.", "memoryUpdate": "Nothing yet."},
        "hardValidation": {"ok": True, "rules": []},
        "brief": "A brief of old.",
        "briefLen": 15,
    }
    trace = IterationTrace.model_validate(older)
    assert trace.quotes == [] and trace.claims == [] and trace.brief_len == 15
    assert trace.output["output"] == "The plant runs."
