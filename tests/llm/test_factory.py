"""build_clients: role defaults, provider:model specs, offline, missing keys, notices."""

from __future__ import annotations

import subprocess
import sys

import httpx2
import pytest

from ralph_tui.llm.anthropic_client import AnthropicClient
from ralph_tui.llm.errors import AuthenticationError, LLMTimeoutError
from ralph_tui.llm.factory import LOCAL_SERVER_KEY, LLMClients, build_clients
from ralph_tui.llm.models import check_model
from ralph_tui.llm.offline import OfflineClient
from ralph_tui.llm.openai_client import OpenAIClient
from ralph_tui.llm.types import ChatMessage, LLMClient
from ralph_tui.llm.usage import MeteredClient, UsageSnapshot
from tests.llm.llm_wire import (
    FakeAPI,
    anthropic_error,
    anthropic_message,
    make_settings,
    openai_completion,
)
from tests.llm.test_models import a_deprecated_anthropic_model

pytestmark = pytest.mark.usefixtures("clean_env")

KEYS = {"anthropic_api_key": "sk-ant-test", "openai_api_key": "sk-test"}


def inner(client: LLMClient) -> LLMClient:
    assert isinstance(client, MeteredClient)
    return client.inner


def test_role_defaults() -> None:
    clients = build_clients(make_settings(**KEYS))
    generate, validate, sub = (inner(c) for c in (clients.generate, clients.validate, clients.sub))
    assert isinstance(generate, AnthropicClient) and generate.model == "claude-sonnet-4-6"
    assert isinstance(validate, OpenAIClient) and validate.model == "gpt-5.4-mini"
    assert sub is generate
    assert all(
        isinstance(c, MeteredClient) and c.ledger is clients.ledger
        for c in (clients.generate, clients.validate, clients.sub)
    )


def test_provider_model_specs_and_local_server() -> None:
    notices: list[str] = []
    settings = make_settings(
        generate_model="openai:qwen2.5:7b",
        validate_model="anthropic:claude-haiku-4-5",
        sub_model="llama3.2:3b",
        anthropic_api_key="sk-ant-test",
        openai_base_url="http://localhost:11434/v1",
    )
    clients = build_clients(settings, on_notice=notices.append)
    generate, validate, sub = (inner(c) for c in (clients.generate, clients.validate, clients.sub))
    assert isinstance(generate, OpenAIClient) and generate.model == "qwen2.5:7b"
    assert isinstance(validate, AnthropicClient) and validate.model == "claude-haiku-4-5"
    assert isinstance(sub, OpenAIClient) and sub.model == "llama3.2:3b"
    assert generate._client.api_key == LOCAL_SERVER_KEY
    assert str(generate._client.base_url) == "http://localhost:11434/v1/"
    assert [n for n in notices if "used as given" in n] == [
        f"openai:qwen2.5:7b: {check_model('openai', 'qwen2.5:7b')[0]}",
        f"openai:llama3.2:3b: {check_model('openai', 'llama3.2:3b')[0]}",
    ]


def test_a_set_context_window_replaces_the_default_and_the_known_ones() -> None:
    base = {"anthropic_api_key": "sk-ant-test", "openai_base_url": "http://localhost:8011/v1"}
    models = {"generate_model": "openai:smollm2", "validate_model": "claude-sonnet-4-6"}
    plain = build_clients(make_settings(**base, **models))
    assert inner(plain.generate).context_window_tokens == 32_768
    assert inner(plain.validate).context_window_tokens == 200_000
    set_ = build_clients(make_settings(**base, **models, context_window=8192))
    assert inner(set_.generate).context_window_tokens == 8192
    assert set_.generate.context_window_tokens == 8192  # the metered wrapper says the same
    assert inner(set_.validate).context_window_tokens == 8192


def test_deprecated_model_notice() -> None:
    name, end_of_life = a_deprecated_anthropic_model()
    notices: list[str] = []
    build_clients(make_settings(generate_model=name, **KEYS), on_notice=notices.append)
    assert any(name in n and end_of_life in n for n in notices)


def test_offline_needs_no_key() -> None:
    clients = build_clients(make_settings(provider="offline"))
    roles = {name: inner(getattr(clients, name)) for name in ("generate", "validate", "sub")}
    assert all(isinstance(c, OfflineClient) for c in roles.values())
    assert roles["generate"] is not roles["validate"]


@pytest.mark.parametrize(
    ("settings", "env_var"),
    [
        ({"openai_api_key": "sk-test"}, "ANTHROPIC_API_KEY"),
        ({"anthropic_api_key": "sk-ant-test"}, "OPENAI_API_KEY"),
        ({"anthropic_api_key": "", "openai_api_key": "sk-test"}, "ANTHROPIC_API_KEY"),
    ],
)
def test_missing_key_says_which_env_var_to_set(settings: dict[str, str], env_var: str) -> None:
    with pytest.raises(AuthenticationError) as caught:
        build_clients(make_settings(**settings))
    assert env_var in str(caught.value) and "--provider offline" in caught.value.one_line()


