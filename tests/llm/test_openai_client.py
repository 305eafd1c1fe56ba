"""OpenAIClient through the real openai SDK: request shapes, parsing, tokens, embeddings."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from ralph_tui.llm.openai_client import OpenAIClient, uses_max_completion_tokens
from ralph_tui.llm.types import ChatMessage, ToolCall, ToolDefinition
from tests.llm.llm_wire import FakeAPI, openai_completion

VERDICT = ToolDefinition(
    name="submit_verdict",
    description="Report whether the answer is supported.",
    parameters={
        "type": "object",
        "properties": {"ok": {"type": "boolean"}, "issues": {"type": "array"}},
        "required": ["ok", "issues"],
    },
)

MakeClient = Callable[..., OpenAIClient]


async def test_tool_call_round_trip(api: FakeAPI, make_openai: MakeClient) -> None:
    arguments = json.dumps({"ok": False, "issues": ["quote not found"]})
    api.reply(
        200,
        openai_completion(
            {
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_9",
                        "type": "function",
                        "function": {"name": "submit_verdict", "arguments": arguments},
                    }
                ],
            },
            finish_reason="tool_calls",
        ),
    )
    conversation = [
        ChatMessage(role="system", content="You judge answers."),
        ChatMessage(role="user", content="Judge this."),
        ChatMessage(
            role="assistant",
            content="Checking.",
            tool_calls=[ToolCall(id="call_1", name="submit_verdict", arguments='{"ok": true}')],
        ),
        ChatMessage(role="tool", tool_call_id="call_1", content="issues is required"),
    ]

    completion = await make_openai().chat(
        conversation, tools=[VERDICT], tool_choice="submit_verdict", temperature=0.0
    )

    sent = api.bodies[0]
    assert sent["messages"] == [
        {"role": "system", "content": "You judge answers."},
        {"role": "user", "content": "Judge this."},
        {
            "role": "assistant",
            "content": "Checking.",
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "submit_verdict", "arguments": '{"ok": true}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "issues is required"},
    ]
    assert sent["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "submit_verdict",
                "description": "Report whether the answer is supported.",
                "parameters": VERDICT.parameters,
            },
        }
    ]
    assert sent["tool_choice"] == {"type": "function", "function": {"name": "submit_verdict"}}
    assert (sent["max_tokens"], sent["temperature"]) == (4096, 0.0)
    assert completion.tool_calls == [
        ToolCall(id="call_9", name="submit_verdict", arguments=arguments)
    ]
    assert completion.text == ""
    assert completion.stop_reason == "tool_use"
    assert completion.provider == "openai"


@pytest.mark.parametrize("choice", ["auto", "required", "none"])
async def test_plain_tool_choices_pass_through_with_several_tools(
    api: FakeAPI, make_openai: MakeClient, choice: str
) -> None:
    api.reply(200, openai_completion({"content": "ok"}))
    other = VERDICT.model_copy(update={"name": "other"})
    await make_openai().chat(
        [ChatMessage(role="user", content="x")], tools=[VERDICT, other], tool_choice=choice
    )
    assert api.bodies[0]["tool_choice"] == choice


async def test_another_server_is_asked_with_auto_instead_of_required_with_several_tools(
    api: FakeAPI, make_openai: MakeClient
) -> None:
    """llama.cpp's server rejects ``required`` with several tools (500)."""
    api.reply(200, openai_completion({"content": "ok"}))
    other = VERDICT.model_copy(update={"name": "other"})
    client = make_openai(base_url="http://127.0.0.1:8011/v1")
    await client.chat([ChatMessage(role="user", content="x")], tools=[VERDICT, other],
                      tool_choice="required")  # fmt: skip
    assert api.bodies[0]["tool_choice"] == "auto"


async def test_required_with_one_tool_names_it(api: FakeAPI, make_openai: MakeClient) -> None:
    """llama.cpp's server answers ``required`` with 500; a named tool means the same."""
    api.reply(200, openai_completion({"content": "ok"}))
    await make_openai().chat(
        [ChatMessage(role="user", content="x")], tools=[VERDICT], tool_choice="required"
    )
    assert api.bodies[0]["tool_choice"] == {
        "type": "function",
        "function": {"name": "submit_verdict"},
    }


