"""The structured-output agent over the real Anthropic SDK: nudge, feedback, step budget."""

from __future__ import annotations

import json

import pytest
from pydantic import BaseModel, Field

from ralph_tui.agents.structured import AgentSpec, AgentStuckError, MaxStepsError, agent_forward
from ralph_tui.agents.stuck import STUCK_REPEATS
from ralph_tui.events import AgentStep, ModelTurnPartial
from ralph_tui.llm.anthropic_client import AnthropicClient
from tests.agents.conftest import Recorder, reply_text, reply_tool, tool_use
from tests.llm.llm_wire import FakeAPI, anthropic_events, anthropic_message, system_text
from tests.llm.stream_wire import ScriptedStream, stream_response


class Verdict(BaseModel):
    ok: bool
    issues: list[str] = Field(max_length=2)


SPEC = AgentSpec(name="judge", system="You judge.", output_model=Verdict, max_steps=3)


async def test_valid_first_call_returns_the_output(
    api: FakeAPI, claude: AnthropicClient, events: Recorder
) -> None:
    reply_tool(api, {"ok": True, "issues": []})
    result = await agent_forward(claude, SPEC, {"question": "q"}, events)
    assert result == Verdict(ok=True, issues=[])
    body = api.bodies[0]
    assert system_text(body) == "You judge."
    assert body["tools"][0]["name"] == "submit_output"
    assert body["tools"][0]["input_schema"]["required"] == ["ok", "issues"]
    assert '"question": "q"' in body["messages"][0]["content"][0]["text"]
    assert [e.action for e in events.of(AgentStep)] == ["output"]


async def test_a_reply_without_tool_call_gets_a_nudge(
    api: FakeAPI, claude: AnthropicClient, events: Recorder
) -> None:
    reply_text(api, "I think it is fine.")
    reply_tool(api, {"ok": True, "issues": []})
    await agent_forward(claude, SPEC, {}, events)
    second = api.bodies[1]["messages"]
    assert second[-2] == {
        "role": "assistant",
        "content": [{"type": "text", "text": "I think it is fine."}],
    }
    assert "did not call the `submit_output` tool" in second[-1]["content"][0]["text"]
    assert [e.action for e in events.of(AgentStep)] == ["nudge", "output"]


async def test_schema_violations_go_back_as_precise_tool_results(
    api: FakeAPI, claude: AnthropicClient, events: Recorder
) -> None:
    reply_tool(api, {"ok": "perhaps", "issues": ["a", "b", "c"]})
    reply_tool(api, {"ok": False, "issues": ["a"]})
    result = await agent_forward(claude, SPEC, {}, events)
    assert result.issues == ["a"]
    feedback = api.bodies[1]["messages"][-1]["content"][0]
    assert feedback["type"] == "tool_result"
    assert "`ok`" in feedback["content"] and "`issues`" in feedback["content"]
    assert "at most 2 items" in feedback["content"]
    invalid = events.of(AgentStep)[0]
    assert invalid.action == "invalid" and "`ok`" in invalid.detail


async def test_step_budget_runs_out_with_what_was_gathered(
    api: FakeAPI, claude: AnthropicClient, events: Recorder
) -> None:
    for _ in range(3):
        reply_tool(api, {"ok": True})
    with pytest.raises(MaxStepsError) as info:
        await agent_forward(claude, SPEC, {}, events)
    assert info.value.max_steps == 3
    assert len(info.value.gathered) == 3 and '"ok": true' in info.value.gathered[0]
    assert "issues" in info.value.last_error
    assert len(api.requests) == 3


async def test_a_streamed_turn_reaches_the_app_as_partial_turns_of_its_step(
    api: FakeAPI, claude: AnthropicClient, events: Recorder
) -> None:
    verdict = {"ok": False, "issues": ["The second quote is not in the document at all."]}
    message = anthropic_message([tool_use(verdict)], stop_reason="tool_use")
    frames = anthropic_events(message)
    api.replies.append(stream_response(ScriptedStream(frames, delay_s=0.4 / len(frames))))
    result = await agent_forward(claude, SPEC, {"question": "q"}, events)
    assert result == Verdict.model_validate(verdict)
    partials = events.of(ModelTurnPartial)
    assert len(partials) >= 2
    assert {(p.agent, p.step, p.tool) for p in partials} == {("judge", 1, "submit_output")}
    assert all(json.dumps(verdict).startswith(p.arguments) for p in partials)
    assert events.index(partials[-1]) < events.index(events.of(AgentStep)[-1])


async def test_the_same_problem_with_other_values_stops_the_agent_when_it_repeats(
    api: FakeAPI, claude: AnthropicClient, events: Recorder
) -> None:
    for n in range(STUCK_REPEATS):  # a new wrong value each time, the same problem
        reply_tool(api, {"ok": f"perhaps {n}", "issues": []})
    spec = AgentSpec(name="judge", system="You judge.", output_model=Verdict, max_steps=9)
    with pytest.raises(AgentStuckError) as stuck:
        await agent_forward(claude, spec, {}, events)
    assert len(api.requests) == STUCK_REPEATS
    message = str(stuck.value)
    assert message.startswith(f"judge stopped at step {STUCK_REPEATS} of 9, stuck: the same")
    assert "`ok`: Input should be a valid boolean" in message
    assert "`ok`: Input should be a valid boolean" in stuck.value.advice()
    assert [e.action for e in events.of(AgentStep)] == ["invalid"] * STUCK_REPEATS + ["stuck"]


async def test_only_the_latest_invalid_turn_is_resent(
    api: FakeAPI, claude: AnthropicClient, events: Recorder
) -> None:
    steps = 6
    for n in range(steps):  # two problems in turn: never the same one twice in a row
        reply_tool(api, {"ok": True} if n % 2 else {"ok": f"perhaps {n}", "issues": []})
    spec = AgentSpec(name="judge", system="You judge.", output_model=Verdict, max_steps=steps)
    with pytest.raises(MaxStepsError) as ran_out:
        await agent_forward(claude, spec, {}, events)
    assert not isinstance(ran_out.value, AgentStuckError)
    counts = [len(body["messages"]) for body in api.bodies]
    assert counts == [1] + [3] * (steps - 1), "the task, the latest turn and its problem"
    last = json.dumps(api.bodies[-1]["messages"])
    assert f"perhaps {steps - 2}" in last and "perhaps 0" not in last
