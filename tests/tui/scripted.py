"""Deterministic runs and sessions for the TUI tests (fixed timestamps, fixed content).

``scripted_events`` is a two-iteration QA run whose first iteration fails the judge;
``write_fixture_sessions`` records it and a few more sessions with ``TraceStore`` so
the browser and session screens show the same thing on every machine. Importable by
a subprocess (the "written by another process" test).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from ralph_tui.events import (
    AgentStep,
    BaseEvent,
    CandidateProduced,
    Emit,
    HardValidation,
    IterationFinished,
    IterationStarted,
    JudgeIssue,
    JudgeVerdict,
    PhaseFinished,
    PhaseStarted,
    RuleResult,
    RunFinished,
    RunStarted,
    SandboxExecuted,
    SubQuery,
    UsageUpdated,
)
from ralph_tui.loops.runner import RunOutcome, RunRequest
from ralph_tui.traces.models import CacheSaving, IterationTrace, SessionRecord
from ralph_tui.traces.store import SessionHandle, TraceStore
from ralph_tui.validate.claims import Judgement, LineJudgement, claims_of, judge_claims

T0 = 1_767_225_600.0
"""2026-01-01 00:00 UTC: every fixture timestamp counts from here."""
DOC_NAME = "handbook.md"
QUESTION = "How often are the filters backwashed, and what triggers an early backwash?"
VERIFIED_QUOTE = "Each filter is backwashed after 48 hours in service."
UNVERIFIED_QUOTE = "Filters are backwashed every Tuesday."
TRIGGER_QUOTE = (
    "A filter is backwashed earlier if its head loss reaches 2.1 metres, or if its outlet"
    " turbidity stays above 0.2 NTU for 15 minutes, whichever comes first."
)
FIRST_CONSTRAINTS = ["Quote the document verbatim: every evidence quote must appear in it."]
CODE = "hits = [s for s in sentences if 'backwash' in s]\nprint(len(hits), hits[:2])"


def first_output() -> dict[str, object]:
    return {
        "answer": "- Filters are backwashed weekly.\n- Head loss triggers an early backwash.",
        "evidence": [VERIFIED_QUOTE, UNVERIFIED_QUOTE],
        "lineQuotes": [[2], [1]],
    }


def second_output() -> dict[str, object]:
    return {
        "answer": "- Each filter is backwashed after 48 hours in service.\n"
        "- High head loss or turbidity triggers an early backwash.",
        "evidence": [VERIFIED_QUOTE, TRIGGER_QUOTE],
        "lineQuotes": [[1], [2]],
    }


FIRST_VERDICTS = [
    LineJudgement(1, "unsupported", "a weekly schedule: its quote is not in the document"),
    LineJudgement(2, "partly_supported", "head loss: its quote speaks of 48 hours only"),
]
SECOND_VERDICTS = [LineJudgement(1, "supported"), LineJudgement(2, "supported")]


def judgement(iteration_passed: bool) -> Judgement:
    """The judge's verdicts on an iteration's lines, and the ok and issues they give."""
    output = second_output() if iteration_passed else first_output()
    claims = claims_of(output)
    return judge_claims(claims, SECOND_VERDICTS if iteration_passed else FIRST_VERDICTS, [])


def _iteration_events(iteration: int, t: float, passed: bool) -> list[BaseEvent]:
    output = second_output() if passed else first_output()
    rules = [
        RuleResult(name="bullet_format", ok=True, message='every line starts with "- "'),
        RuleResult(
            name="quotes_verbatim",
            ok=passed,
            message="every quote is in the document" if passed else "1 quote is not verbatim",
        ),
    ]
    judged = judgement(passed)
    assert judged.ok == passed
    issues = [JudgeIssue(message=issue) for issue in judged.issues]
    return [
        IterationStarted(
            ts=t,
            iteration=iteration,
            max_iters=3,
            constraints=[] if iteration == 1 else FIRST_CONSTRAINTS,
        ),
        PhaseStarted(ts=t, iteration=iteration, phase="worker"),
        SubQuery(
            ts=t + 1,
            agent="worker",
            prompt_preview="Which passages describe the backwash trigger?",
            answer_preview="Head loss of 2.1 metres or turbidity above 0.2 NTU.",
            latency_ms=840,
            input_tokens=120,
            output_tokens=30,
            calls_used=iteration,
            calls_budget=60,
        ),
        SandboxExecuted(
            ts=t + 2,
            agent="worker",
            step=1,
            code=CODE,
            output=f"2 ['{VERIFIED_QUOTE}', 'A filter is backwashed earlier ...']",
            duration_ms=12,
            isolation="bwrap",
        ),
        AgentStep(ts=t + 2, agent="worker", step=2, max_steps=80, action="output"),
        PhaseFinished(ts=t + 3, iteration=iteration, phase="worker", duration_ms=3000),
        CandidateProduced(ts=t + 3, iteration=iteration, output=output, claims=claims_of(output)),
        HardValidation(ts=t + 3, iteration=iteration, ok=passed, rules=rules),
        JudgeVerdict(ts=t + 4, iteration=iteration, ok=passed, issues=issues, claims=judged.claims),
        IterationFinished(
            ts=t + 4,
            iteration=iteration,
            passed=passed,
            failure_tag=None if passed else "hard_validation",
            next_constraints=[] if passed else FIRST_CONSTRAINTS,
        ),
        UsageUpdated(
            ts=t + 4,
            input_tokens=2400 * iteration,
            output_tokens=600 * iteration,
            calls=3,
            cost_usd=0.0,
        ),
    ]


def scripted_events(session_id: str, doc_path: str = DOC_NAME) -> list[BaseEvent]:
    """A QA run: iteration 1 fails (an unverified quote), iteration 2 passes."""
    events: list[BaseEvent] = [
        RunStarted(
            ts=T0,
            mode="qa",
            query=QUESTION,
            doc_path=doc_path,
            doc_chars=34_973,
            max_iters=3,
            generate_model="offline:generate",
            validate_model="offline:validate",
        ),
        *_iteration_events(1, T0 + 1, passed=False),
        *_iteration_events(2, T0 + 10, passed=True),
        RunFinished(ts=T0 + 20, status="passed", iterations=2, output=second_output()),
    ]
    return [e.model_copy(update={"session_id": session_id}) for e in events]


def iteration_trace(iteration: int, passed: bool) -> IterationTrace:
    events = _iteration_events(iteration, T0, passed)
    hard = next(e for e in events if isinstance(e, HardValidation))
    judge = next(e for e in events if isinstance(e, JudgeVerdict))
    return IterationTrace.model_validate(
        {
            "iteration": iteration,
            "query": QUESTION,
            "constraints": [] if iteration == 1 else FIRST_CONSTRAINTS,
            "output": second_output() if passed else first_output(),
            "hard_validation": {"ok": hard.ok, "rules": hard.rules},
            "judge": {"ok": judge.ok, "issues": judge.issues},
            "passed": passed,
            "timings": {"workerMs": 3000.0, "judgeMs": 1000.0},
            "failure_tag": None if passed else "hard_validation",
            "feedback": [] if passed else FIRST_CONSTRAINTS,
            "started_at": T0 + iteration,
            "finished_at": T0 + iteration + 4,
            "isolation": "bwrap",
            "claims": judge.claims,
        }
    )


def _session(
    store: TraceStore, query: str, mode: str, created: float, parent: str | None, doc_path: str
) -> SessionHandle:
    record = SessionRecord(
        mode=mode,
        query=query,
        doc_path=doc_path,
        created_at=created,
        parent_session_id=parent,
        settings={"provider": "offline", "maxIters": 3},
    )
    return store.create_session(record)


TASK_SAVED = CacheSaving(calls=6, input_tokens=5400, output_tokens=700, cost_usd=0.0123)
"""What the sub-call cache saved the fixture's task session (the only one it saved)."""