@pytest.mark.parametrize(
    ("settings", "message", "fix"),
    [
        ({"openai_api_key": "sk-test", "generate_model": "claude-haiku-4-5"},
         "anthropic:claude-haiku-4-5: no API key: ANTHROPIC_API_KEY is not set",
         "give the generate role another provider with --generate-model openai:MODEL; "
         "or run with --provider offline"),
        ({"anthropic_api_key": "sk-ant-test", "validate_model": "gpt-5.4-mini"},
         "openai:gpt-5.4-mini: no API key: OPENAI_API_KEY is not set",
         "set OPENAI_API_KEY or point OPENAI_BASE_URL at a compatible server; give the validate "
         "role another provider with --validate-model anthropic:MODEL"),
        ({"openai_api_key": "sk-test", "generate_model": "openai:gpt-5.4-mini",
          "sub_model": "anthropic:claude-haiku-4-5"},
         "anthropic:claude-haiku-4-5: no API key", "the sub role another provider with "
         "--sub-model openai:MODEL"),
        ({"anthropic_api_key": "sk-ant-test", "openai_base_url": "", "validate_model":
          "anthropic:claude-haiku-4-5", "embedder": "openai"},
         "openai:text-embedding-3-small: no API key: OPENAI_API_KEY is not set",
         "or use --embedder offline, word vectors that need no key"),
    ],
)  # fmt: skip
def test_a_missing_key_names_the_model_and_the_fix_for_its_role(
    settings: dict[str, str], message: str, fix: str
) -> None:
    with pytest.raises(AuthenticationError) as caught:
        build_clients(make_settings(**settings))
    assert str(caught.value).startswith(message)
    assert caught.value.hint is not None and fix in caught.value.hint
    assert "::" not in caught.value.one_line()


def test_one_key_is_enough_when_both_roles_use_it() -> None:
    settings = make_settings(
        validate_model="anthropic:claude-haiku-4-5", anthropic_api_key="sk-ant-test"
    )
    clients = build_clients(settings)
    assert isinstance(inner(clients.validate), AnthropicClient)


async def test_calls_are_metered_retried_and_reported(api: FakeAPI) -> None:
    api.reply(429, anthropic_error("rate_limit_error", "slow down"), headers={"retry-after": "0"})
    api.reply(200, anthropic_message([{"type": "text", "text": "ok"}], output_tokens=7))
    api.reply(200, anthropic_message([{"type": "text", "text": "sub"}], output_tokens=3))
    notices: list[str] = []
    usage: list[UsageSnapshot] = []
    clients: LLMClients = build_clients(
        make_settings(cost_cap_usd=5.0, **KEYS),
        http_client=api.http_client(),
        on_notice=notices.append,
        on_usage=usage.append,
    )
    await clients.generate.chat([ChatMessage(role="user", content="q")])
    await clients.sub.chat([ChatMessage(role="user", content="slice")])
    assert any("rate limited" in n and "retry 1 of 3 in 0.0 s" in n for n in notices)
    # The rate-limited request reached the server too: it is counted, as its log counts it.
    assert [(u.calls, u.failed_calls) for u in usage] == [(1, 1), (2, 1), (3, 1)]
    assert clients.ledger.snapshot().output_tokens == 10
    assert clients.ledger.snapshot().cost_cap_usd == 5.0
    await clients.aclose()


def test_importing_the_llm_layer_does_not_import_the_sdks() -> None:
    code = (
        "import sys, ralph_tui.llm.factory, ralph_tui.llm.usage, ralph_tui.llm.models, "
        "ralph_tui.llm.anthropic_client, ralph_tui.llm.openai_client, ralph_tui.llm.tokens\n"
        "print(sorted(m for m in ('anthropic', 'openai', 'httpx2', 'tokenizers', 'wordllama') "
        "if m in sys.modules))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"


@pytest.mark.parametrize(
    ("base_url", "timeout_s", "requests_sent"),
    [("http://127.0.0.1:8011/v1", 600.0, 1), ("https://proxy.example/v1", 120.0, 2)],
)
async def test_a_local_server_gets_a_long_timeout_and_no_retry_after_one(
    api: FakeAPI, base_url: str, timeout_s: float, requests_sent: int
) -> None:
    """A request that timed out keeps a local server generating: retrying would queue."""
    api.fail_with(httpx2.ReadTimeout)
    api.reply(200, openai_completion({"content": "late"}))
    settings = make_settings(
        generate_model="openai:local", openai_base_url=base_url, llm_max_retries=1
    )
    clients = build_clients(settings, http_client=api.http_client())
    generate = clients.generate
    assert isinstance(generate, MeteredClient)
    generate.sleep = _no_wait
    sdk_client = inner(generate)
    assert isinstance(sdk_client, OpenAIClient)
    assert sdk_client._client.timeout == timeout_s
    if requests_sent == 1:
        with pytest.raises(LLMTimeoutError):
            await generate.chat([ChatMessage(role="user", content="q")])
    else:
        assert (await generate.chat([ChatMessage(role="user", content="q")])).text == "late"
    assert len(api.requests) == requests_sent
    assert clients.ledger.snapshot().calls == requests_sent


def test_a_set_timeout_wins_for_a_local_server() -> None:
    settings = make_settings(
        generate_model="openai:local", openai_base_url="http://localhost:1234/v1", llm_timeout_s=9
    )
    sdk_client = inner(build_clients(settings).generate)
    assert isinstance(sdk_client, OpenAIClient) and sdk_client._client.timeout == 9


async def _no_wait(_delay: float) -> None:
    return None


def test_a_cost_cap_that_cannot_see_some_models_is_said_once(api: FakeAPI) -> None:
    """Two unpriced models (a proxy for the worker, a local server for the judge): one notice
    at the start names both, and the two ways to cap them."""
    notices: list[str] = []
    settings = make_settings(
        cost_cap_usd=5.0,
        generate_model="anthropic:smollm2",
        validate_model="openai:smollm2",
        sub_model="openai:gpt-4o-mini",
        **KEYS,
    )
    build_clients(settings, http_client=api.http_client(), on_notice=notices.append)
    capped = [n for n in notices if "--cost-cap" in n]
    assert capped == [
        "--cost-cap $5.00 cannot be enforced for anthropic:smollm2, openai:smollm2: their "
        "prices are unknown, so the cap sees only priced calls. Give --price smollm2=IN/OUT "
        "(USD per million tokens), or cap tokens with --token-cap"
    ]
