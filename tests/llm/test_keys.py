"""Which keys a run's roles lack: one check, used by the app's warning and ``doctor``."""

from __future__ import annotations

import pytest

from ralph_tui.config import load_settings
from ralph_tui.llm.keys import can_reach, missing_keys


@pytest.fixture(autouse=True)
def no_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_BASE_URL", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)


def test_each_provider_the_roles_use_is_named_once() -> None:
    settings = load_settings({"provider": "auto"})
    assert missing_keys(settings) == ["ANTHROPIC_API_KEY", "OPENAI_API_KEY"]


def test_a_key_or_a_custom_endpoint_reaches_a_provider(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-set")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:8011/v1")
    settings = load_settings({"provider": "auto"})
    assert can_reach(settings, "anthropic") and can_reach(settings, "openai")
    assert missing_keys(settings) == []


def test_an_empty_key_is_no_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "")
    assert not can_reach(load_settings({"provider": "auto"}), "openai")


def test_roles_moved_to_one_provider_need_only_its_key() -> None:
    settings = load_settings(
        {"provider": "auto", "generate_model": "openai:gpt-4.1", "validate_model": "gpt-4.1"}
    )
    assert missing_keys(settings) == ["OPENAI_API_KEY"]
    assert missing_keys(load_settings({"provider": "offline"})) == []
