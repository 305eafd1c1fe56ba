"""The inner modes, each described once (the setting's doc, its flag's choices and the app's
form read the same table), and ``auto``'s one rule."""

from __future__ import annotations

from typing import get_args

import pytest

from ralph_tui.config import InnerChoice, setting_specs
from ralph_tui.config.inner_modes import (
    ANSWER_ROOM_TOKENS,
    INNER_MODES,
    DirectDoesNotFit,
    choose_inner,
    resolve_inner,
)
from ralph_tui.llm.factory import build_clients
from ralph_tui.llm.roles import role_window
from ralph_tui.llm.tokens import document_tokens
from tests.llm.llm_wire import make_settings


def test_every_mode_is_described_once_and_the_setting_reads_the_descriptions() -> None:
    assert list(INNER_MODES) == list(get_args(InnerChoice))
    spec = setting_specs()["inner"]
    assert list(spec.choices or []) == list(INNER_MODES)
    for mode, what in INNER_MODES.items():
        assert f"`{mode}`: {what}" in spec.doc


@pytest.mark.parametrize(
    ("tokens", "window", "mode"),
    [
        (100_000, 200_000, "direct"),
        (100_001, 200_000, "lcm"),
        (200_000 - ANSWER_ROOM_TOKENS, 200_000, "lcm"),
        (200_000 - ANSWER_ROOM_TOKENS + 1, 200_000, "rlm"),
        (4_000, 8_192, "rlm"),  # under half the window, but no room left for the answer
        (0, 32_768, "direct"),
    ],
)
def test_auto_picks_by_the_share_of_the_window(tokens: int, window: int, mode: str) -> None:
    pick = choose_inner(tokens, window)
    assert (pick.mode, pick.chosen_by) == (mode, "auto")
    assert f"{window:,}-token window" in pick.reason


def test_a_named_mode_is_kept_and_direct_is_refused_when_it_does_not_fit() -> None:
    assert resolve_inner("lcm", 10**9, 8_192).mode == "lcm"
    assert resolve_inner("direct", 1_000, 8_192).mode == "direct"
    with pytest.raises(DirectDoesNotFit, match="8,192-token context window"):
        resolve_inner("direct", 8_192 - ANSWER_ROOM_TOKENS + 1, 8_192)


def test_the_size_estimate_counts_a_token_per_character_outside_ascii() -> None:
    assert document_tokens("abcd" * 10) == 10
    assert document_tokens("水" * 10) == 10
    assert document_tokens("") == 0


@pytest.mark.parametrize(
    "values",
    [
        {"generate_model": "claude-sonnet-4-6", "anthropic_api_key": "k", "openai_api_key": "k"},
        {"generate_model": "openai:gpt-4o-mini", "openai_api_key": "k"},
        {"generate_model": "openai:qwen2.5:7b", "openai_base_url": "http://127.0.0.1:1/v1"},
        {"provider": "offline"},
        {"provider": "offline", "context_window": 9_000},
        {"generate_model": "claude-sonnet-4-6", "anthropic_api_key": "k",
         "openai_api_key": "k", "context_window": 50_000},
    ],
)  # fmt: skip
def test_the_window_from_the_settings_is_the_one_the_client_reports(values: dict) -> None:
    settings = make_settings(**values)
    clients = build_clients(settings)
    assert role_window(settings) == clients.generate.context_window_tokens
