"""The Python API beside runs: a search of documents without any LLM, and the sessions of an
out dir, end to end with the offline provider."""

from __future__ import annotations

from pathlib import Path

import pytest

from ralph_tui.api import ask, search, session, sessions
from ralph_tui.errors import UsageError

SAMPLE = Path(__file__).parents[1] / "ralph_tui" / "data" / "sample_document.md"


@pytest.fixture(autouse=True)
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


def test_search_ranks_passages_with_their_place_in_the_document() -> None:
    result = search("how often are the filters backwashed", SAMPLE, top_k=3)
    text = SAMPLE.read_text(encoding="utf-8")
    assert len(result.passages) == 3
    assert any("backwash" in passage.text.lower() for passage in result.passages)
    for passage in result.passages:
        assert passage.document == SAMPLE.name and passage.label == SAMPLE.name
        assert passage.start is not None and text[passage.start : passage.end] == passage.text
        assert "lexical" in passage.ranks or "dense" in passage.ranks
    assert not list(Path().iterdir()), "the temporary out dir is removed"


def test_search_refuses_an_empty_query_and_a_missing_document(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="query is empty"):
        search("  ", SAMPLE)
    with pytest.raises(UsageError, match=r"missing\.md"):
        search("filters", tmp_path / "missing.md")


def test_sessions_lists_runs_newest_first_and_shows_one_with_its_evidence(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert sessions(out) == [] and not out.exists(), "nothing written for an empty out dir"
    first = ask("How often are the filters backwashed?", SAMPLE, provider="offline", max_iters=1,
                out_dir=out)  # fmt: skip
    second = ask("What triggers an early backwash?", SAMPLE, provider="offline", max_iters=1,
                 out_dir=out)  # fmt: skip
    listed = sessions(out)
    assert [s.session_id for s in listed] == [second.session_id, first.session_id]
    assert listed[0].status == second.status and listed[0].query.startswith("What triggers")
    assert [s.session_id for s in sessions(out, text="triggers")] == [second.session_id]
    detail = session(first.session_id, out)
    assert detail.status == first.status and len(detail.iteration_traces) == first.iterations
    assert detail.evidence == first.evidence and detail.output == first.output
    assert detail.claims == first.claims and detail.claims[0].verdict is not None
    with pytest.raises(UsageError, match="not a session id"):
        session("../etc", out)
    with pytest.raises(UsageError, match="no session"):
        session("2020-01-01/qa-00000000", out)
