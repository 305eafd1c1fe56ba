"""The estimate as a pure function: figures per mode and role, unknown prices, caps, the
structural worst case, and the calibration past sessions give."""

from __future__ import annotations

import time
from dataclasses import replace
from typing import get_args

import pytest

from ralph_tui.config import InnerChoice, Settings
from ralph_tui.estimates import PastRun, estimate_run, inner_modes, plan_of
from ralph_tui.estimates.spend import RunPlan, run_spend, turn_inputs

QUESTION = "How often are the filters backwashed?"


def plan(**settings: object) -> RunPlan:
    return plan_of(Settings(_env_file=None, **settings), "qa", QUESTION, 40_000)  # type: ignore[arg-type]


def test_every_inner_mode_is_estimated_and_the_settings_one_marked() -> None:
    estimate = estimate_run(plan(), inner="lcm", cost_cap_usd=None, token_cap=None)
    modes = [m.mode for m in estimate.modes]
    declared = [m for m in get_args(InnerChoice) if m != "auto"]
    assert sorted(modes) == sorted(declared)
    assert [m.mode for m in estimate.modes if m.selected] == ["lcm"]
    assert estimate.selected is not None and estimate.selected.mode == "lcm"
    for mode in estimate.modes:
        assert mode.basis == "settings only"
        assert 0 < mode.expected.tokens < mode.worst.tokens
        assert mode.expected.cost_usd is not None and mode.expected.cost_usd > 0


@pytest.mark.parametrize(
    ("doc_chars", "window", "picked"),
    [(40_000, 200_000, "direct"), (500_000, 200_000, "lcm"), (2_000_000, 200_000, "rlm")],
)
def test_auto_marks_the_mode_its_rule_picks_and_says_why(
    doc_chars: int, window: int, picked: str
) -> None:
    settings = Settings(_env_file=None, context_window=window)  # type: ignore[call-arg]
    estimate = estimate_run(
        plan_of(settings, "qa", QUESTION, doc_chars), inner="auto", cost_cap_usd=None,
        token_cap=None,
    )  # fmt: skip
    assert [m.mode for m in estimate.modes if m.selected] == [picked]
    assert estimate.inner_reason.startswith("auto: the documents")
    assert f"{window:,}-token window" in estimate.inner_reason


def test_an_unknown_price_is_cost_unknown_never_zero() -> None:
    local = plan(generate_model="openai:qwen2.5:7b", validate_model="openai:qwen2.5:7b")
    estimate = estimate_run(local, inner="rlm", cost_cap_usd=None, token_cap=None)
    rlm = estimate.of_mode("rlm")
    assert rlm.expected.cost_usd is None and rlm.worst.cost_usd is None
    assert rlm.expected.describe_cost() == "cost unknown"
    assert rlm.expected.unknown_price == ["openai:qwen2.5:7b"]
    assert rlm.expected.input_tokens > 0 and rlm.worst.output_tokens > 0
    priced = plan(
        generate_model="openai:qwen2.5:7b",
        validate_model="openai:qwen2.5:7b",
        prices="openai:qwen2.5:7b=1/2",
    )
    known = estimate_run(priced, inner="rlm", cost_cap_usd=None, token_cap=None).of_mode("rlm")
    expected = known.expected
    assert expected.cost_usd == pytest.approx(
        (expected.input_tokens * 1 + expected.output_tokens * 2) / 1e6, rel=1e-3
    )


def test_an_unknown_price_under_a_cost_cap_says_the_cap_cannot_stop_it() -> None:
    local = plan(generate_model="openai:qwen2.5:7b", validate_model="openai:qwen2.5:7b")
    rlm = estimate_run(local, inner="rlm", cost_cap_usd=5.0, token_cap=None).of_mode("rlm")
    assert [stop.cap for stop in rlm.cap_stops] == ["cost"]
    assert rlm.cap_stops[0].at_most is None and "cannot stop it" in rlm.cap_stops[0].message


def test_the_worst_case_is_every_iteration_step_and_sub_call_the_settings_allow() -> None:
    small = plan(max_iters=2, worker_max_steps=10, worker_max_llm_calls=5)
    worst = {s.role: s for s in run_spend(small, "rlm", small.max_iters, worst=True)}
    assert worst["worker"].calls == 2 * (10 + 1)  # every step, and the salvage call
    assert worst["sub"].calls == 2 * 5
    assert worst["worker"].output_tokens == 2 * 11 * 2048
    doubled = run_spend(replace(small, max_iters=4), "rlm", 4, worst=True)
    assert sum(s.input_tokens for s in doubled) == pytest.approx(
        2 * sum(s.input_tokens for s in worst.values())
    )
    # No prompt passes the model's context budget, however many steps.
    long = plan(worker_max_steps=500, context_window=20_000)
    worker = next(s for s in run_spend(long, "rlm", 1, worst=True) if s.role == "worker")
    assert worker.input_tokens <= 501 * 20_000


def test_a_cap_below_the_worst_case_says_where_it_stops_the_run() -> None:
    estimate = estimate_run(plan(), inner="rlm", cost_cap_usd=0.5, token_cap=100_000)
    rlm = estimate.of_mode("rlm")
    assert rlm.worst.cost_usd is not None and rlm.worst.cost_usd > 0.5
    caps = {stop.cap: stop for stop in rlm.cap_stops}
    assert set(caps) == {"cost", "tokens"}
    cost_at_most = caps["cost"].at_most
    assert cost_at_most is not None and 0.5 <= cost_at_most < rlm.worst.cost_usd
    assert "$0.50 cost cap stops it" in caps["cost"].message
    generous = estimate_run(plan(), inner="rlm", cost_cap_usd=1e6, token_cap=None)
    assert generous.of_mode("rlm").cap_stops == [] and generous.cap_warning() is None


