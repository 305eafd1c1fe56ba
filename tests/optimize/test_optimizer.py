"""The optimizer: the evaluator on a hand-built out dir, the Pareto front, the variant store
and its precedence, bad input, and the closed loop with the offline provider."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ralph_tui.cli import run_cli
from ralph_tui.config import setting_specs
from ralph_tui.optimize.evaluator import evaluate
from ralph_tui.optimize.pareto import Candidate, pareto_front
from ralph_tui.traces.models import IterationTrace, SessionRecord
from ralph_tui.traces.store import TraceStore
from ralph_tui.variants.store import Variant, VariantStore, apply_variant, resolve_variant
from tests.llm.llm_wire import make_settings
from tests.loops.baseline_server import LOCAL_MODELS, BaselineServer, use_server

SAMPLE = Path(__file__).parents[2] / "ralph_tui" / "data" / "sample_document.md"


def session(
    store: TraceStore, variant: str | None, status: str, seconds: float, issues: list[int],
    cost: float | None = 0.01,
) -> None:  # fmt: skip
    settings = {"variant": variant} if variant else {}
    handle = store.create_session(SessionRecord(mode="qa", query="q", settings=settings))
    for n, count in enumerate(issues, 1):
        handle.write_iteration(
            IterationTrace.model_validate(
                {"iteration": n, "passed": status == "passed" and n == len(issues),
                 "judge": {"ok": not count, "issues": [f"issue {i}" for i in range(count)]}}
            )
        )  # fmt: skip
    handle.finish(status, duration_ms=seconds * 1000, input_tokens=10, output_tokens=5,
                  cost_usd=cost)  # fmt: skip


def test_the_evaluator_measures_each_variant_from_its_sessions(tmp_path: Path) -> None:
    store = TraceStore(tmp_path)
    session(store, None, "passed", 10, [0])
    session(store, None, "failed", 30, [2, 1])
    session(store, "v1", "passed", 5, [0], cost=None)
    session(store, "v1", "cancelled", 99, [0])  # not finished on its own: not counted
    figures = evaluate(store)
    base, v1 = figures["baseline"], figures["v1"]
    assert (base.sessions, base.pass_rate, base.mean_latency_s) == (2, 0.5, 20.0)
    assert base.issue_density == pytest.approx(3 / 3) and base.retries == 0.5
    assert base.cost_per_session == pytest.approx(0.01) and base.cost_per_pass == pytest.approx(
        0.02
    )
    assert base.p90_latency_s == pytest.approx(28.0) and base.provisional
    assert v1.sessions == 1 and v1.cost_per_pass is None  # a price unknown: unknown


def test_the_pareto_front_keeps_what_nothing_beats() -> None:
    a = Candidate("a", 0.9, 10.0, 0.05)
    b = Candidate("b", 0.8, 5.0, 0.05)
    c = Candidate("c", 0.7, 12.0, 0.05)  # worse than a everywhere
    d = Candidate("d", 0.9, 10.0, None)  # cost unknown: compared as equal to a
    assert [x.variant for x in pareto_front([a, b, c, d])] == ["a", "d", "b"]


def test_a_variant_fills_only_what_the_command_line_and_env_left(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = VariantStore(tmp_path)
    variant = store.save(Variant(id="v1", knobs={"max_iters": 7, "worker_max_steps": 9},
                                 prompts={"worker": "Answer tersely."}))  # fmt: skip
    monkeypatch.setenv("RALPH_WORKER_MAX_STEPS", "20")
    settings = apply_variant(make_settings(out_dir=tmp_path, temperature=0.5), variant)
    assert (settings.max_iters, settings.worker_max_steps) == (7, 20)  # env beats the variant
    assert settings.role_prompts == {"worker": "Answer tersely."} and settings.variant == "v1"
    assert settings.temperature == 0.5
    assert resolve_variant(make_settings(out_dir=tmp_path)).variant is None  # none active
    store.activate("v1")
    assert resolve_variant(make_settings(out_dir=tmp_path)).max_iters == 7
    baseline = resolve_variant(make_settings(out_dir=tmp_path, variant="baseline"))
    assert baseline.variant is None and baseline.max_iters == 4
    assert json.loads((tmp_path / "variants" / "v1.json").read_text())["knobs"]["max_iters"] == 7


def test_optimize_without_sessions_says_what_to_run_first(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_cli(["optimize", "--out", str(tmp_path)]) == 2
    assert "no finished sessions" in capsys.readouterr().err
    assert run_cli(["run", "--optimize", "--out", str(tmp_path)]) == 2
    assert "ralph-tui eval --suite sample" in capsys.readouterr().err


def test_an_unknown_variant_is_refused_with_the_list(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    VariantStore(tmp_path).save(Variant(id="v1"))
    code = run_cli(["run", "--provider", "offline", "--mode", "qa", "--query", "q", "--doc",
                    str(SAMPLE), "--out", str(tmp_path), "--variant", "v9"])  # fmt: skip
    assert code == 2 and "no variant 'v9'; the variants: v1" in capsys.readouterr().err
    assert not (tmp_path / "sessions").exists()


UNANSWERABLE = "What is the salary of the chief executive's chauffeur?"


def run_qa(out: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> dict[str, object]:
    """A question the handbook does not answer: the offline baseline fails it honestly."""
    code = run_cli(["run", "--provider", "offline", "--mode", "qa", "--json", "--out", str(out),
                    "--query", UNANSWERABLE, "--doc", str(SAMPLE), *extra])  # fmt: skip
    assert code in (0, 1)
    result: dict[str, object] = json.loads(capsys.readouterr().out)
    return result


def optimize_json(out: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    assert run_cli(["optimize", "--out", str(out), "--json"]) == 0
    result: dict[str, object] = json.loads(capsys.readouterr().out)
    return result


def test_the_closed_loop_replaces_projections_with_measured_figures(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for _ in range(3):
        run_qa(tmp_path, capsys)
    first = optimize_json(tmp_path, capsys)
    rows = {row["variant"]: row for row in first["variants"]}  # type: ignore[attr-defined]
    assert rows["baseline"]["measured"] and rows["baseline"]["sessions"] == 3
    active = str(first["active"])
    assert active in first["proposed"] and rows[active]["provisional"]  # type: ignore[operator]
    assert not rows[active]["measured"] and rows[active]["pareto"]

    result = run_qa(tmp_path, capsys)
    record = TraceStore(tmp_path).load_session(str(result["sessionId"]))
    assert record.settings["variant"] == active  # the run used and recorded the active one
    traces = TraceStore(tmp_path).iterations(record.session_id)
    assert traces and all(trace.model_dump()["variant"] == active for trace in traces)
    recorded = {s.name: s.record_key for s in setting_specs().values() if s.recorded}
    knobs = rows[active]["knobs"]
    assert knobs and any(knob in recorded for knob in knobs)
    for knob, value in knobs.items():
        if knob in recorded:
            assert record.settings[recorded[knob]] == value, knob

    second = optimize_json(tmp_path, capsys)
    now = {row["variant"]: row for row in second["variants"]}  # type: ignore[attr-defined]
    assert now[active]["measured"] and now[active]["sessions"] == 1
    assert now[active]["provisional"]  # one session: measured, but still provisional


def test_a_variant_words_the_roles_it_names(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    server = BaselineServer()
    use_server(monkeypatch, server)
    prompts = {"worker": "WORKER-X: answer from the handbook.", "judge": "JUDGE-X: be strict."}
    VariantStore(tmp_path).save(Variant(id="vwords", prompts=prompts))
    code = run_cli(["run", "--mode", "qa", "--query", "How often are the filters backwashed?",
                    "--doc", str(SAMPLE), "--out", str(tmp_path), "--variant", "vwords",
                    "--maxIters", "1", "--embedder", "offline", *LOCAL_MODELS])  # fmt: skip
    assert code == 0, capsys.readouterr().err
    worker_system = server.bodies["worker"][0]["messages"][0]["content"]
    judge_system = server.bodies["judge"][0]["messages"][0]["content"]
    assert worker_system.startswith("WORKER-X: answer from the handbook.")
    assert judge_system == "JUDGE-X: be strict."


def test_variants_are_compared_on_the_sessions_of_the_evals_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = str(tmp_path)
    VariantStore(tmp_path).save(Variant(id="vone", change="one iteration",
                                        knobs={"max_iters": 1}))  # fmt: skip
    run_qa(tmp_path, capsys)  # a session outside the evals: not counted below
    for eval_id, variant in (("base", "baseline"), ("one", "vone")):
        run_cli(["eval", "--suite", "sample", "--provider", "offline", "--out", out,
                 "--id", eval_id, "--variant", variant])  # fmt: skip
    capsys.readouterr()
    assert run_cli(["optimize", "--out", out, "--eval", "base", "--eval", "one",
                    "--propose", "0", "--json"]) == 0  # fmt: skip
    rows = {r["variant"]: r for r in json.loads(capsys.readouterr().out)["variants"]}
    assert rows["baseline"]["sessions"] == 6 and rows["vone"]["sessions"] == 6
    assert rows["vone"]["retries"] == 0.0  # one iteration each: the knob applied
    assert run_cli(["optimize", "--out", out, "--eval", "nope"]) == 2
    assert "no eval 'nope'; the evals: one, base" in capsys.readouterr().err
