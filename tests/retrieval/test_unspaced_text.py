"""Japanese and Chinese, written without spaces between words, through ``ralph-tui search``
and a keyless QA run: a term and a quoted phrase are found by the lexical leg, a question
the document answers passes, and one it does not answer says so."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ralph_tui.cli import run_cli
from ralph_tui.retrieval.fusion import exact_phrases, holds_phrase

DATA = Path(__file__).parent / "data"
JAPANESE = DATA / "ja_filters.txt"
CHINESE = DATA / "zh_filters.txt"


@pytest.fixture(autouse=True)
def offline_embedder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RALPH_EMBEDDER", "offline")


def search(doc: Path, query: str, out: Path, capsys: pytest.CaptureFixture[str]) -> dict:  # type: ignore[type-arg]
    args = ["search", str(doc), query, "--json", "--out", str(out), "--chunk-size", "80"]
    code = run_cli([*args, "--chunk-overlap", "0", "--top-k", "8"])
    result: dict = json.loads(capsys.readouterr().out)  # type: ignore[type-arg]
    assert code == 0
    return result


@pytest.mark.parametrize(
    ("doc", "query", "phrase"),
    [
        (JAPANESE, "逆洗", "逆洗"),
        (JAPANESE, "浄水場の「表面洗浄」は？", "表面洗浄"),
        (CHINESE, "反冲洗", "反冲洗"),
        (CHINESE, '"表面冲洗"多长时间？', "表面冲洗"),
    ],
)
def test_search_finds_a_term_and_a_quoted_phrase(
    doc: Path, query: str, phrase: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    result = search(doc, query, tmp_path, capsys)
    diagnostics = result["diagnostics"]
    assert diagnostics["exactPhrases"] == [phrase]
    assert diagnostics["candidates"]["lexical"]["doc"] > 0
    holding = [p for p in result["passages"] if phrase in p["text"]]
    assert holding and all(p["exactPhrase"] for p in holding)
    assert not any(p["exactPhrase"] for p in result["passages"] if p not in holding)
    first = result["passages"][0]
    assert phrase in first["text"] and first["ranks"]["lexical"] is not None


def test_a_quoted_unspaced_phrase_is_held_verbatim() -> None:
    assert exact_phrases("「逆洗」") == ["逆洗"] and exact_phrases('"反冲洗"') == ["反冲洗"]
    assert holds_phrase("逆洗の前に、運転員は", ["逆洗"])
    assert not holds_phrase("逆に洗う", ["逆洗"])


def ask(doc: Path, question: str, out: Path, capsys: pytest.CaptureFixture[str]) -> dict:  # type: ignore[type-arg]
    args = ["run", "--provider", "offline", "--json", "--mode", "qa", "--maxIters", "2"]
    code = run_cli([*args, "--query", question, "--doc", str(doc), "--out", str(out)])
    result: dict = json.loads(capsys.readouterr().out)  # type: ignore[type-arg]
    assert code == (0 if result["status"] == "passed" else 1)
    return result


@pytest.mark.parametrize(
    ("doc", "question", "term"),
    [
        (JAPANESE, "逆洗はいつ行いますか？", "逆洗"),
        (CHINESE, "快滤池什么时候需要反冲洗？", "冲洗"),
    ],
)
def test_a_question_the_document_answers_passes_with_its_sentences(
    doc: Path, question: str, term: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    result = ask(doc, question, tmp_path, capsys)
    assert result["status"] == "passed"
    document = doc.read_text(encoding="utf-8")
    evidence = result["output"]["evidence"]
    assert len(evidence) >= 3
    for quote in evidence:
        assert quote in document and term in quote and quote.endswith("。")


@pytest.mark.parametrize(
    ("doc", "question", "lacking"),
    [(JAPANESE, "山羊は何頭いますか？", "山羊"), (CHINESE, "山羊有多少只？", "山羊")],
)
def test_a_question_the_document_does_not_answer_fails_honestly(
    doc: Path, question: str, lacking: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    result = ask(doc, question, tmp_path, capsys)
    assert result["status"] == "failed"
    assert result["output"]["evidence"] == []
    answer = result["output"]["answer"]
    assert "does not address this question" in answer
    assert lacking in answer.split("lacks: ")[1].split(", ")  # named as a term, not a run
