"""The RLM agent over the real Anthropic SDK and the real sandbox."""

from __future__ import annotations

import json
from itertools import pairwise
from pathlib import Path
from typing import Any

import httpx2
import pytest
from pydantic import BaseModel

from ralph_tui.agents.rlm import (
    AgentVariable,
    RLMSpec,
    SandboxFailedError,
    rlm_agent_forward,
)
from ralph_tui.agents.structured import AgentStuckError, MaxStepsError
from ralph_tui.agents.stuck import STUCK_REPEATS
from ralph_tui.config import Settings
from ralph_tui.documents import read_corpus
from ralph_tui.events import (
    AgentStep,
    ContextCompacted,
    ContextSize,
    OperatorCalled,
    SandboxExecuted,
    SubQuery,
)
from ralph_tui.llm.anthropic_client import AnthropicClient
from ralph_tui.llm.errors import ContextTooLongError
from ralph_tui.llm.offline import OfflineClient
from ralph_tui.loops.context import DOCUMENTS_VARIABLE
from ralph_tui.roles.worker import worker_spec
from tests.agents.conftest import Recorder, reply_tool
from tests.documents.fixtures import write_pdf
from tests.llm.llm_wire import FakeAPI, anthropic_error, anthropic_message, system_text


class Answer(BaseModel):
    answer: str


DOC = {"context": AgentVariable("alpha beta gamma " * 100, "The document.")}


def spec(**budgets: Any) -> RLMSpec[Answer]:
    return RLMSpec(name="worker", definition="Answer.", output_model=Answer, **budgets)


def code(source: str) -> dict[str, Any]:
    return {"code": source, "resultReady": False}


def observation(api: FakeAPI, request: int) -> str:
    """The text of the last tool result sent in request number ``request``."""
    block = api.bodies[request]["messages"][-1]["content"][-1]
    assert block["type"] == "tool_result"
    content = block["content"]
    return content if isinstance(content, str) else json.dumps(content)


async def run(
    claude: AnthropicClient, events: Recorder, budgets: dict[str, Any] | None = None
) -> Any:
    return await rlm_agent_forward(
        claude,
        spec(**(budgets or {})),
        {"query": "q"},
        DOC,
        sub_client=OfflineClient(role="sub"),
        emit=events,
    )


async def test_state_persists_across_steps_and_every_cell_is_an_event(
    api: FakeAPI, claude: AnthropicClient, events: Recorder
) -> None:
    reply_tool(api, code("n = len(context)"))
    reply_tool(api, code("n + 1"))
    reply_tool(api, {"answer": "done", "resultReady": True})
    result = await run(claude, events)
    assert result.output == Answer(answer="done") and not result.fallback and result.steps == 3
    assert "1701" in observation(api, 2)
    system = system_text(api.bodies[0])
    assert "`context`: str, 1,700 characters" in system and "alpha beta" not in system
    cells = events.of(SandboxExecuted)
    assert [c.code for c in cells] == ["n = len(context)", "n + 1"]
    assert cells[1].output.strip() == "1701"
    assert [e.action for e in events.of(AgentStep)] == ["code", "code", "output"]


async def test_llm_call_budget_warns_at_80_percent_then_refuses(
    api: FakeAPI, claude: AnthropicClient, events: Recorder
) -> None:
    reply_tool(api, code('r = llm_query_batched([["gamma?", "alpha beta gamma"]] * 4)'))
    reply_tool(api, code('print(llm_query_batched(["one", "two"]))'))
    reply_tool(api, {"answer": "ok", "resultReady": True})
    await run(claude, events, {"max_llm_calls": 5})
    assert "4 of 5 llm_query calls used" in observation(api, 1)
    assert "budget (5 calls) is exhausted" in observation(api, 2)
    subs = events.of(SubQuery)
    assert len(subs) == 6 and subs[3].calls_used == 4
    assert [s.error is None for s in subs[4:]] == [True, False]