async def test_a_tool_call_turn_without_text_sends_empty_content(
    api: FakeAPI, make_openai: MakeClient
) -> None:
    """Never ``"content": null``: llama.cpp's server answers it with 500."""
    api.reply(200, openai_completion({"content": "ok"}))
    call = ToolCall(id="call_1", name="submit_verdict", arguments="{}")
    await make_openai().chat(
        [
            ChatMessage(role="user", content="x"),
            ChatMessage(role="assistant", tool_calls=[call]),
            ChatMessage(role="tool", tool_call_id="call_1", content="done"),
        ]
    )
    assert api.bodies[0]["messages"][1]["content"] == ""


async def test_usage_cost_and_snapshot_pricing(api: FakeAPI, make_openai: MakeClient) -> None:
    api.reply(
        200,
        openai_completion(
            {"content": "Paris."}, prompt_tokens=1_000_000, completion_tokens=1_000_000
        ),
    )
    completion = await make_openai("gpt-4o-mini").chat([ChatMessage(role="user", content="?")])
    assert (completion.usage.input_tokens, completion.usage.output_tokens) == (1_000_000, 1_000_000)
    assert completion.cost_usd == pytest.approx(0.15 + 0.60)
    assert (completion.text, completion.stop_reason) == ("Paris.", "end_turn")
    assert completion.model == "gpt-4o-mini-2024-07-18"


@pytest.mark.parametrize(
    ("model", "newer"),
    [
        ("gpt-5-mini", True),
        ("gpt-5.2", True),
        ("o3", True),
        ("o4-mini", True),
        ("gpt-4o-mini", False),
        ("gpt-4.1-mini", False),
        ("qwen2.5:7b", False),
        ("gpt-oss-20b", False),
    ],
)
async def test_token_limit_parameter_by_family(
    api: FakeAPI, make_openai: MakeClient, model: str, newer: bool
) -> None:
    api.reply(200, openai_completion({"content": "ok"}, model=model))
    await make_openai(model).chat(
        [ChatMessage(role="user", content="x")], temperature=0.3, max_tokens=777
    )
    sent = api.bodies[0]
    assert uses_max_completion_tokens(model) is newer
    if newer:
        assert sent["max_completion_tokens"] == 777
        assert "max_tokens" not in sent and "temperature" not in sent
    else:
        assert (sent["max_tokens"], sent["temperature"]) == (777, 0.3)
        assert "max_completion_tokens" not in sent


async def test_local_server_without_usage_or_price(api: FakeAPI, make_openai: MakeClient) -> None:
    body = openai_completion({"content": "hello"}, model="qwen2.5:7b")
    del body["usage"]
    api.reply(200, body)
    client = make_openai("qwen2.5:7b", base_url="http://127.0.0.1:11434/v1")
    completion = await client.chat([ChatMessage(role="user", content="hi")])
    assert completion.text == "hello"
    assert completion.usage.input_tokens == completion.usage.output_tokens == 0
    assert completion.cost_usd is None
    assert str(api.requests[0].url) == "http://127.0.0.1:11434/v1/chat/completions"


async def test_length_stop_is_max_tokens(api: FakeAPI, make_openai: MakeClient) -> None:
    api.reply(200, openai_completion({"content": "trunc"}, finish_reason="length"))
    completion = await make_openai().chat([ChatMessage(role="user", content="x")])
    assert completion.stop_reason == "max_tokens"


async def test_embed(api: FakeAPI, make_openai: MakeClient) -> None:
    api.reply(
        200,
        {
            "object": "list",
            "data": [
                {"object": "embedding", "index": 1, "embedding": [0.3, 0.4]},
                {"object": "embedding", "index": 0, "embedding": [0.1, 0.2]},
            ],
            "model": "text-embedding-3-small",
            "usage": {"prompt_tokens": 8, "total_tokens": 8},
        },
    )
    embedded = await make_openai().embed(["first", "second"])
    assert embedded.vectors == [[0.1, 0.2], [0.3, 0.4]]
    assert embedded.record.usage.input_tokens == 8
    assert embedded.record.model == "text-embedding-3-small"
    assert embedded.record.cost_usd == pytest.approx(8 * 0.02 / 1e6)
    sent = api.bodies[0]
    assert sent["model"] == "text-embedding-3-small"
    assert sent["input"] == ["first", "second"]
    assert str(api.requests[0].url).endswith("/embeddings")


async def test_embed_nothing_makes_no_request(api: FakeAPI, make_openai: MakeClient) -> None:
    assert (await make_openai().embed([])).vectors == []
    assert api.requests == []
