"""The public Python API, used only through its public names, end to end with the offline
provider; and ``import ralph_tui`` loads nothing heavy."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest

import ralph_tui
from ralph_tui import RunResult, UsageError, aask, ask, run_task

SAMPLE = Path(__file__).parents[1] / "ralph_tui" / "data" / "sample_document.md"
QUESTION = "How often are the filters backwashed, and what triggers an early backwash?"
HEAVY = ("anthropic", "openai", "textual", "numpy", "httpx2", "ralph_tui.loops", "pydantic")


def test_importing_the_package_loads_nothing_heavy() -> None:
    code = "import sys, ralph_tui; print(__import__('json').dumps(sorted(sys.modules)))"
    loaded = json.loads(subprocess.check_output([sys.executable, "-c", code], text=True))
    assert not [m for m in loaded if m.split(".")[0] in HEAVY or m.startswith(HEAVY)]
    assert ralph_tui.__version__


@pytest.fixture(autouse=True)
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("RALPH_MAX_ITERS", raising=False)


def test_ask_answers_with_located_evidence_and_reads_no_dotenv(tmp_path: Path) -> None:
    Path(".env").write_text("RALPH_MAX_ITERS=not-a-number\n")  # read only when asked
    events: list[str] = []
    result = ask(
        QUESTION, SAMPLE, provider="offline", max_iters=2, on_event=lambda e: events.append(e.type)
    )
    assert isinstance(result, RunResult) and result.passed, result.error
    assert 3 <= len(result.answer) <= 7 and not result.answer[0].startswith("- ")
    text = SAMPLE.read_text(encoding="utf-8")
    assert result.evidence
    for quote in result.evidence:
        assert quote.document == SAMPLE.name and quote.start is not None
        assert text[quote.start : quote.end] == quote.quote
        assert (
            quote.found == "exact"
            and quote.where == f"{SAMPLE.name}, chars {quote.start}-{quote.end}"
        )
    assert result.judge is not None and result.judge.ok
    assert [claim.line for claim in result.claims] == list(range(1, len(result.answer) + 1))
    for claim, line in zip(result.claims, result.answer, strict=True):
        assert claim.text == line and claim.verdict == "supported"
        assert claim.quotes and all(1 <= n <= len(result.evidence) for n in claim.quotes)
    assert result.usage.calls > 0 and result.folder is None, "the temporary out dir is gone"
    assert events[0] == "run_started" and events[-1] == "run_finished"
    with pytest.raises(UsageError, match="max_iters"):
        ask(QUESTION, SAMPLE, provider="offline", env_file=".env")


def test_run_task_keeps_its_traces_where_asked(tmp_path: Path) -> None:
    result = run_task(
        "Summarise the filter backwash schedule.",
        [SAMPLE],
        provider="offline",
        max_iters=1,
        out_dir=tmp_path / "out",
    )
    assert result.status in ("passed", "failed") and result.output
    assert result.folder is not None and (result.folder / "session.json").is_file()


def test_a_cancelled_run_returns_its_status() -> None:
    async def cancelled() -> RunResult:
        stop = asyncio.Event()
        stop.set()
        return await aask(QUESTION, SAMPLE, provider="offline", cancel=stop)

    assert asyncio.run(cancelled()).status == "cancelled"


def test_bad_input_raises_the_projects_errors(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match=r"missing\.txt"):
        ask(QUESTION, tmp_path / "missing.txt", provider="offline")
    with pytest.raises(UsageError, match="top_k"):
        ask(QUESTION, SAMPLE, provider="offline", top_k=0)
    with pytest.raises(AttributeError):
        _ = ralph_tui.no_such_name