async def test_step_budget_exhaustion_falls_back_and_flags_it(
    api: FakeAPI, claude: AnthropicClient, events: Recorder
) -> None:
    reply_tool(api, code("print('clue: the answer is 7')"))
    reply_tool(api, code("x = 1"))
    reply_tool(api, {"answer": "7"})
    result = await run(claude, events, {"max_steps": 2})
    assert result.fallback and result.output == Answer(answer="7")
    fallback_request = api.bodies[2]
    assert "clue: the answer is 7" in fallback_request["messages"][0]["content"][0]["text"]
    assert [t["name"] for t in fallback_request["tools"]] == ["submit_output"]
    assert "code" not in fallback_request["tools"][0]["input_schema"]["properties"]
    assert events.of(AgentStep)[-1].action == "fallback"


async def test_invalid_final_output_goes_back_to_the_model(
    api: FakeAPI, claude: AnthropicClient, events: Recorder
) -> None:
    reply_tool(api, {"resultReady": True})
    reply_tool(api, {"answer": "fixed", "resultReady": True})
    result = await run(claude, events)
    assert result.output.answer == "fixed"
    assert "`answer`: Field required" in observation(api, 1)


async def test_a_sandbox_that_keeps_crashing_ends_the_agent(
    api: FakeAPI, claude: AnthropicClient, events: Recorder
) -> None:
    for _ in range(3):
        reply_tool(api, code("import os; os._exit(3)"))
    with pytest.raises(SandboxFailedError, match="3 cells in a row"):
        await run(claude, events)
    assert all(c.restarted for c in events.of(SandboxExecuted))


async def test_oversized_sub_prompt_is_refused_with_both_sizes(
    api: FakeAPI, claude: AnthropicClient, events: Recorder
) -> None:
    reply_tool(api, code("print(llm_query('summarize', 'word ' * 200_000))"))
    reply_tool(api, {"answer": "ok", "resultReady": True})
    await run(claude, events)
    text = observation(api, 1)
    assert "Sub-prompt refused" in text and "1,000,015 characters" in text
    assert "200,000 tokens" in text


async def test_the_prompt_only_grows_at_its_end_between_compactions(
    api: FakeAPI, claude: AnthropicClient, events: Recorder
) -> None:
    for n in range(4):  # each cell its own code (the same code thrice is a stuck agent)
        reply_tool(api, code(f"print('y' * 3000)  # cell {n}"))
    reply_tool(api, {"answer": "ok", "resultReady": True})
    await run(claude, events)
    prompts = [body["messages"] for body in api.bodies]
    for earlier, later in pairwise(prompts):
        assert later[: len(earlier) - 1] == earlier[:-1], "a stable prefix, for prompt caches"
    assert json.dumps(prompts[-1]).count("y" * 3000) == 4, "observations kept whole"
    assert not events.of(ContextCompacted)


class SummarisingAPI(FakeAPI):
    """Answers the agent's steps from the queue, and every call without tools (a
    compaction summary) with a short summary."""

    def handle(self, request: httpx2.Request) -> httpx2.Response:
        if "tools" not in json.loads(request.content):
            self.requests.append(request)
            summary = anthropic_message([{"type": "text", "text": "Printed y's; no finding."}])
            return httpx2.Response(200, json=summary)
        return super().handle(request)


async def test_a_context_past_its_budget_is_compacted_and_stays_bounded(
    events: Recorder,
) -> None:
    api = SummarisingAPI()
    client = AnthropicClient(
        "claude-sonnet-4-6", api_key="sk-ant-test", base_url="https://anthropic.test",
        http_client=api.http_client(), context_window=12_000,
    )  # fmt: skip
    for n in range(10):  # each cell its own code (the same code thrice is a stuck agent)
        reply_tool(api, code(f"print('y' * 3000)  # cell {n}"))
    reply_tool(api, {"answer": "ok", "resultReady": True})
    await run(client, events, {"max_steps": 12})
    compactions = events.of(ContextCompacted)
    assert compactions and all(c.status == "compacted" for c in compactions)
    last_dag = {node.id for node in compactions[-1].dag}
    assert compactions[-1].top and set(compactions[-1].top) <= last_dag
    sizes = events.of(ContextSize)
    assert len(sizes) == 11 and all(size.tokens <= size.hard for size in sizes)
    assert all(c.after_tokens < c.before_tokens for c in compactions)
    steps = [body for body in api.bodies if "tools" in body]
    last = json.dumps(steps[-1]["messages"])
    assert "expand('S0001')" in last and "Printed y's; no finding." in last
    assert last.count("y" * 3000) < 10
    assert len(steps) == 11 and len(api.bodies) > 11, "summaries were separate calls"


