"""Resume after the run process is SIGKILLed: no completed iteration lost, the run finishes.

The runs' provider is the offline baseline behind an OpenAI-compatible server on 127.0.0.1,
its answers worded afresh at each attempt: every iteration fails and none repeats the one
before (a run that repeats itself stops early)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ralph_tui.cli import run_cli
from ralph_tui.traces.liveness import effective_status
from ralph_tui.traces.store import TraceStore
from tests.loops.baseline_server import LOCAL_MODELS, BaselineServer, serving_baseline

MAX_ITERS = 6


def failing_document(path: Path) -> Path:
    """Only two passages match the query, so every QA iteration lacks evidence and fails.

    The filler makes each iteration slow enough (a few MB through the sandbox) to kill
    the process between iterations.
    """
    filler = "short filler line\n" * 300_000
    lines = [
        "The turbine spins at 900 revolutions per minute during the night shift.",
        filler,
        "A second turbine spins more slowly while the first one is serviced.",
    ]
    path.write_text("\n".join(lines))
    return path


def wait_for(predicate, timeout_s: float = 60.0) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout_s
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def run_command(doc: Path, out: Path) -> list[str]:
    return [
        sys.executable, "-m", "ralph_tui", "run", "--mode", "qa", *LOCAL_MODELS,
        "--query", "How fast does the turbine spin?", "--doc", str(doc), "--out", str(out),
        "--maxIters", str(MAX_ITERS),
    ]  # fmt: skip


def changing_answers() -> BaselineServer:
    """The baseline, its answer worded afresh at each attempt."""
    return BaselineServer(varies=("answer",))


def test_resume_after_sigkill(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    with serving_baseline(changing_answers()) as provider:
        for name, value in provider.items():
            monkeypatch.setenv(name, value)
        resume_after_sigkill(tmp_path, capsys)


def resume_after_sigkill(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    doc = failing_document(tmp_path / "doc.txt")
    command = run_command(doc, out)
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        wait_for(lambda: any(out.glob("sessions/*/*/iter-02.json")))
        process.send_signal(signal.SIGKILL)
    finally:
        process.wait()
    [folder] = list(out.glob("sessions/*/*"))
    session_id = f"{folder.parent.name}/{folder.name}"
    before = {p.name: p.read_text() for p in folder.glob("iter-*.json")}
    assert 2 <= len(before) < MAX_ITERS
    store = TraceStore(out)
    assert effective_status(store.load_session(session_id)) == "crashed"
    assert run_cli(["sessions", "list", "--out", str(out), "--json"]) == 0
    [killed] = json.loads(capsys.readouterr().out)
    assert killed["status"] == "crashed" and killed["durationS"] > 0.0
    first_leg_ms = store.load_session(session_id).duration_ms
    assert first_leg_ms is not None and first_leg_ms > 0.0

    code = run_cli(["run", "--resume", session_id, "--out", str(out), "--json"])
    result = json.loads(capsys.readouterr().out)
    assert code == 1 and result["status"] == "failed" and result["sessionId"] == session_id
    after = {p.name: p.read_text() for p in folder.glob("iter-*.json")}
    assert {name: after[name] for name in before} == before
    assert sorted(after) == [f"iter-{i:02d}.json" for i in range(1, MAX_ITERS + 1)]
    resumed = store.iterations(session_id)[len(before)]
    assert resumed.constraints == store.iterations(session_id)[len(before) - 1].feedback
    record = store.load_session(session_id)
    assert record.status == "failed" and record.iterations == MAX_ITERS
    assert record.pid == os.getpid()
    assert record.duration_ms is not None and record.duration_ms > first_leg_ms


def test_a_resumed_run_counts_the_time_of_every_leg(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    doc = tmp_path / "doc.txt"
    doc.write_text("The turbine spins at 900 revolutions per minute during the night shift.\n")
    assert run_cli(["run", "--mode", "qa", "--provider", "offline", "--query",
                    "Who services the second turbine?", "--doc", str(doc), "--out", str(out),
                    "--maxIters", "1", "--json"]) == 1  # fmt: skip
    session_id = json.loads(capsys.readouterr().out)["sessionId"]
    store = TraceStore(out)
    first_leg = store.load_session(session_id)
    assert first_leg.duration_ms is not None and first_leg.duration_ms > 0.0

    assert run_cli(["run", "--resume", session_id, "--out", str(out), "--json"]) == 1
    capsys.readouterr()
    record = store.load_session(session_id)
    assert record.finished_at is not None and record.leg_started_at is not None
    this_leg_ms = (record.finished_at - record.leg_started_at) * 1000
    assert record.duration_ms == pytest.approx(first_leg.duration_ms + this_leg_ms)


def test_ctrl_c_records_the_session_as_cancelled(tmp_path: Path) -> None:
    out = tmp_path / "out"
    command = run_command(failing_document(tmp_path / "doc.txt"), out)
    with serving_baseline(changing_answers()) as provider:
        process = subprocess.Popen(
            command,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, **provider},
            # As from a terminal: a suite started in the background inherits SIGINT ignored.
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )
        wait_for(lambda: any(out.glob("sessions/*/*/iter-01.json")))
        process.send_signal(signal.SIGINT)
        _, stderr = process.communicate(timeout=60)
    assert process.returncode == 130 and stderr.endswith("ralph-tui: error: cancelled\n"), stderr
    [folder] = list(out.glob("sessions/*/*"))
    record = TraceStore(out).load_session(f"{folder.parent.name}/{folder.name}")
    assert record.status == "cancelled" and record.iterations >= 1
