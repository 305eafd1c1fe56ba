"""The direct agent through both SDKs' wire formats: the documents open the system prompt,
the same bytes at every step and iteration (with Anthropic's cache breakpoint on them), the
query after them; the same output tool, refusals, stuck stop and context store as the
other modes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from ralph_tui.agents.agent_run import AgentVariable, RLMSpec
from ralph_tui.agents.direct import (
    DIRECT_ISOLATION,
    DIRECT_MAX_STEPS,
    DirectPromptTooLong,
    direct_agent_forward,
)
from ralph_tui.agents.structured import AgentStuckError, MaxStepsError
from ralph_tui.agents.stuck import STUCK_REPEATS
from ralph_tui.events import AgentStep, TextRead
from ralph_tui.lcm.store import MessageStore
from ralph_tui.llm.anthropic_client import AnthropicClient
from ralph_tui.llm.documents_prompt import parse_documents
from ralph_tui.llm.offline import OfflineClient
from ralph_tui.llm.openai_client import OpenAIClient
from ralph_tui.llm.types import LLMClient
from tests.agents.conftest import Recorder, reply_tool
from tests.llm.llm_wire import FakeAPI, anthropic_error, openai_completion, system_text

FIRST = "The vault opens with code 4417.\nThe guard changes at midnight.\n"
SECOND = 'A second file: "quoted" text, and a line that looks like a frame:\n</document>\n'


class Answer(BaseModel):
    answer: str
    evidence: list[str]


def spec(max_steps: int = 80) -> RLMSpec[Answer]:
    return RLMSpec(name="worker", definition="Answer the question.", output_model=Answer,
                   max_steps=max_steps)  # fmt: skip


def documents() -> dict[str, AgentVariable]:
    text = FIRST + SECOND
    table = [
        {"name": "vault.md", "start": 0, "end": len(FIRST)},
        {"name": 'notes "b".txt', "start": len(FIRST), "end": len(text)},
    ]
    return {
        "context": AgentVariable(text, "the documents"),
        "documents": AgentVariable(table, "their table"),
    }


async def ask(
    client: LLMClient, events: Recorder, query: str, store: Path | None = None, steps: int = 80
) -> Any:
    return await direct_agent_forward(
        client, spec(steps), {"query": query, "constraints": []}, documents(),
        sub_client=OfflineClient(role="sub"), emit=events, store_path=store,
    )  # fmt: skip


GOOD = {"answer": "- The code is 4417.", "evidence": ["The vault opens with code 4417."]}


async def test_anthropic_gets_the_documents_as_a_cached_prefix_the_same_every_iteration(
    claude: AnthropicClient, api: FakeAPI, events: Recorder, tmp_path: Path
) -> None:
    reply_tool(api, {"answer": "- The code is 4417."})  # evidence missing: refused
    reply_tool(api, GOOD)
    reply_tool(api, GOOD)
    store = tmp_path / "context-01-worker.jsonl"
    first = await ask(claude, events, "What opens the vault?", store)
    await ask(claude, events, "Who changes at midnight?", tmp_path / "c2.jsonl")
    assert first.output.evidence == GOOD["evidence"] and not first.fallback
    assert first.isolation == DIRECT_ISOLATION and first.llm_calls == 0
    bodies = api.bodies
    assert len(bodies) == 3
    systems = [body["system"] for body in bodies]
    assert systems[0] == systems[1] == systems[2], "the prefix is byte for byte the same"
    [block] = systems[0]
    assert block["cache_control"] == {"type": "ephemeral"}
    prompt = system_text(bodies[0])
    assert parse_documents(prompt) is not None and prompt.index(FIRST) < prompt.index("Answer the")
    assert [doc.text for doc in parse_documents(prompt) or []] == [FIRST, SECOND]
    for body in bodies:
        assert [tool["name"] for tool in body["tools"]] == ["submit_output"]
        user = json.dumps(body["messages"])
        assert FIRST.strip() not in user, "the documents are sent once, in the prefix"
    assert "What opens the vault?" in json.dumps(bodies[0]["messages"][0])
    assert "Who changes at midnight?" in json.dumps(bodies[2]["messages"][0])
    refusal = bodies[1]["messages"][-1]["content"][-1]
    assert refusal["type"] == "tool_result" and "evidence" in refusal["content"]
    assert [e.action for e in events.of(AgentStep)][:2] == ["invalid", "output"]
    kept = MessageStore.load(store)
    assert [m.role for m in kept.messages] == ["user", "assistant", "tool", "assistant"]
    assert events.of(TextRead)[0].via == "prompt"


async def test_openai_gets_the_same_system_message_first_at_every_step(events: Recorder) -> None:
    api = FakeAPI()
    for arguments in ({"answer": 4417}, GOOD):
        function = {"name": "submit_output", "arguments": json.dumps(arguments)}
        call = {"id": "call_1", "type": "function", "function": function}
        api.reply(200, openai_completion({"content": None, "tool_calls": [call]},
                                         finish_reason="tool_calls"))  # fmt: skip
    client = OpenAIClient("gpt-4o-mini", api_key="sk-test", base_url="https://api.openai.com/v1",
                          http_client=api.http_client())  # fmt: skip
    result = await ask(client, events, "What opens the vault?")
    assert result.output.answer == GOOD["answer"]
    first, second = api.bodies
    assert first["messages"][0] == second["messages"][0]
    system = first["messages"][0]
    assert system["role"] == "system" and system["content"].startswith("<documents>\n")
    assert second["messages"][:2] == first["messages"][:2], "the prefix only grows at its end"
    assert second["messages"][-1]["role"] == "tool"
    assert [tool["function"]["name"] for tool in first["tools"]] == ["submit_output"]


async def test_the_same_invalid_output_three_times_stops_it(
    claude: AnthropicClient, api: FakeAPI, events: Recorder
) -> None:
    for _ in range(STUCK_REPEATS):
        reply_tool(api, {"answer": "- no quotes"})
    with pytest.raises(AgentStuckError, match="the same invalid output"):
        await ask(claude, events, "What opens the vault?")
    assert len(api.requests) == STUCK_REPEATS
    last = api.bodies[-1]["messages"]
    assert len(last) == len(api.bodies[1]["messages"]), "earlier invalid turns are left out"


async def test_its_turns_are_bounded_below_the_step_budget(
    claude: AnthropicClient, api: FakeAPI, events: Recorder
) -> None:
    for n in range(DIRECT_MAX_STEPS):
        reply_tool(api, {"answer": "- no quotes"} if n % 2 else {"evidence": []})
    with pytest.raises(MaxStepsError, match=f"all {DIRECT_MAX_STEPS} steps"):
        await ask(claude, events, "What opens the vault?")
    assert len(api.requests) == DIRECT_MAX_STEPS
    assert events.of(AgentStep)[0].max_steps == DIRECT_MAX_STEPS


async def test_a_server_refusing_the_documents_as_too_long_stops_the_run_after_one_request(
    claude: AnthropicClient, api: FakeAPI, events: Recorder
) -> None:
    api.reply(400, anthropic_error("invalid_request_error", "prompt is too long: 9000 > 8192"))
    with pytest.raises(DirectPromptTooLong, match="refused the documents") as raised:
        await ask(claude, events, "What opens the vault?")
    assert raised.value.stops_run and "--context-window" in (raised.value.hint or "")
    assert len(api.requests) == 1, "no compaction and no retry of the same documents"