async def test_offline_worker_explores_a_real_document_in_the_sandbox(events: Recorder) -> None:
    sample = Path(__file__).parents[2] / "ralph_tui" / "data" / "sample_document.md"
    document = sample.read_text(encoding="utf-8")
    result = await rlm_agent_forward(
        OfflineClient(),
        worker_spec(Settings(_env_file=None)),  # type: ignore[call-arg]
        {"query": "What is the chlorine residual target at the works outlet?"},
        {"context": AgentVariable(document, "The handbook.")},
        sub_client=OfflineClient(),
        emit=events,
    )
    assert not result.fallback and result.isolation in {"bwrap", "unshare-net", "rlimits-only"}
    assert all(quote in document for quote in result.output.evidence)
    [cell] = events.of(SandboxExecuted)
    assert "context" in cell.code and "chlorine" in cell.output.lower()


async def test_turns_lost_to_bad_calls_end_without_a_salvage(
    api: FakeAPI, claude: AnthropicClient, events: Recorder
) -> None:
    """Nothing ran, so there is nothing to salvage from: the app's own error messages
    ("The arguments are not valid JSON ...") must never become an answer."""
    reply_tool(api, {"action": {"resultReady": True}})
    reply_tool(api, {"action": {"answer": 3, "resultReady": True}})
    with pytest.raises(MaxStepsError) as ran_out:
        await run(claude, events, {"max_steps": 2})
    assert len(api.requests) == 2, "no salvage call"
    error = ran_out.value
    assert (error.invalid, error.no_call, error.explored) == (2, 0, 0)
    assert "2 invalid calls" in str(error) and "`answer`: Input should be a valid string" in str(
        error
    )
    assert "Explore less" not in error.advice() and "matches its schema" in error.advice()


async def test_a_salvage_reads_only_what_the_sandbox_printed(
    api: FakeAPI, claude: AnthropicClient, events: Recorder
) -> None:
    reply_tool(api, code("print('printed: gamma ' + str(len(context)))"))
    reply_tool(api, {"action": {"answer": ["not", "a", "string"], "resultReady": True}})
    reply_tool(api, {"answer": "gamma"})
    result = await run(claude, events, {"max_steps": 2})
    assert result.fallback
    salvage_prompt = json.dumps(api.bodies[2]["messages"])
    assert "printed: gamma 1700" in salvage_prompt
    assert "output schema" not in salvage_prompt and "valid string" not in salvage_prompt


async def test_the_sandbox_slices_the_documents_table_by_file_and_page(
    api: FakeAPI, claude: AnthropicClient, events: Recorder, tmp_path: Path
) -> None:
    write_pdf(tmp_path / "manual.pdf", [["Page one text."], ["Page two says hello."]])
    (tmp_path / "notes.md").write_text("Notes text.")
    corpus = read_corpus([tmp_path / "manual.pdf", tmp_path / "notes.md"])
    variables = {
        "context": AgentVariable(corpus.text, "The documents."),
        "documents": AgentVariable(corpus.table, DOCUMENTS_VARIABLE),
    }
    reply_tool(api, code("p = documents[0]['pages'][1]\nprint(context[p['start']:p['end']])"))
    reply_tool(api, code("d = documents[1]\nprint(d['name'], context[d['start']:d['end']])"))
    reply_tool(api, {"answer": "done", "resultReady": True})
    await rlm_agent_forward(
        claude, spec(), {"query": "q"}, variables, sub_client=OfflineClient(role="sub"), emit=events
    )
    assert observation(api, 1).startswith("Page two says hello.")
    assert observation(api, 2).startswith("notes.md Notes text.")
    system = system_text(api.bodies[0])
    assert "- `documents`: list, 2 entries." in system and "`pages`" in system


async def test_sandbox_code_can_grep_the_document_and_the_conversation(
    api: FakeAPI, claude: AnthropicClient, events: Recorder
) -> None:
    reply_tool(api, code("print(grep('gamma', limit=2))"))
    reply_tool(api, code("print(grep('gamma', scope='messages', limit=1)['hits'][0]['id'])"))
    reply_tool(api, code("print(expand('S0001'))"))
    reply_tool(api, {"answer": "ok", "resultReady": True})
    await run(claude, events)
    first = observation(api, 1)
    assert "'span': [11, 16]" in first and "'next_offset': 2" in first
    assert observation(api, 2).startswith("M1")
    assert "no summary 'S0001'" in observation(api, 3)
    assert [e.operator for e in events.of(OperatorCalled)] == ["grep", "grep", "expand"]
    system = system_text(api.bodies[0])
    assert "expand(summary_id" in json.dumps(system) and "grep(pattern" in json.dumps(system)


