"""``--price MODEL=IN/OUT``: a ``provider:`` prefix is dropped, a colon inside a model's own
name (an Ollama tag) is kept, so the price reaches the model it names."""

from __future__ import annotations

import pytest

from ralph_tui.config import load_settings
from ralph_tui.config.prices import parse_prices
from ralph_tui.llm.models import parse_model_spec
from ralph_tui.llm.pricing import price_family


@pytest.mark.parametrize(
    ("given", "model"),
    [
        ("qwen2.5:7b=0.1/0.2", "qwen2.5:7b"),
        ("openai:qwen2.5:7b=0.1/0.2", "qwen2.5:7b"),
        ("anthropic:smollm2=0.1/0.2", "smollm2"),
        ("SmolLM2=0.1/0.2", "smollm2"),
    ],
)
def test_a_price_is_kept_under_the_name_runs_look_it_up_by(given: str, model: str) -> None:
    assert parse_prices(given) == {model: (0.1, 0.2)}


def test_the_model_a_run_uses_finds_the_price_given_for_it() -> None:
    settings = load_settings(
        {"generate_model": "openai:qwen2.5:7b", "prices": "qwen2.5:7b=0.5/1.5"},
        env_file=None,
    )
    _provider, model = parse_model_spec(settings.generate_model, default_provider="anthropic")
    assert settings.price_table()[price_family(model)] == (0.5, 1.5)


def test_an_unknown_prefix_is_part_of_the_model_name() -> None:
    assert parse_model_spec("llama:70b", default_provider="openai") == ("openai", "llama:70b")
    assert parse_model_spec("OpenAI:gpt-5", default_provider="anthropic") == ("openai", "gpt-5")
