"""The trace models: seed-style keys on disk, tolerant reading, extra fields kept."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from ralph_tui.traces.models import IterationTrace, SessionRecord
from tests.traces.trace_writers import make_trace


def test_iteration_trace_writes_camel_case_keys() -> None:
    trace = make_trace(2, "- an answer")
    trace = trace.model_copy(update={"brief_len": 120, "output_len": 40})
    data = json.loads(trace.to_json())
    assert {"hardValidation", "failureTag", "briefLen", "outputLen", "startedAt"} <= set(data)
    assert "hard_validation" not in data
    assert data["hardValidation"]["rules"] == [{"name": "bullets", "ok": False, "message": ""}]
    assert IterationTrace.model_validate_json(trace.to_json()) == trace


def test_iteration_trace_accepts_snake_case_camel_case_and_task() -> None:
    snake = IterationTrace.model_validate(
        {"iteration": 1, "task": "Summarise", "failure_tag": "hard", "brief_len": 3}
    )
    camel = IterationTrace.model_validate(
        {"iteration": 1, "query": "Summarise", "failureTag": "hard", "briefLen": 3}
    )
    assert snake == camel
    assert (snake.query, snake.failure_tag, snake.brief_len) == ("Summarise", "hard", 3)


def test_loops_may_add_fields_and_they_survive_a_round_trip() -> None:
    trace = IterationTrace(iteration=1, error="Boom: x", docReaderHints=["look at §3"])
    again = IterationTrace.model_validate_json(trace.to_json())
    assert again.model_extra == {"error": "Boom: x", "docReaderHints": ["look at §3"]}


def test_judge_issues_may_be_plain_strings() -> None:
    trace = IterationTrace.model_validate(
        {"iteration": 1, "judge": {"ok": False, "issues": ["bullet 2 is unsupported"]}}
    )
    assert trace.judge is not None
    assert trace.judge.issues[0].message == "bullet 2 is unsupported"


def test_session_record_defaults_and_validation() -> None:
    record = SessionRecord(mode="task", query="Summarise", variant="v3")
    assert (record.status, record.iterations, record.cost_usd) == ("running", 0, None)
    assert record.pid > 0 and record.host
    assert SessionRecord.model_validate_json(record.to_json()).model_extra == {"variant": "v3"}
    with pytest.raises(ValidationError):
        SessionRecord(mode="qa", query="q", status="finished")
