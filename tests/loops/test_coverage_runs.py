"""Coverage of whole offline runs: an answer of absence says what was searched and how much
was read (command line, ``--json``, API), in both inner modes; the DocReader's reads are the
task mode's coverage."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ralph_tui.api import ask
from ralph_tui.cli import run_cli
from ralph_tui.evidence import Coverage
from ralph_tui.traces.store import TraceStore
from tests.loops.test_offline_runs import SAMPLE, run_json

ABSENT = "How long should saffron simmer?"
NOT_FOUND_LINE = re.compile(r"^not found: searched the whole text for: (.+); read (\d+) % of it$")


@pytest.mark.parametrize("inner", ["rlm", "lcm"])
def test_an_answer_of_absence_says_what_was_searched_and_read(
    inner: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    code = run_cli(["run", "--provider", "offline", "--mode", "qa", "--inner", inner,
                    "--query", ABSENT, "--doc", str(SAMPLE), "--out", str(out),
                    "--maxIters", "1"])  # fmt: skip
    text = capsys.readouterr().out
    assert code == 1 and "does not address this question" in text
    [line] = [line for line in text.splitlines() if line.startswith("not found:")]
    found = NOT_FOUND_LINE.match(line)
    assert found is not None, line
    searched, share = found.group(1), int(found.group(2))
    session = re.search(r"session: (\S+)", text)
    assert session is not None
    [trace] = TraceStore(out).iterations(session.group(1))
    assert trace.coverage is not None and 0 < share == round(trace.coverage.share * 100) < 50
    assert searched == ", ".join(trace.coverage.searches)
    assert "saffron" in searched and "simmer" in searched
    if inner == "lcm":
        assert any("saffron" in s and s != ABSENT for s in trace.coverage.searches), "its greps"
    else:
        searches = [s for s in trace.coverage.searches if s != ABSENT]
        assert searches == ["saffron", "simmer", "long"], "the question's words, no stop words"


def test_the_json_of_a_run_carries_its_coverage(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    _, result = run_json(capsys, "--mode", "qa", "--query", ABSENT, "--doc", str(SAMPLE),
                         "--out", str(out), "--maxIters", "1")  # fmt: skip
    coverage = result["coverage"]
    assert isinstance(coverage, dict)
    [document] = coverage["documents"]
    assert document["document"] == SAMPLE.name and document["section_kind"] == "section"
    assert 0 < coverage["read_chars"] == sum(end - start for start, end in document["spans"])
    assert coverage["total_chars"] == len(SAMPLE.read_text(encoding="utf-8"))


def test_the_api_says_what_an_answer_of_absence_searched_and_read() -> None:
    result = ask(ABSENT, SAMPLE, provider="offline", max_iters=1)
    assert result.coverage is not None and result.coverage.read_chars > 0
    assert result.absence_note == result.coverage.describe()
    assert result.absence_note.startswith("searched the whole text for: ")
    answered = ask("How often are the filters backwashed?", SAMPLE, provider="offline", max_iters=1)
    assert answered.coverage is not None and answered.absence_note is None


def test_the_doc_readers_reads_are_the_task_modes_coverage(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    task = "Summarize the maintenance schedule and the staff responsible for each item."
    _, result = run_json(capsys, "--query", task, "--doc", str(SAMPLE), "--out", str(out),
                         "--maxIters", "1")  # fmt: skip
    [trace] = TraceStore(out).iterations(str(result["sessionId"]))
    assert trace.coverage is not None and trace.coverage.read_chars > 0
    assert task in trace.coverage.searches[0], "the retrieval pre-phase searched for the task"
    assert Coverage.model_validate(result["coverage"]) == trace.coverage