async def test_sandbox_code_maps_the_sub_model_over_items(
    api: FakeAPI, claude: AnthropicClient, events: Recorder
) -> None:
    reply_tool(
        api,
        code(
            "r = llm_map(['alpha', 'beta'], 'Say one word about it.')\n"
            "print(len(r), type(r[0]).__name__)"
        ),
    )
    reply_tool(api, {"answer": "ok", "resultReady": True})
    await run(claude, events)
    assert observation(api, 1).startswith("2 str")
    assert len(events.of(SubQuery)) == 2
    assert "llm_map(items, instruction" in system_text(api.bodies[0])


async def test_a_prompt_refused_as_too_long_is_compacted_to_a_smaller_budget_and_sent_again(
    events: Recorder,
) -> None:
    api = SummarisingAPI()
    client = AnthropicClient(
        "claude-sonnet-4-6", api_key="sk-ant-test", base_url="https://anthropic.test",
        http_client=api.http_client(),
    )  # fmt: skip
    for n in range(3):  # each cell its own code (the same code thrice is a stuck agent)
        reply_tool(api, code(f"print('y' * 3000)  # cell {n}"))
    api.reply(400, anthropic_error("invalid_request_error", "prompt is too long: 9000 > 8192"))
    reply_tool(api, {"answer": "ok", "resultReady": True})
    result = await run(client, events)
    assert result.output == Answer(answer="ok")
    steps = [json.dumps(body["messages"]) for body in api.bodies if "tools" in body]
    refused, retried = steps[3], steps[4]
    assert len(retried) < len(refused) and "expand('S0001')" in retried
    assert events.of(ContextCompacted)


async def test_the_same_code_with_the_same_output_three_times_stops_the_agent(
    api: FakeAPI, claude: AnthropicClient, events: Recorder
) -> None:
    reply_tool(api, code("print(len(context))"))
    reply_tool(api, code("x = 1"))  # new code, the same (empty) output: not the same turn
    for _ in range(STUCK_REPEATS):
        reply_tool(api, code("print(len(context))"))
    with pytest.raises(AgentStuckError) as stuck:
        await run(claude, events)
    assert len(api.requests) == 2 + STUCK_REPEATS, "no request after the stop, no salvage"
    said = f"the same code with the same output {STUCK_REPEATS} times in a row"
    assert said in str(stuck.value) and "step 5 of 80" in str(stuck.value)
    assert "ran the same code" in stuck.value.advice()
    [stop] = [e for e in events.of(AgentStep) if e.action == "stuck"]
    assert stop.step == 2 + STUCK_REPEATS and said in stop.detail
    assert "once more and this attempt stops" in observation(api, 1 + STUCK_REPEATS)


async def test_code_that_prints_something_new_each_time_is_not_stuck(
    api: FakeAPI, claude: AnthropicClient, events: Recorder
) -> None:
    reply_tool(api, code("n = 0"))
    for _ in range(STUCK_REPEATS + 1):  # the same code, a new output each time
        reply_tool(api, code("n += 1\nprint(n)"))
    reply_tool(api, {"answer": "ok", "resultReady": True})
    result = await run(claude, events)
    assert result.output.answer == "ok"
    assert not [e for e in events.of(AgentStep) if e.action == "stuck"]


async def test_a_prompt_refused_as_too_long_is_not_sent_again_when_compaction_frees_nothing(
    api: FakeAPI, claude: AnthropicClient, events: Recorder
) -> None:
    """The first turn holds nothing to summarise: sending it again would be refused again
    (a local server counted its tokens far above the estimate and was sent the same prompt
    nine times)."""
    for _ in range(5):
        api.reply(400, anthropic_error("invalid_request_error", "prompt is too long: 22090 > 8192"))
    with pytest.raises(ContextTooLongError, match="prompt is too long"):
        await run(claude, events)
    assert len(api.requests) == 1
