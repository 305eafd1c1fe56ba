"""Model catalog from the SDKs' own types, deprecation warnings, windows, specs, prices."""

from __future__ import annotations

import pytest

from ralph_tui.llm import models
from ralph_tui.llm.models import check_model, context_window_tokens, parse_model_spec
from ralph_tui.llm.pricing import cost_usd, price_family, price_of


def test_catalog_comes_from_the_installed_sdks() -> None:
    from anthropic._data import DEPRECATED_MODELS

    assert "claude-sonnet-4-6" in models.anthropic_models()
    assert set(DEPRECATED_MODELS) <= models.anthropic_models()
    assert {"gpt-5-mini", "gpt-4o-mini"} <= models.openai_chat_models()
    assert "text-embedding-3-small" in models.openai_embedding_models()


def a_deprecated_anthropic_model() -> tuple[str, str]:
    """One (name, end-of-life) pair of the installed SDK's table, which changes between releases."""
    table = models.anthropic_deprecations()
    assert table, "the installed anthropic SDK lists no deprecated model"
    return next(iter(table.items()))


def test_deprecated_anthropic_model_warns_with_its_end_of_life() -> None:
    name, end_of_life = a_deprecated_anthropic_model()
    warnings = check_model("anthropic", name)
    assert len(warnings) == 1
    assert "deprecated" in warnings[0] and end_of_life in warnings[0]


def test_current_models_have_no_warning() -> None:
    assert check_model("anthropic", "claude-sonnet-4-6") == []
    assert check_model("anthropic", "claude-haiku-4-5") == []
    assert check_model("openai", "text-embedding-3-small") == []


@pytest.mark.parametrize(
    ("provider", "name"), [("anthropic", "claude-sonnet-9"), ("openai", "qwen2.5:7b")]
)
def test_unknown_model_is_used_as_given_with_a_warning(provider: str, name: str) -> None:
    (warning,) = check_model(provider, name)
    assert repr(name) in warning and "used as given" in warning


def test_offline_models_never_warn() -> None:
    assert check_model("offline", "generate") == []


def test_openai_shutdown_dates_come_from_the_sdk_notes() -> None:
    dates = models.openai_shutdown_dates()
    assert dates, "the openai SDK's ChatModel notes should list shutdown dates"
    assert all(len(date) == 10 and date[4] == "-" for date in dates.values())
    assert set(dates) <= models.openai_chat_models()
    name, date = next(iter(dates.items()))
    (warning,) = check_model("openai", name)
    assert date in warning


def test_shutdown_notes_parser_handles_wrapped_lines() -> None:
    notes = (
        'Deprecated values:\n\n- "a-1", "a-2",\n  "a-3": Announced shutdown\n'
        '  date: 2026-03-26. See x.\n- "b": Not a supported model ID.\n'
    )
    assert models._parse_shutdown_notes(notes) == {
        "a-1": "2026-03-26",
        "a-2": "2026-03-26",
        "a-3": "2026-03-26",
    }


@pytest.mark.parametrize(
    ("provider", "name", "window"),
    [
        ("anthropic", "claude-sonnet-4-6", 200_000),
        ("openai", "gpt-4.1-mini", 1_047_576),
        ("openai", "gpt-5-mini", 400_000),
        ("openai", "gpt-4o-mini-2024-07-18", 128_000),
        ("openai", "gpt-4", 8_192),
        ("openai", "o3", 200_000),
        ("openai", "qwen2.5:7b", models.DEFAULT_CONTEXT_WINDOW),
    ],
)
def test_context_windows_by_family(provider: str, name: str, window: int) -> None:
    assert context_window_tokens(provider, name) == window


@pytest.mark.parametrize(
    ("spec", "default", "expected"),
    [
        ("openai:qwen2.5:7b", "anthropic", ("openai", "qwen2.5:7b")),
        ("qwen2.5:7b", "openai", ("openai", "qwen2.5:7b")),
        ("anthropic:claude-haiku-4-5", "openai", ("anthropic", "claude-haiku-4-5")),
        ("claude-sonnet-4-6", "anthropic", ("anthropic", "claude-sonnet-4-6")),
        ("offline:judge", "openai", ("offline", "judge")),
        ("OpenAI:gpt-5-mini", "anthropic", ("openai", "gpt-5-mini")),
        ("llama3:8b", "openai", ("openai", "llama3:8b")),
    ],
)
def test_parse_model_spec(spec: str, default: str, expected: tuple[str, str]) -> None:
    assert parse_model_spec(spec, default_provider=default) == expected


@pytest.mark.parametrize(
    ("model", "family"),
    [
        ("claude-haiku-4-5-20251001", "claude-haiku-4-5"),
        ("gpt-4o-mini-2024-07-18", "gpt-4o-mini"),
        ("claude-3-7-sonnet-latest", "claude-3-7-sonnet"),
        ("gpt-5-mini", "gpt-5-mini"),
    ],
)
def test_snapshots_are_priced_as_their_family(model: str, family: str) -> None:
    assert price_family(model) == family
    assert price_of(model) == price_of(family) is not None


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ("claude-sonnet-4-6", 3.0 + 15.0),
        ("claude-haiku-4-5", 1.0 + 5.0),
        ("claude-opus-4-6", 5.0 + 25.0),
        ("gpt-4o-mini", 0.15 + 0.60),
        ("gpt-4.1-mini", 0.40 + 1.60),
        ("gpt-5", 1.25 + 10.0),
        ("gpt-5-mini", 0.25 + 2.0),
        ("gpt-5-nano", 0.05 + 0.40),
    ],
)
def test_prices_per_million_tokens(model: str, expected: float) -> None:
    assert cost_usd(model, 1_000_000, 1_000_000) == pytest.approx(expected)


@pytest.mark.parametrize("model", ["qwen2.5:7b", "gpt-5-chat-latest", "claude-opus-9"])
def test_unknown_price_is_none_not_a_guess(model: str) -> None:
    assert cost_usd(model, 1000, 1000) is None


def test_embedding_price_is_input_only() -> None:
    assert cost_usd("text-embedding-3-small", 1_000_000, 0) == pytest.approx(0.02)
