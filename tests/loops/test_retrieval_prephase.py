"""The task loop's retrieval pre-phase, through the CLI and the real openai SDK: the
DocReader receives labelled passages, and each iteration's trace holds the diagnostics."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ralph_tui.cli import run_cli
from ralph_tui.events import event_from_json
from ralph_tui.traces.store import TraceStore
from tests.loops.baseline_server import LOCAL_MODELS, BaselineServer, use_server

SAMPLE = Path(__file__).parents[2] / "ralph_tui" / "data" / "sample_document.md"
TASK = "Describe how the works responds when river turbidity exceeds 80 NTU."


def test_the_doc_reader_receives_labelled_passages_and_the_trace_says_how(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server = BaselineServer()
    use_server(monkeypatch, server)
    monkeypatch.setenv("RALPH_EMBEDDER", "auto")
    out = tmp_path / "out"
    code = run_cli(
        [
            "run", "--json", "--mode", "task", "--query", TASK, "--doc", str(SAMPLE),
            "--out", str(out), "--maxIters", "1", *LOCAL_MODELS,
            "--topK", "3",
        ]
    )  # fmt: skip
    captured = capsys.readouterr()
    result = json.loads(captured.out)
    assert code in (0, 1), captured.err

    # The server has no embeddings endpoint: the lexical leg ran alone, and said so once.
    assert server.requests[0] == "embeddings"
    assert "the lexical leg runs alone" in captured.err
    assert captured.err.count("retrieval: ") == 1, captured.err

    # The inputs reach the model as a JSON block inside the first user message.
    first_request = "\n".join(str(m["content"]) for m in server.bodies["doc_reader"][0]["messages"])
    document = SAMPLE.read_text(encoding="utf-8")
    assert "retrievedContext" in first_request
    [trace] = TraceStore(out).iterations(str(result["sessionId"]))
    searches = trace.model_extra["retrieval"]  # type: ignore[index]
    [prephase] = [search for search in searches if search["origin"] == "prephase"]
    assert prephase["origin"] == "prephase" and prephase["query"] == TASK
    assert prephase["candidates"]["dense"] == {} and "dense" in prephase["skipped"]
    assert len(prephase["selected"]) == 3
    for selected in prephase["selected"]:
        start, end = selected["span"]
        label = f"[source=doc chunk {selected['chunk']} chars {start}-{end}]"
        assert selected["label"] == label and label in first_request
        assert json.dumps(document[start:end], ensure_ascii=False)[1:-1] in first_request
    assert "turbidity" in document[slice(*prephase["selected"][0]["span"])].lower()
    assert "retrievalMs" in trace.timings

    events = [
        event_from_json(line)
        for line in (out / "sessions" / str(result["sessionId"]) / "events.jsonl")
        .read_text()
        .splitlines()
    ]
    kinds = [event.type for event in events]  # type: ignore[attr-defined]
    assert "index_progress" in kinds and "retrieval" in kinds
    assert kinds.index("retrieval") < kinds.index("candidate_produced")
