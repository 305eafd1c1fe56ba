"""The command line's progress lines say whose step a count is: the worker's and a judge's
steps count against different budgets."""

from __future__ import annotations

import io
from datetime import UTC, datetime

from ralph_tui.events import AgentStep, PhaseFinished, PhaseStarted
from ralph_tui.progress_lines import ProgressPrinter

T0 = datetime(2026, 1, 1, tzinfo=UTC).timestamp()


def test_the_status_names_the_agent_whose_step_it_counts() -> None:
    out = io.StringIO()
    printer = ProgressPrinter(out, verbose=True)
    assert printer.status().startswith("no step yet, sub-calls 0")
    printer(AgentStep(ts=T0, agent="worker", step=2, max_steps=80, action="code"))
    printer(PhaseFinished(ts=T0, phase="worker", iteration=1, duration_ms=500))
    printer(AgentStep(ts=T0, agent="judge", step=1, max_steps=4, action="output"))
    printer(PhaseFinished(ts=T0, phase="judge", iteration=1, duration_ms=20))
    lines = out.getvalue().splitlines()
    assert lines[0] == "    worker step 2/80: code"
    assert "; worker step 2/80, sub-calls 0" in lines[1]
    assert lines[2] == "    judge step 1/4: output"
    assert "; judge step 1/4, sub-calls 0" in lines[3]


def test_a_phase_without_steps_says_no_other_phases_step() -> None:
    out = io.StringIO()
    printer = ProgressPrinter(out)
    printer(PhaseStarted(ts=T0, phase="reasoner", iteration=1))
    printer(AgentStep(ts=T0, agent="reasoner", step=1, max_steps=4, action="output"))
    printer(PhaseFinished(ts=T0, phase="reasoner", iteration=1, duration_ms=20))
    printer(PhaseStarted(ts=T0, phase="memory", iteration=1))
    printer(PhaseFinished(ts=T0, phase="memory", iteration=1, duration_ms=5))
    lines = out.getvalue().splitlines()
    assert "reasoner done in 0.0 s; reasoner step 1/4, sub-calls 0" in lines[1]
    assert lines[3].startswith("  memory done in 0.0 s; sub-calls 0, "), lines[3]


def test_a_count_names_its_noun_in_the_right_number() -> None:
    from ralph_tui.counts import counted, noun_for

    assert [counted(n, "call") for n in (0, 1, 2, 1204)] == [
        "0 calls",
        "1 call",
        "2 calls",
        "1,204 calls",
    ]
    assert counted(2, "entry", "entries") == "2 entries"
    assert (
        counted(1.5, "iteration") == "1.5 iterations" and counted(1.0, "iteration") == "1 iteration"
    )
    assert noun_for(1, "page") == "page" and noun_for(3, "page") == "pages"