def test_only_a_run_expected_to_reach_its_cap_asks_first() -> None:
    rlm = estimate_run(plan(), inner="rlm", cost_cap_usd=None, token_cap=None).of_mode("rlm")
    expected = rlm.expected.cost_usd
    assert expected is not None and rlm.worst.cost_usd is not None
    # The worst case passes the cap, the expected figure does not: the cap guards, no question.
    above = estimate_run(plan(), inner="rlm", cost_cap_usd=expected * 1.5, token_cap=None)
    assert above.of_mode("rlm").cap_stops and above.cap_warning() is None
    below = estimate_run(plan(), inner="rlm", cost_cap_usd=expected * 0.5, token_cap=None)
    warning = below.cap_warning()
    assert warning is not None and "rlm" in warning and "likely stop capped" in warning
    assert below.caps_reached() == [f"the ${expected * 0.5:.2f} cost cap"]
    tokens = estimate_run(plan(), inner="rlm", cost_cap_usd=None, token_cap=rlm.expected.tokens)
    assert tokens.caps_reached() == [f"the {rlm.expected.tokens:,}-token cap"]


def test_direct_puts_the_documents_in_the_prompt_and_says_when_they_do_not_fit() -> None:
    small, large = plan_of(Settings(_env_file=None), "qa", QUESTION, 8_000), plan()
    grows = [
        estimate_run(p, inner="rlm", cost_cap_usd=None, token_cap=None).of_mode("direct")
        for p in (small, large)
    ]
    assert grows[1].expected.input_tokens > grows[0].expected.input_tokens + 2 * 7_000
    huge = plan_of(Settings(_env_file=None), "qa", QUESTION, 4_000_000)
    direct = estimate_run(huge, inner="rlm", cost_cap_usd=None, token_cap=None).of_mode("direct")
    assert not direct.fits and "do not fit" in direct.notes[0]


def test_past_sessions_calibrate_the_expected_figures_and_say_so() -> None:
    base = plan()
    modelled = run_spend(base, "rlm", 3, worst=False)
    spent_in = 2 * sum(s.input_tokens for s in modelled)
    spent_out = 3 * sum(s.output_tokens for s in modelled)
    past = [PastRun(base.doc_chars, base.query_chars, 3, round(spent_in), round(spent_out))] * 3
    estimate = estimate_run(
        base, inner="rlm", cost_cap_usd=None, token_cap=None, past={"rlm": past}
    )
    rlm, lcm = estimate.of_mode("rlm"), estimate.of_mode("lcm")
    assert rlm.basis == "3 past sessions" and lcm.basis == "settings only"
    assert rlm.expected_iterations == 3
    assert rlm.expected.input_tokens == pytest.approx(spent_in, rel=0.01)
    assert rlm.expected.output_tokens == pytest.approx(spent_out, rel=0.01)
    # The worst case is structural: past sessions do not lower it.
    assert (
        rlm.worst
        == estimate_run(base, inner="rlm", cost_cap_usd=None, token_cap=None).of_mode("rlm").worst
    )


def test_the_mode_list_follows_the_declared_setting() -> None:
    assert set(inner_modes()) >= {m for m in get_args(InnerChoice) if m != "auto"}


def test_large_budgets_are_arithmetic_not_a_loop() -> None:
    huge = plan(max_iters=10_000, worker_max_steps=10**9, worker_max_llm_calls=10**9)
    started = time.perf_counter()
    estimate = estimate_run(huge, inner="rlm", cost_cap_usd=5.0, token_cap=None)
    assert time.perf_counter() - started < 1.0
    worst = estimate.of_mode("rlm").worst
    assert worst.calls > 10**12 and worst.cost_usd is not None and worst.cost_usd > 1e6


def test_prompt_sums_match_turn_by_turn() -> None:
    for first, turns, growth, limit in [(100, 10, 30, 250), (300, 5, 10, 200), (50, 7, 0, 60)]:
        by_turn = sum(min(limit, first + k * growth) for k in range(turns))
        assert turn_inputs(first, turns, growth, limit) == pytest.approx(by_turn)


def test_only_telling_sessions_of_the_same_models_and_mode_speak_for_a_run() -> None:
    from ralph_tui.config import recorded_settings
    from ralph_tui.estimates.history import matches
    from ralph_tui.traces.models import SessionRecord

    settings = Settings(_env_file=None)
    recorded = recorded_settings(settings)

    def record(**changes: object) -> SessionRecord:
        fields: dict[str, object] = {"mode": "qa", "query": "q", "status": "failed"}
        fields.update(changes)
        return SessionRecord(**fields, settings=recorded)  # type: ignore[arg-type]

    assert matches(record(), settings, "rlm")
    assert not matches(record(), settings, "lcm")
    assert not matches(record(status="cancelled"), settings, "rlm")
    assert not matches(record(subtask_of="2026-01-01/task-1"), settings, "rlm")
    other = Settings(_env_file=None, generate_model="anthropic:claude-haiku-4-5")
    assert not matches(record(), other, "rlm")


def test_direct_makes_no_sub_call_and_is_never_compacted() -> None:
    big = plan_of(Settings(_env_file=None, context_window=60_000), "qa", QUESTION, 160_000)
    roles = {s.role: s for s in run_spend(big, "direct", 1, worst=True)}
    assert "sub" not in roles and "compactor" not in roles
    # Every prompt holds the documents, and none passes the window.
    worker = roles["worker"]
    assert 40_000 * worker.calls <= worker.input_tokens <= 60_000 * worker.calls
