"""The run's status line: what it says of the sandbox's isolation and of what the sub-call
cache saved; and a cached sub-call in the transcript."""

from __future__ import annotations

from ralph_tui.events import SandboxExecuted, SubQuery, UsageUpdated
from ralph_tui.tui.core.run_progress import RunProgress
from ralph_tui.tui.widgets.sandbox_pane import sub_query_content
from ralph_tui.tui.widgets.status_line import status_content
from tests.tui.scripted import T0, scripted_events

SESSION = "2026-01-01/qa-00000001"


def status_with_isolation(isolation: str) -> str:
    progress = RunProgress()
    progress.apply(scripted_events(SESSION)[0])
    progress.apply(
        SandboxExecuted(
            agent="worker", step=1, code="1", output="", duration_ms=1, isolation=isolation
        )
    )
    return status_content(progress, now=T0 + 5).plain


def test_full_isolation_is_named_plainly() -> None:
    assert status_with_isolation("bwrap").endswith("  sandbox bwrap")


def test_a_degraded_sandbox_is_a_warning() -> None:
    for isolation in ("unshare-net", "rlimits-only"):
        assert f"sandbox {isolation}: not fully isolated" in status_with_isolation(isolation)


def test_what_the_sub_call_cache_saved_is_shown_once_it_saved_anything() -> None:
    progress = RunProgress()
    progress.apply(scripted_events(SESSION)[0])
    assert "saved" not in status_content(progress, now=T0 + 5).plain
    progress.apply(
        UsageUpdated(
            input_tokens=5000,
            output_tokens=300,
            calls=4,
            cost_usd=0.0021,
            saved_calls=3,
            saved_input_tokens=3000,
            saved_output_tokens=90,
            saved_cost_usd=0.0012,
        )
    )
    assert "  $0.0021  saved 3 calls $0.0012  " in status_content(progress, now=T0 + 5).plain


def test_a_cached_sub_call_is_marked_in_the_transcript() -> None:
    asked = SubQuery(
        agent="worker", prompt_preview="Which year?", answer_preview="1998", latency_ms=2
    )
    assert "cached, not paid" not in sub_query_content(asked).plain
    cached = asked.model_copy(update={"cached": True, "input_tokens": 120, "output_tokens": 4})
    assert "llm_query  cached, not paid  2 ms  120→4 tok" in sub_query_content(cached).plain


def test_the_status_line_says_what_is_estimated_and_what_cost_is_unknown() -> None:
    """A server that reports no usage, a model without a price: never ``$0.0000`` alone."""
    progress = RunProgress()
    progress.apply(scripted_events(SESSION)[0])
    progress.apply(
        UsageUpdated(
            input_tokens=4200,
            output_tokens=210,
            calls=3,
            cost_usd=0.0004,
            unknown_cost_calls=2,
            estimated_calls=2,
        )
    )
    line = status_content(progress, now=T0 + 5).plain
    assert "  tok 4.2k/210 estimated  $0.0004 + unknown  " in line
    progress.apply(UsageUpdated(input_tokens=4200, output_tokens=210, calls=3, cost_usd=None))
    assert "  tok 4.2k/210  cost unknown  " in status_content(progress, now=T0 + 5).plain


def test_the_status_line_counts_live_child_agents_once_one_started() -> None:
    from ralph_tui.events import ChildFinished, ChildStarted

    progress = RunProgress()
    progress.apply(scripted_events(SESSION)[0])
    assert "children" not in status_content(progress, now=T0 + 5).plain
    for n in (1, 2):
        progress.apply(
            ChildStarted(
                agent="worker", child=f"worker/1.{n}", step=1, depth=2, prompt_preview="q",
                context="1 document: a.md", calls_used=n, calls_budget=60,
            )
        )  # fmt: skip
    progress.apply(
        ChildFinished(agent="worker", child="worker/1.1", step=1, depth=2, status="answered")
    )
    shown = status_content(progress, now=T0 + 5).plain
    assert "  sub 2/60  children 1 live, 1 done  " in shown
