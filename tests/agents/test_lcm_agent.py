"""The LCM agent (operators as native tools, no sandbox) over the real SDKs, and the offline
baseline playing it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from ralph_tui.agents.agent_run import AgentVariable, RLMSpec
from ralph_tui.agents.lcm_agent import RESUMED_NOTE, lcm_agent_forward
from ralph_tui.agents.structured import AgentStuckError, MaxStepsError
from ralph_tui.agents.stuck import STUCK_REPEATS
from ralph_tui.events import AgentStep, OperatorCalled, ToolExecuted
from ralph_tui.lcm.store import MessageStore
from ralph_tui.llm.anthropic_client import AnthropicClient
from ralph_tui.llm.offline import OfflineClient
from ralph_tui.llm.openai_client import OpenAIClient
from ralph_tui.llm.prompt_io import render_input
from ralph_tui.llm.types import ChatMessage, ToolCall
from ralph_tui.roles.worker import QAOutput, worker_spec
from tests.agents.conftest import Recorder, tool_use
from tests.llm.llm_wire import FakeAPI, anthropic_message, make_settings, openai_completion

SAMPLE = Path(__file__).parents[2] / "ralph_tui" / "data" / "sample_document.md"
FILLER = "Plain filler prose about nothing in particular fills this line.\n"
DOC = (
    "# Manual\n\n"
    + FILLER * 40
    + "## Secrets\n\nThe vault code is 4417 and only the warden knows it.\n\n"
    + FILLER * 40
)


class Answer(BaseModel):
    answer: str


def spec(**budgets: Any) -> RLMSpec[Answer]:
    return RLMSpec(name="worker", definition="Answer.", output_model=Answer, **budgets)


def turn(api: FakeAPI, *calls: tuple[str, dict[str, Any]]) -> None:
    """One assistant turn calling ``calls`` (name, arguments) in order."""
    blocks = [
        tool_use(args, name) | {"id": f"toolu_{n}_{name}"} for n, (name, args) in enumerate(calls)
    ]
    api.reply(200, anthropic_message(blocks, stop_reason="tool_use"))


def results(api: FakeAPI, request: int) -> list[str]:
    """The tool results sent in request number ``request``, in order."""
    blocks = api.bodies[request]["messages"][-1]["content"]
    return [
        b["content"] if isinstance(b["content"], str) else json.dumps(b["content"])
        for b in blocks
        if b["type"] == "tool_result"
    ]


async def run(client: Any, events: Recorder, *, store: Path | None = None, **kwargs: Any) -> Any:
    return await lcm_agent_forward(
        client,
        kwargs.pop("agent_spec", spec()),
        {"query": "What is the vault code?"},
        {"context": AgentVariable(DOC, "The document.")},
        sub_client=OfflineClient(role="sub"),
        emit=events,
        store_path=store,
        **kwargs,
    )


async def test_the_model_greps_reads_and_submits_through_native_tools(
    api: FakeAPI, claude: AnthropicClient, events: Recorder, tmp_path: Path
) -> None:
    start = DOC.index("The vault")
    turn(api, ("grep", {"pattern": r"vault code"}), ("read", {"start": start, "end": start + 30}))
    turn(api, ("submit_output", {"answer": "4417"}))
    store = tmp_path / "context-01-worker.jsonl"
    result = await run(claude, events, store=store)
    assert result.output == Answer(answer="4417") and not result.fallback and result.steps == 2
    assert result.isolation.startswith("none")
    first = api.bodies[0]
    assert [t["name"] for t in first["tools"]] == [
        "submit_output", "read", "grep", "llm_map", "expand"
    ]  # fmt: skip
    system = "\n".join(b["text"] for b in first["system"])
    assert f"`context`: {len(DOC):,} characters" in system
    assert "## Secrets" in system and "4417" not in system  # described, never pasted
    grep, read = results(api, 1)
    assert json.loads(grep)["hits"][0]["span"] == [start + 4, start + 14]
    assert (
        read
        == f"[context {start}-{start + 30} of {len(DOC):,} characters]\n{DOC[start : start + 30]}"
    )
    tools = events.of(ToolExecuted)
    assert [(t.tool, t.ok, t.step) for t in tools] == [("grep", True, 1), ("read", True, 1)]
    assert [e.operator for e in events.of(OperatorCalled)] == ["grep", "read"]
    assert [e.action for e in events.of(AgentStep)] == ["tools", "output"]
    stored = MessageStore.load(store)
    assert [m.role for m in stored.messages] == ["user", "assistant", "tool", "tool", "assistant"]


async def test_bad_calls_are_answered_with_what_is_wrong_and_the_model_goes_on(
    api: FakeAPI, claude: AnthropicClient, events: Recorder
) -> None:
    turn(api, ("grep", {"pattern": "("}), ("read", {"start": 5, "end": 5}), ("fetch", {"url": "x"}))
    turn(api, ("read", {"start": 0, "end": 9, "size": 3}))
    turn(api, ("submit_output", {"reply": "no"}))
    turn(api, ("submit_output", {"answer": "ok"}))
    result = await run(claude, events)
    assert result.output.answer == "ok"
    grep, read, unknown = results(api, 1)
    assert "not a regular expression" in grep and "empty span" in read
    assert "Unknown tool `fetch`" in unknown and "grep" in unknown
    assert "unexpected keyword argument 'size'" in results(api, 2)[0]
    assert "`answer`: Field required" in results(api, 3)[0]
    assert [t.ok for t in events.of(ToolExecuted)] == [False, False, False, False]


async def test_a_long_read_is_cut_saying_where_to_go_on(
    api: FakeAPI, claude: AnthropicClient, events: Recorder
) -> None:
    turn(api, ("read", {"start": 0, "end": 3000}))
    turn(api, ("submit_output", {"answer": "ok"}))
    await run(claude, events, agent_spec=spec(max_output_chars=1000))
    (read,) = results(api, 1)
    assert read.startswith("[context 0-1000 of") and read.endswith("read(1000, 3000) for the rest]")


async def test_retrieve_is_a_tool_when_the_run_gives_it(
    api: FakeAPI, claude: AnthropicClient, events: Recorder
) -> None:
    asked: list[tuple[str, int]] = []

    async def retrieve(query: str, k: int = 5, sources: Any = None) -> list[dict[str, Any]]:
        asked.append((query, k))
        return [{"text": "The vault code is 4417", "span": [1, 2], "source": "doc"}]

    doc = "`retrieve(query, k=5, sources=None) -> list[dict]`: search."
    turn(api, ("retrieve", {"query": "vault", "k": 2}))
    turn(api, ("submit_output", {"answer": "4417"}))
    await run(claude, events, functions={"retrieve": retrieve}, function_docs=[doc])
    tool = next(t for t in api.bodies[0]["tools"] if t["name"] == "retrieve")
    assert tool["description"] == doc and tool["input_schema"]["required"] == ["query"]
    assert asked == [("vault", 2)] and "4417" in results(api, 1)[0]


async def test_llm_map_takes_spans_of_the_document(
    api: FakeAPI, claude: AnthropicClient, events: Recorder
) -> None:
    start = DOC.index("The vault")
    items = [[start, start + 40], "The vault code of the other vault is on a card."]
    turn(api, ("llm_map", {"items": items, "instruction": "What is the vault code?"}))
    turn(api, ("submit_output", {"answer": "ok"}))
    await run(claude, events)
    first, second = json.loads(results(api, 1)[0])
    assert "4417" in first and "on a card" in second  # the sub-model read each item
    assert events.of(OperatorCalled)[0].calls == 2


@pytest.mark.parametrize(
    ("base_url", "choice"),
    [("https://api.openai.com/v1", "required"), ("http://127.0.0.1:8011/v1", "auto")],
)
async def test_works_over_the_openai_sdk_with_several_tools(
    events: Recorder, base_url: str, choice: str
) -> None:
    """OpenAI's API is asked for a tool call; a local server, whose llama.cpp rejects
    ``required`` with several tools, is asked with ``auto`` (a turn without a call is nudged)."""
    api = FakeAPI()
    grep = {"name": "grep", "arguments": '{"pattern": "4417"}'}
    api.reply(
        200,
        openai_completion(
            {
                "content": None,
                "tool_calls": [{"id": "call_1", "type": "function", "function": grep}],
            },
            finish_reason="tool_calls",
        ),
    )
    api.reply(200, openai_completion({"content": "The code is 4417."}))
    done = {"name": "submit_output", "arguments": '{"answer": "4417"}'}
    api.reply(
        200,
        openai_completion(
            {
                "content": None,
                "tool_calls": [{"id": "call_2", "type": "function", "function": done}],
            },
            finish_reason="tool_calls",
        ),
    )
    client = OpenAIClient(
        "gpt-4o-mini", api_key="sk-test", base_url=base_url, http_client=api.http_client()
    )
    result = await run(client, events)
    assert result.output.answer == "4417"
    first, second, third = api.bodies
    assert first["tool_choice"] == choice and len(first["tools"]) == 5
    reply = second["messages"][-1]
    assert (
        reply["role"] == "tool" and reply["tool_call_id"] == "call_1" and "4417" in reply["content"]
    )
    assert (
        third["messages"][-1]["role"] == "user"
        and "did not call" in third["messages"][-1]["content"]
    )
    assert [e.action for e in events.of(AgentStep)] == ["tools", "nudge", "output"]


async def test_an_interrupted_conversation_goes_on_from_its_store(
    api: FakeAPI, claude: AnthropicClient, events: Recorder, tmp_path: Path
) -> None:
    path = tmp_path / "context-01-worker.jsonl"
    store = MessageStore(path)
    store.append(
        ChatMessage(role="user", content=render_input({"query": "What is the vault code?"}))
    )
    call = ToolCall(id="toolu_old", name="grep", arguments='{"pattern": "vault"}')
    store.append(ChatMessage(role="assistant", tool_calls=[call]))
    turn(api, ("submit_output", {"answer": "4417"}))
    result = await run(claude, events, store=path)
    assert result.output.answer == "4417"
    messages = api.bodies[0]["messages"]
    assert messages[1]["content"][0]["id"] == "toolu_old"
    assert messages[2]["content"][0]["content"] == RESUMED_NOTE
    assert [m.role for m in MessageStore.load(path).messages] == [
        "user", "assistant", "tool", "assistant"
    ]  # fmt: skip


async def test_a_store_of_other_inputs_is_put_aside_not_continued(
    api: FakeAPI, claude: AnthropicClient, events: Recorder, tmp_path: Path
) -> None:
    path = tmp_path / "context-01-worker.jsonl"
    MessageStore(path).append(ChatMessage(role="user", content="another question"))
    turn(api, ("submit_output", {"answer": "4417"}))
    await run(claude, events, store=path)
    assert len(api.bodies[0]["messages"]) == 1
    assert (tmp_path / "context-01-worker.interrupted-1.jsonl").is_file()


async def test_step_exhaustion_salvages_from_what_the_tools_returned(
    api: FakeAPI, claude: AnthropicClient, events: Recorder
) -> None:
    start = DOC.index("The vault")
    turn(api, ("read", {"start": start, "end": start + 30}))
    api.reply(200, anthropic_message([tool_use({"answer": "4417"})], stop_reason="tool_use"))
    result = await run(claude, events, agent_spec=spec(max_steps=1))
    assert result.fallback and result.output.answer == "4417"
    salvage = api.bodies[1]["messages"][0]["content"][0]["text"]
    assert "The vault code is 4417" in salvage and "read(" in salvage


async def test_no_result_to_salvage_from_is_max_steps(
    api: FakeAPI, claude: AnthropicClient, events: Recorder
) -> None:
    api.reply(200, anthropic_message([{"type": "text", "text": "hmm"}]))
    with pytest.raises(MaxStepsError, match="1 without a tool call"):
        await run(claude, events, agent_spec=spec(max_steps=1))


@pytest.mark.parametrize(
    ("query", "found"),
    [
        ("How often are the filters backwashed, and what triggers an early backwash?", True),
        ("What is the salary of the chief executive's chauffeur?", False),
    ],
)
async def test_the_offline_baseline_plays_the_lcm_worker_from_what_its_tools_return(
    events: Recorder, query: str, found: bool
) -> None:
    text = SAMPLE.read_text(encoding="utf-8")
    result = await lcm_agent_forward(
        OfflineClient(),
        worker_spec(make_settings()),
        {"query": query, "constraints": []},
        {"context": AgentVariable(text, "The document.")},
        sub_client=OfflineClient(role="sub"),
        emit=events,
    )
    assert isinstance(result.output, QAOutput) and not result.fallback
    tools = [t.tool for t in events.of(ToolExecuted)]
    assert tools[0] == "grep"
    read = "\n".join(t.result for t in events.of(ToolExecuted) if t.tool == "read")
    if found:
        assert "read" in tools and len(result.output.evidence) >= 3
        for quote in result.output.evidence:
            assert quote in text and quote in read  # only what a tool returned
        assert any("backwash" in q for q in result.output.evidence)
    else:
        assert result.output.evidence == []
        assert "does not address" in result.output.answer


async def test_the_same_tool_calls_with_the_same_results_three_times_stop_the_agent(
    events: Recorder,
) -> None:
    api = FakeAPI()
    grep = {"name": "grep", "arguments": '{"pattern": "vault"}'}
    for n in range(STUCK_REPEATS):
        call = {"id": f"call_{n}", "type": "function", "function": grep}
        message = {"content": None, "tool_calls": [call]}
        api.reply(200, openai_completion(message, finish_reason="tool_calls"))
    client = OpenAIClient(
        "gpt-4o-mini", api_key="sk-test", base_url="https://api.openai.com/v1",
        http_client=api.http_client(),
    )  # fmt: skip
    with pytest.raises(AgentStuckError, match="the same tool calls with the same results"):
        await run(client, events)
    assert len(api.requests) == STUCK_REPEATS
    assert "once more and this attempt stops" in api.bodies[-1]["messages"][-1]["content"]
    assert [e.action for e in events.of(AgentStep)][-1] == "stuck"
