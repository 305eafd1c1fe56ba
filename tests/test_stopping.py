"""A command stopped early says so in one line and exits with the code a script expects:
SIGTERM like Ctrl-C (session kept as cancelled, exit 143), Ctrl-C while still starting
(exit 130), a closed pipe (quietly, exit 141). Each on a real subprocess."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from ralph_tui.cli import run_cli
from ralph_tui.errors import ExitCode
from ralph_tui.traces.store import TraceStore
from tests.loops.baseline_server import LOCAL_MODELS, BaselineServer, serving_baseline

ROOT = Path(__file__).parents[1]
SAMPLE = ROOT / "ralph_tui" / "data" / "sample_document.md"
UNANSWERABLE = "What does xyzzyplugh frobnicate?"


def ralph(
    *args: str, provider: dict[str, str] | None = None, **kw: object
) -> subprocess.Popen[str]:
    """``ralph-tui ARGS`` in a process of its own (``provider``: keys and endpoints to add to
    its environment)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), **(provider or {})}
    return subprocess.Popen(
        [sys.executable, "-m", "ralph_tui", *args],
        text=True,
        env=env,
        **kw,  # type: ignore[call-overload]
    )


def test_sigterm_cancels_the_run_keeps_its_traces_and_exits_143(tmp_path: Path) -> None:
    """A long run of failing iterations (the offline baseline behind a server on
    127.0.0.1, its answer worded afresh at each attempt, so that none repeats the one
    before) stopped by SIGTERM after its second."""
    out = tmp_path / "out"
    with serving_baseline(BaselineServer(varies=("answer",))) as provider:
        proc = ralph(
            "run", "--json", "--mode", "qa", *LOCAL_MODELS, "--query", UNANSWERABLE,
            "--doc", str(SAMPLE), "--out", str(out), "--maxIters", "500",
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, provider=provider,
        )  # fmt: skip
        assert proc.stderr is not None
        for line in proc.stderr:
            if line.startswith("iteration 2 failed"):
                break
        proc.send_signal(signal.SIGTERM)
        stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == ExitCode.TERMINATED == 143, stderr
    assert "Traceback" not in stderr
    result = json.loads(stdout)
    assert result["status"] == "cancelled" and result["exitCode"] == 143
    record = TraceStore(out).load_session(result["sessionId"])
    assert record.status == "cancelled" and record.iterations >= 2
    assert TraceStore(out).iterations(record.session_id), "the traces so far are kept"


def as_in_a_terminal() -> None:
    """Ctrl-C reaches the child as it reaches a command typed in a terminal, even when the
    tests themselves run in the background (where the shell makes SIGINT ignored)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_while_starting_is_one_line_and_exit_130(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-X", "importtime", "-m", "ralph_tui", "run", "--mode", "qa",
         "--provider", "offline", "--query", UNANSWERABLE, "--doc", str(SAMPLE),
         "--out", str(tmp_path / "out")],
        text=True, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        preexec_fn=as_in_a_terminal,
    )  # fmt: skip
    assert proc.stderr is not None
    for line in proc.stderr:  # -X importtime reports each module as its import ends
        if line.rstrip().endswith("ralph_tui.errors"):
            break  # the command's modules are loading: ralph-tui is still starting
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=60)
    said = [line for line in stderr.splitlines() if not line.startswith("import time:")]
    assert proc.returncode == ExitCode.CANCELLED == 130, stderr
    assert "Traceback" not in stderr and len(said) == 1, said


def test_a_closed_pipe_ends_quietly_with_141(tmp_path: Path) -> None:
    out = tmp_path / "out"
    for _ in range(3):
        subprocess.run(
            [sys.executable, "-m", "ralph_tui", "run", "--mode", "qa", "--provider", "offline",
             "--query", "How often are the filters backwashed?", "--doc", str(SAMPLE),
             "--out", str(out), "--maxIters", "1"],
            env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, check=False,
        )  # fmt: skip
    read, write = os.pipe()
    proc = ralph("sessions", "list", "--out", str(out), stdout=write, stderr=subprocess.PIPE)
    os.close(write)
    os.close(read)  # the reader is gone before the first line is written, as `| head -0`
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == ExitCode.CLOSED_PIPE == 141, stderr
    assert stderr == ""


def test_every_json_command_prints_json_on_an_empty_out_dir(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = ["--out", str(tmp_path / "empty"), "--json"]
    expected = {
        ("sessions", "list"): [],
        ("external", "list"): [],
        ("eval", "--list"): [],
    }
    for command, value in expected.items():
        assert run_cli([*command, *out]) == 0, command
        assert json.loads(capsys.readouterr().out) == value, command
    for command in (("sessions", "reindex"), ("optimize",), ("sessions", "show", "x")):
        code = run_cli([*command, *out])
        result = json.loads(capsys.readouterr().out)
        assert isinstance(result, dict) and (code == 0 or result["exitCode"] == code), command
