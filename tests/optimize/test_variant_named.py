"""The variant a run uses is named wherever its settings are shown, a projection never
displaces a measured variant, and a knob the provider ignores is never proposed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ralph_tui.cli import run_cli
from ralph_tui.events import RunStarted
from ralph_tui.optimize.evaluator import VariantFigures
from ralph_tui.optimize.pareto import Candidate, pareto_front
from ralph_tui.optimize.propose import propose
from ralph_tui.tui.core.run_progress import RunProgress
from ralph_tui.tui.widgets.status_line import status_content
from ralph_tui.variants.store import Variant, VariantStore
from tests.llm.llm_wire import make_settings

SAMPLE = Path(__file__).parents[2] / "ralph_tui" / "data" / "sample_document.md"


def test_the_header_and_sessions_show_name_the_active_variant(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = VariantStore(tmp_path)
    store.save(Variant(id="vshort", change="one iteration", knobs={"max_iters": 1}))
    store.activate("vshort")
    code = run_cli(["run", "--provider", "offline", "--mode", "qa", "--json", "--out",
                    str(tmp_path), "--query", "How often are the filters backwashed?",
                    "--doc", str(SAMPLE)])  # fmt: skip
    captured = capsys.readouterr()
    assert code in (0, 1)
    [header] = [line for line in captured.err.splitlines() if line.startswith("session ")]
    assert ", variant vshort," in header or header.endswith(", variant vshort")
    session_id = json.loads(captured.out)["sessionId"]

    assert run_cli(["sessions", "show", session_id, "--out", str(tmp_path)]) == 0
    [settings] = [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("settings:")]
    assert settings == "settings: variant vshort, models offline, maxIters 1"
    assert run_cli(["sessions", "show", session_id, "--out", str(tmp_path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["variant"] == "vshort"


def test_the_app_status_line_names_the_variant() -> None:
    progress = RunProgress()
    started = RunStarted(mode="qa", query="q", doc_path="d", doc_chars=1, max_iters=1,
                         generate_model="g", validate_model="v", session_id="2026-01-01/qa-1",
                         variant="vshort")  # fmt: skip
    progress.apply(started)
    assert "  qa  variant vshort  iter" in status_content(progress).plain
    progress.apply(started.model_copy(update={"variant": None}))
    assert "variant" not in status_content(progress).plain


def test_a_projection_never_pushes_a_measured_variant_off_the_front() -> None:
    figures = VariantFigures("baseline", 3, 0.5, 10.0, 12.0, 1.0, 0.5, 0.01, 0.02)
    measured = Candidate("baseline", 0.5, 10.0, 0.01, figures)
    projected = Candidate("vguess", 0.6, 8.0, 0.01)  # better everywhere, on paper
    assert [c.variant for c in pareto_front([measured, projected])] == ["vguess", "baseline"]
    worse_guess = Candidate("vworse", 0.55, 9.0, 0.01)
    assert "vworse" not in [c.variant for c in pareto_front([projected, worse_guess])]
    measured_better = Candidate("vbest", 0.9, 5.0, 0.005, figures)
    assert [c.variant for c in pareto_front([measured, measured_better])] == ["vbest"]


def figures_with_room() -> VariantFigures:
    """Figures every move is useful for: failures, retries and judge issues."""
    return VariantFigures("baseline", 3, 0.5, 10.0, 12.0, 1.0, 1.0, 0.01, 0.02)


def test_temperature_is_not_proposed_to_a_provider_that_ignores_it() -> None:
    for settings in (
        make_settings(provider="offline"),
        make_settings(generate_model="anthropic:claude-sonnet-4-6"),
        make_settings(generate_model="openai:gpt-5.4-mini"),
    ):
        knobs = {
            k for v in propose(None, figures_with_room(), settings, set(), 10) for k in v.knobs
        }
        assert knobs and "temperature" not in knobs, settings.generate_model
    local = make_settings(generate_model="openai:qwen2.5:7b")
    proposed = propose(None, figures_with_room(), local, set(), 10)
    assert any(v.knobs.get("temperature") == 0.2 for v in proposed)
