"""AnthropicClient through the real anthropic SDK: request shapes and response parsing."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from ralph_tui.llm.anthropic_client import AnthropicClient
from ralph_tui.llm.errors import AuthenticationError
from ralph_tui.llm.types import ChatMessage, ToolCall, ToolDefinition
from tests.llm.llm_wire import FakeAPI, anthropic_message, system_text

RUN_CODE = ToolDefinition(
    name="run_code",
    description="Run Python in the sandbox.",
    parameters={
        "type": "object",
        "properties": {"code": {"type": "string"}},
        "required": ["code"],
    },
)

MakeClient = Callable[..., AnthropicClient]


async def test_tool_call_round_trip(api: FakeAPI, make_anthropic: MakeClient) -> None:
    api.reply(
        200,
        anthropic_message(
            [
                {"type": "text", "text": "Counting first."},
                {
                    "type": "tool_use",
                    "id": "toolu_02",
                    "name": "run_code",
                    "input": {"code": "print(len(context))"},
                },
            ],
            stop_reason="tool_use",
            input_tokens=1200,
            output_tokens=80,
        ),
    )
    conversation = [
        ChatMessage(role="system", content="You explore documents."),
        ChatMessage(role="user", content="How long is it?"),
        ChatMessage(
            role="assistant",
            tool_calls=[
                ToolCall(id="toolu_00", name="run_code", arguments='{"code": "a = 1"}'),
                ToolCall(id="toolu_01", name="run_code", arguments='{"code": "b = 2"}'),
            ],
        ),
        ChatMessage(role="tool", tool_call_id="toolu_00", content=""),
        ChatMessage(role="tool", tool_call_id="toolu_01", content="ok"),
        ChatMessage(role="user", content="Go on."),
    ]

    completion = await make_anthropic().chat(
        conversation, tools=[RUN_CODE], tool_choice="required", temperature=0.2, max_tokens=512
    )

    sent = api.bodies[0]
    assert system_text(sent) == "You explore documents."
    assert sent["model"] == "claude-sonnet-4-6"
    assert sent["max_tokens"] == 512
    assert "temperature" not in sent  # the API version the SDK speaks rejects it
    assert sent["tools"] == [
        {
            "name": "run_code",
            "description": "Run Python in the sandbox.",
            "input_schema": RUN_CODE.parameters,
        }
    ]
    assert sent["tool_choice"] == {"type": "tool", "name": "run_code"}
    assert sent["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "How long is it?"}]},
        {
            "role": "assistant",
            "content": [
                {
                    "type": "tool_use",
                    "id": "toolu_00",
                    "name": "run_code",
                    "input": {"code": "a = 1"},
                },
                {
                    "type": "tool_use",
                    "id": "toolu_01",
                    "name": "run_code",
                    "input": {"code": "b = 2"},
                },
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "toolu_00", "content": ""},
                {"type": "tool_result", "tool_use_id": "toolu_01", "content": "ok"},
                {"type": "text", "text": "Go on.", "cache_control": {"type": "ephemeral"}},
            ],
        },
    ]
    assert completion.text == "Counting first."
    assert completion.tool_calls == [
        ToolCall(id="toolu_02", name="run_code", arguments='{"code": "print(len(context))"}')
    ]
    assert json.loads(completion.tool_calls[0].arguments) == {"code": "print(len(context))"}
    assert completion.stop_reason == "tool_use"
    assert (completion.provider, completion.model) == ("anthropic", "claude-sonnet-4-6")
    assert completion.latency_ms > 0


async def test_usage_and_cost(api: FakeAPI, make_anthropic: MakeClient) -> None:
    api.reply(
        200,
        anthropic_message(
            [{"type": "text", "text": "42"}],
            model="claude-haiku-4-5-20251001",
            input_tokens=2_000_000,
            output_tokens=100_000,
        ),
    )
    completion = await make_anthropic("claude-haiku-4-5").chat(
        [ChatMessage(role="user", content="?")]
    )
    assert (completion.usage.input_tokens, completion.usage.output_tokens) == (2_000_000, 100_000)
    assert completion.cost_usd == pytest.approx(2 * 1.0 + 0.1 * 5.0)
    assert completion.model == "claude-haiku-4-5-20251001"


async def test_unknown_model_has_unknown_cost(api: FakeAPI, make_anthropic: MakeClient) -> None:
    api.reply(200, anthropic_message([{"type": "text", "text": "hi"}], model="claude-next"))
    completion = await make_anthropic("claude-next").chat([ChatMessage(role="user", content="hi")])
    assert completion.cost_usd is None


@pytest.mark.parametrize(
    ("choice", "wire"),
    [
        ("auto", {"type": "auto"}),
        ("none", {"type": "none"}),
        ("required", {"type": "tool", "name": "run_code"}),
        ("run_code", {"type": "tool", "name": "run_code"}),
    ],
)
async def test_tool_choice_shapes(
    api: FakeAPI, make_anthropic: MakeClient, choice: str, wire: dict[str, str]
) -> None:
    api.reply(200, anthropic_message([{"type": "text", "text": "ok"}]))
    await make_anthropic().chat(
        [ChatMessage(role="user", content="x")], tools=[RUN_CODE], tool_choice=choice
    )
    assert api.bodies[0]["tool_choice"] == wire


async def test_required_among_several_tools_is_any(
    api: FakeAPI, make_anthropic: MakeClient
) -> None:
    api.reply(200, anthropic_message([{"type": "text", "text": "ok"}]))
    other = RUN_CODE.model_copy(update={"name": "other"})
    await make_anthropic().chat(
        [ChatMessage(role="user", content="x")], tools=[RUN_CODE, other], tool_choice="required"
    )
    assert api.bodies[0]["tool_choice"] == {"type": "any"}


async def test_plain_call_sends_no_optional_fields(
    api: FakeAPI, make_anthropic: MakeClient
) -> None:
    api.reply(200, anthropic_message([{"type": "text", "text": "ok"}]))
    await make_anthropic().chat([ChatMessage(role="user", content="x")], tool_choice="auto")
    assert set(api.bodies[0]) == {"model", "max_tokens", "messages", "stream"}


def test_arguments_that_are_not_an_object_are_kept_verbatim(make_anthropic: MakeClient) -> None:
    call = ToolCall(id="t1", name="run_code", arguments="not json")
    params = make_anthropic().request_params([ChatMessage(role="assistant", tool_calls=[call])])
    block = params["messages"][0]["content"][0]
    assert block["input"] == {"raw_arguments": "not json"}


@pytest.mark.parametrize("config_dir_set", [False, True])
def test_missing_key_names_the_env_var(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, config_dir_set: bool
) -> None:
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    if config_dir_set:
        monkeypatch.setenv("ANTHROPIC_CONFIG_DIR", str(tmp_path))
    else:
        monkeypatch.delenv("ANTHROPIC_CONFIG_DIR", raising=False)
    with pytest.raises(
        AuthenticationError, match=r"^anthropic:claude-sonnet-4-6: .*ANTHROPIC_API_KEY"
    ) as caught:
        AnthropicClient("claude-sonnet-4-6")
    assert "--provider offline" in caught.value.one_line()


async def test_the_system_prompt_and_the_newest_block_are_cache_breakpoints(
    api: FakeAPI, make_anthropic: MakeClient
) -> None:
    api.reply(200, anthropic_message([{"type": "text", "text": "ok"}]))
    await make_anthropic().chat(
        [
            ChatMessage(role="system", content="You explore documents."),
            ChatMessage(role="user", content="First."),
            ChatMessage(role="assistant", content="Noted."),
            ChatMessage(role="user", content="Second."),
        ]
    )
    sent = api.bodies[0]
    assert sent["system"] == [
        {"type": "text", "text": "You explore documents.", "cache_control": {"type": "ephemeral"}}
    ]
    marked = [
        block for turn in sent["messages"] for block in turn["content"] if "cache_control" in block
    ]
    assert marked == [{"type": "text", "text": "Second.", "cache_control": {"type": "ephemeral"}}]