def write_fixture_sessions(out_dir: Path, doc_path: str = DOC_NAME) -> dict[str, str]:
    """Four finished sessions: a two-iteration QA run, a re-run of it, a task (some of whose
    sub-calls the sub-call cache answered), a cancel."""
    store = TraceStore(out_dir)
    main = _session(store, QUESTION, "qa", T0, None, doc_path)
    for event in scripted_events(main.session_id, doc_path):
        main.append_event(event)
    main.write_iteration(iteration_trace(1, passed=False))
    main.write_iteration(iteration_trace(2, passed=True))
    main.finish("passed", duration_ms=20_000, input_tokens=4800, output_tokens=1200, cost_usd=0.0)

    rerun = _session(store, QUESTION, "qa", T0 + 3600, main.session_id, doc_path)
    rerun.write_iteration(iteration_trace(1, passed=True))
    rerun.finish("passed", duration_ms=9_000, input_tokens=2400, output_tokens=600, cost_usd=0.0)

    task = _session(
        store, "Summarise the alarm escalation rules", "task", T0 + 7200, None, doc_path
    )
    task.write_iteration(iteration_trace(1, passed=False))
    task.finish(
        "failed", duration_ms=65_000, input_tokens=9100, output_tokens=2300, cost_usd=0.0421,
        subcall_cache_saved=TASK_SAVED,
    )  # fmt: skip

    cancelled = _session(store, "List every chemical dosed", "qa", T0 + 10800, None, doc_path)
    cancelled.finish(
        "cancelled", duration_ms=4_000, input_tokens=800, output_tokens=0, cost_usd=0.0
    )
    store.close()
    return {
        "main": main.session_id,
        "rerun": rerun.session_id,
        "task": task.session_id,
        "cancelled": cancelled.session_id,
    }


def outcome(status: str, session_id: str, iterations: int = 1) -> RunOutcome:
    return RunOutcome(status, session_id, iterations, None, {})


def scripted_runner(session_id: str = "2026-01-01/qa-5c41e7ed") -> Callable[..., object]:
    """A runner that replays ``scripted_events`` (no sandbox, no files) and passes."""

    async def run(request: RunRequest, emit: Emit, cancel: asyncio.Event) -> RunOutcome:
        for event in scripted_events(session_id, str(request.doc_path)):
            emit(event)
        return outcome("passed", session_id, 2)

    return run


async def run_until_cancelled(request: RunRequest, emit: Emit, cancel: asyncio.Event) -> RunOutcome:
    """A runner that keeps producing cells until it is cancelled, then reports so."""
    session_id = "2026-01-01/qa-e0d1e55a"
    emit(
        RunStarted(
            session_id=session_id,
            mode="qa",
            query=request.query,
            doc_path=str(request.doc_path),
            doc_chars=1,
            max_iters=1,
            generate_model="test",
            validate_model="test",
        )
    )
    step = 0
    while not cancel.is_set():
        step += 1
        emit(
            SandboxExecuted(
                session_id=session_id,
                agent="worker",
                step=step,
                code="1",
                output="1",
                duration_ms=1,
            )
        )
        await asyncio.sleep(0.01)
    emit(RunFinished(session_id=session_id, status="cancelled", iterations=0))
    return outcome("cancelled", session_id, 0)
