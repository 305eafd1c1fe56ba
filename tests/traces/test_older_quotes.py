"""A session written before quotes were located (its traces hold ``evidenceSources``, spans
in the run's joined text) still opens: each quote keeps its document, page and URL, with no
span, in ``sessions show``, the API and the app's iteration view."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ralph_tui.api import session
from ralph_tui.cli import run_cli
from ralph_tui.traces.models import IterationTrace
from ralph_tui.traces.store import TraceStore
from ralph_tui.tui.session_detail import iteration_content
from tests.documents.fixtures import write_pdf

PAGE_TWO = "The backwash pump runs for ten minutes at every backwash."


def test_a_session_with_evidence_sources_shows_its_quotes_without_spans(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pdf = write_pdf(tmp_path / "manual.pdf", [["Chapter one covers intake screens."], [PAGE_TWO]])
    out = tmp_path / "out"
    run_cli(["run", "--provider", "offline", "--mode", "qa", "--json", "--maxIters", "1",
             "--query", "How long does the backwash pump run?", "--doc", str(pdf),
             "--out", str(out)])  # fmt: skip
    session_id = json.loads(capsys.readouterr().out)["sessionId"]
    [path] = (out / "sessions" / session_id).glob("iter-01.json")
    trace = json.loads(path.read_text(encoding="utf-8"))
    assert trace["output"]["evidence"] == [PAGE_TWO]
    del trace["quotes"]
    trace["evidenceSources"] = [
        {"document": "manual.pdf", "page": 2, "label": "manual.pdf p. 2", "start": 36, "end": 93}
    ]
    trace["output"]["evidence"].append("A quote the older run found nowhere at all.")
    path.write_text(json.dumps(trace), encoding="utf-8")

    [loaded] = TraceStore(out).iterations(session_id)
    found, lost = loaded.quotes
    assert (found.source, found.page, found.found, found.start) == ("manual.pdf", 2, "exact", None)
    assert (lost.number, lost.found, lost.source) == (2, "missing", None)

    assert run_cli(["sessions", "show", session_id, "--out", str(out)]) == 0
    shown = capsys.readouterr().out
    assert f"  - {PAGE_TWO}  [manual.pdf p. 2]" in shown
    assert "  - A quote the older run found nowhere at all.  [not found]" in shown

    [evidence, _] = session(session_id, out).evidence
    assert (evidence.quote, evidence.label, evidence.start) == (PAGE_TWO, "manual.pdf p. 2", None)
    assert "[manual.pdf p. 2]" in iteration_content(loaded, PAGE_TWO).plain


def test_a_trace_with_quotes_is_read_as_written() -> None:
    quote = {"number": 1, "text": "Quoted.", "found": "near", "source": "a.md", "start": 3,
             "end": 10}  # fmt: skip
    written = {"iteration": 1, "output": {"evidence": ["Quoted."]}, "quotes": [quote]}
    trace = IterationTrace.model_validate({**written, "evidenceSources": [None]})
    assert [q.model_dump(exclude_none=True) for q in trace.quotes] == [{**quote, "ocr": False}]
