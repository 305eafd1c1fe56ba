"""Claims in the app: the Output pane's answer lines with their verdicts and quote numbers,
the numbered evidence list, the Validation pane's verdict per line, and the session screen's
iteration detail; old traces without claims still show."""

from __future__ import annotations

import json
from typing import Any

from ralph_tui.events import RunFinished
from ralph_tui.evidence import Claim
from ralph_tui.traces.models import IterationTrace
from ralph_tui.tui.core.diffs import output_lines
from ralph_tui.tui.core.run_progress import RunProgress
from ralph_tui.tui.session_detail import iteration_content
from ralph_tui.tui.widgets.output_pane import OutputPane, candidate_text
from ralph_tui.tui.widgets.validation_pane import checks_content
from tests.tui.conftest import MakeApp, wait_for
from tests.tui.scripted import (
    DOC_NAME,
    QUESTION,
    T0,
    first_output,
    iteration_trace,
    scripted_events,
    scripted_runner,
)
from tests.tui.test_run_screen import SIZE, fill_form, run_screen

SESSION = "2026-01-01/qa-00000001"


def folded(count: int | None = None) -> RunProgress:
    progress = RunProgress()
    for event in scripted_events(SESSION)[:count]:
        progress.apply(event)
    return progress


def test_the_answer_shows_each_lines_verdict_quotes_and_what_is_missing() -> None:
    claims = [
        Claim(line=1, text="Filters wash every 48 hours.", quotes=[1], verdict="supported"),
        Claim(
            line=2,
            text="Alarms go far.",
            quotes=[2, 3],
            verdict="partly_supported",
            missing="how far",
        ),
        Claim(line=3, text="No quote here.", quotes=[]),
    ]
    output = {"answer": "- a\n- b\n- c", "evidence": ["q1", "q2", "q3"], "lineQuotes": []}
    text = candidate_text(output, claims=claims).plain
    assert text.splitlines() == [
        "answer",
        "✓ Filters wash every 48 hours.  [quote 1]",
        "◐ Alarms go far.  [quotes 2, 3]",
        "    missing: how far",
        "· No quote here.  [no quote]",
    ]
    assert "lineQuotes" not in text and "q1" not in text


def test_links_without_verdicts_show_as_the_candidate_gave_them() -> None:
    text = candidate_text(first_output()).plain
    assert "· Filters are backwashed weekly.  [quote 2]" in text
    assert "· Head loss triggers an early backwash.  [quote 1]" in text


def test_an_output_written_before_claims_shows_its_answer_as_written() -> None:
    old = {"answer": "- one\n- two", "evidence": ["q"]}
    assert candidate_text(old).plain == "answer\n- one\n- two"


def test_the_candidates_claims_follow_the_judge_and_the_reported_output() -> None:
    progress = folded()
    assert [c.verdict for c in progress.candidate_claims] == ["supported", "supported"]
    judged_first = next(
        i for i, e in enumerate(scripted_events(SESSION)) if e.type == "judge_verdict"
    )
    before_judge = folded(judged_first)
    assert [c.verdict for c in before_judge.candidate_claims] == [None, None]
    assert [c.quotes for c in before_judge.candidate_claims] == [[2], [1]]
    after_judge = folded(judged_first + 1)
    assert [c.verdict for c in after_judge.candidate_claims] == [
        "unsupported",
        "partly_supported",
    ]
    progress.apply(RunFinished(ts=T0 + 30, status="failed", iterations=2, output=first_output()))
    assert [c.verdict for c in progress.candidate_claims] == ["unsupported", "partly_supported"]


def test_validation_shows_a_verdict_per_line_and_only_the_answers_own_issues() -> None:
    progress = folded()
    failed = checks_content(progress.checks[1]).plain
    assert (
        "✗ line 1 unsupported: a weekly schedule: its quote is not in the document  [quote 2]"
        in failed
    )
    assert (
        "◐ line 2 partly supported: head loss: its quote speaks of 48 hours only  [quote 1]"
        in failed
    )
    assert "judge  2 issues" in failed
    assert "Line 1 is unsupported" not in failed, "a line's issue is shown once, as its verdict"
    passed = checks_content(progress.checks[2]).plain
    assert "✓ line 1 supported  [quote 1]" in passed and "✓ line 2 supported  [quote 2]" in passed


def test_the_session_detail_shows_claims_numbered_quotes_and_verdicts() -> None:
    trace = iteration_trace(1, passed=False)
    text = iteration_content(trace, None).plain
    assert "✗ Filters are backwashed weekly.  [quote 2]" in text
    assert "    missing: a weekly schedule: its quote is not in the document" in text
    assert (
        "   1 ? Each filter is backwashed" in text and "   2 ? Filters are backwashed every" in text
    )
    assert "✗ line 1 unsupported" in text


def test_an_iteration_file_written_before_claims_reads_and_shows_the_judges_issues() -> None:
    written = {
        "iteration": 1,
        "query": QUESTION,
        "constraints": [],
        "output": {"answer": "- Filters are backwashed weekly.", "evidence": ["q"]},
        "hardValidation": {"ok": True, "rules": []},
        "judge": {"ok": False, "issues": ["The weekly claim is not supported."]},
        "passed": False,
    }
    trace = IterationTrace.model_validate_json(json.dumps(written))
    assert trace.claims == []
    text = iteration_content(trace, None).plain
    assert "- Filters are backwashed weekly." in text
    assert "    • The weekly claim is not supported." in text


async def test_the_run_screen_shows_the_claims_after_a_run(make_app: MakeApp) -> None:
    app = make_app(runner=scripted_runner())
    async with app.run_test(size=SIZE) as pilot:
        screen = run_screen(app)
        await fill_form(screen, QUESTION, DOC_NAME)
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: screen.monitor.progress.outcome == "passed")
        await wait_for(pilot, lambda: not screen.running)
        output: Any = screen.monitor.query_one(OutputPane)
        assert [c.verdict for c in output.claims] == ["supported", "supported"]
        shown = output.output_as_text()
        assert "✓ Each filter is backwashed after 48 hours in service.  [quote 1]" in shown
        assert "\n2. A filter is backwashed earlier" in shown


def test_the_diff_names_each_lines_quotes() -> None:
    lines = output_lines(
        {"answer": "- a\n- b", "evidence": ["q1", "q2"], "lineQuotes": [[1], [1, 2]]}
    )
    assert lines[-3:] == ["## lineQuotes", "- line 1: quote 1", "- line 2: quotes 1, 2"]
