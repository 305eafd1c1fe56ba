"""``--inner direct`` and ``--inner auto`` end to end through the CLI with the offline
provider: direct answers from the documents in its prompt; auto picks each of the three
modes by the documents' size against the window, and says which and why in the header,
the session record, ``sessions show`` and the API; direct is refused, before anything
runs, when the documents do not fit."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ralph_tui import api
from ralph_tui.cli import run_cli
from ralph_tui.config.inner_modes import ANSWER_ROOM_TOKENS, choose_inner
from ralph_tui.events import RunStarted, event_from_json
from ralph_tui.lcm.store import MessageStore
from ralph_tui.llm.tokens import document_tokens
from ralph_tui.traces.store import TraceStore
from tests.loops.test_offline_runs import SAMPLE

QUESTION = "How often are the filters backwashed, and what triggers an early backwash?"
SAMPLE_TOKENS = document_tokens(SAMPLE.read_text(encoding="utf-8"))


def run(capsys: pytest.CaptureFixture[str], out: Path, *args: str) -> tuple[int, dict, str]:
    code = run_cli(["run", "--provider", "offline", "--json", "--mode", "qa", "--query",
                    QUESTION, "--doc", str(SAMPLE), "--out", str(out), *args])  # fmt: skip
    captured = capsys.readouterr()
    return code, json.loads(captured.out), captured.err


def session_events(out: Path, session_id: str) -> list:
    lines = (out / "sessions" / session_id / "events.jsonl").read_text().splitlines()
    return [event_from_json(line) for line in lines]


def test_direct_answers_from_the_documents_in_its_prompt(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    code, result, _ = run(capsys, out, "--inner", "direct")
    assert code == 0 and result["status"] == "passed"
    document = SAMPLE.read_text(encoding="utf-8")
    evidence = result["output"]["evidence"]
    assert len(evidence) >= 3 and all(quote in document for quote in evidence)
    assert any("backwash" in quote for quote in evidence)
    session_id = str(result["sessionId"])
    kinds = {event.type for event in session_events(out, session_id)}
    assert "sandbox_executed" not in kinds and "tool_executed" not in kinds
    assert {"judge_verdict", "hard_validation"} <= kinds
    [trace] = TraceStore(out).iterations(session_id)
    assert trace.passed and trace.isolation == "none (direct: no code runs)"
    assert trace.coverage is not None and trace.coverage.share == 1.0
    store = MessageStore.load(out / "sessions" / session_id / "context-01-worker.jsonl")
    assert [m.role for m in store.messages] == ["user", "assistant"]
    assert QUESTION in store.messages[0].content and document[:200] not in store.messages[0].content


def test_a_task_s_doc_reader_reads_directly_what_its_rlm_self_finds_by_code(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The baseline's direct DocReader runs on the documents in its prompt the search its
    RLM self runs in the sandbox: the same brief, without a sandbox."""
    briefs = {}
    for inner in ("direct", "rlm"):
        out = tmp_path / inner
        code = run_cli(["run", "--provider", "offline", "--json", "--inner", inner, "--query",
                        "Summarize the maintenance schedule and the staff responsible for each "
                        "item.", "--doc", str(SAMPLE), "--out", str(out)])  # fmt: skip
        result = json.loads(capsys.readouterr().out)
        assert code == 0 and result["status"] == "passed"
        [trace] = TraceStore(out).iterations(str(result["sessionId"]))
        assert (trace.isolation or "").startswith("none (direct") == (inner == "direct")
        briefs[inner] = trace.model_dump()["brief"]
    assert briefs["direct"] == briefs["rlm"] and "Planned maintenance" in briefs["direct"]


@pytest.mark.parametrize(
    ("window", "mode", "explored"),
    [
        (None, "direct", None),
        (SAMPLE_TOKENS + ANSWER_ROOM_TOKENS + 100, "lcm", "tool_executed"),
        (SAMPLE_TOKENS + ANSWER_ROOM_TOKENS - 100, "rlm", "sandbox_executed"),
    ],
)
def test_auto_picks_each_mode_and_says_why(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    window: int | None,
    mode: str,
    explored: str | None,
) -> None:
    out = tmp_path / "out"
    sized = ["--context-window", str(window)] if window else []
    code, result, _ = run(capsys, out, "--inner", "auto", *sized)
    assert code in (0, 1) and result["status"] in ("passed", "failed")
    session_id = str(result["sessionId"])
    why = choose_inner(SAMPLE_TOKENS, window or 200_000)
    assert why.mode == mode
    [started] = [e for e in session_events(out, session_id) if isinstance(e, RunStarted)]
    assert (started.inner, started.inner_reason) == (mode, why.reason)
    kinds = {event.type for event in session_events(out, session_id)}
    for kind in ("tool_executed", "sandbox_executed"):
        assert (kind in kinds) == (kind == explored)
    record = TraceStore(out).load_session(session_id)
    assert record.inner is not None
    assert (record.inner.mode, record.inner.chosen_by) == (mode, "auto")
    assert record.settings["inner"] == "auto"

    assert run_cli(["sessions", "show", session_id, "--out", str(out)]) == 0
    shown = capsys.readouterr().out
    assert f"inner mode: {mode} (auto: {why.reason})" in shown
    detail = api.session(session_id, out)
    assert detail.inner is not None and detail.inner.mode == mode


def test_the_header_says_the_mode_and_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = run_cli(["run", "--provider", "offline", "--mode", "qa", "--inner", "auto",
                    "--query", QUESTION, "--doc", str(SAMPLE), "--out", str(tmp_path)])  # fmt: skip
    header = capsys.readouterr().err.splitlines()[0]
    assert code == 0
    assert "inner direct (auto: the documents (~" in header and "200,000-token window" in header


def test_direct_is_refused_before_anything_runs_when_the_documents_do_not_fit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    window = str(SAMPLE_TOKENS + ANSWER_ROOM_TOKENS - 1)
    code = run_cli(["run", "--provider", "offline", "--inner", "direct", "--context-window",
                    window, "--query", QUESTION, "--doc", str(SAMPLE),
                    "--out", str(out)])  # fmt: skip
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1
    assert f"~{SAMPLE_TOKENS:,} tokens" in err and f"{int(window):,}-token" in err
    assert "--inner rlm, lcm or auto" in err and "--context-window" in err
    assert not out.exists()


def test_a_session_recorded_before_the_inner_mode_was_still_shows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    _, result, _ = run(capsys, out, "--inner", "rlm")
    session_id = str(result["sessionId"])
    path = out / "sessions" / session_id / "session.json"
    record = json.loads(path.read_text())
    assert record.pop("inner") == {"mode": "rlm", "reason": "the inner setting is rlm",
                                   "chosen_by": "setting"}  # fmt: skip
    path.write_text(json.dumps(record))
    assert run_cli(["sessions", "reindex", "--out", str(out)]) == 0
    assert run_cli(["sessions", "show", session_id, "--out", str(out)]) == 0
    assert "inner mode" not in capsys.readouterr().out
    assert api.session(session_id, out).inner is None
