"""The offline baseline answers what the handbook addresses and fails what it does not,
in QA and in task mode alike (end to end, real sandbox)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ralph_tui.cli import run_cli

SAMPLE = Path(__file__).parents[2] / "ralph_tui" / "data" / "sample_document.md"

ANSWERABLE = [
    "How often are the filters backwashed, and what triggers an early backwash?",
    "What happens when river turbidity exceeds 80 NTU?",
    "Who shares the on-call duty manager rota?",
]
UNANSWERABLE = [
    "What does xyzzyplugh frobnicate?",
    "How many goats graze beside the flotation units?",
]
TASKS = [
    ("Describe how the works responds when river turbidity exceeds 80 NTU.", "passed"),
    ("Summarize the maintenance schedule and the staff responsible for each item.", "passed"),
    ("Summarize the xyzzyplugh frobnication procedure and its glorp limits.", "failed"),
]


def run(tmp_path: Path, capsys: pytest.CaptureFixture[str], mode: str, query: str) -> dict:  # type: ignore[type-arg]
    args = ["run", "--provider", "offline", "--json", "--mode", mode, "--maxIters", "2"]
    code = run_cli([*args, "--query", query, "--doc", str(SAMPLE), "--out", str(tmp_path)])
    result: dict = json.loads(capsys.readouterr().out)  # type: ignore[type-arg]
    assert code == (0 if result["status"] == "passed" else 1)
    return result


@pytest.mark.parametrize("query", ANSWERABLE)
def test_answerable_questions_pass_with_whole_sentence_quotes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], query: str
) -> None:
    result = run(tmp_path, capsys, "qa", query)
    assert result["status"] == "passed"
    output = result["output"]
    document = SAMPLE.read_text(encoding="utf-8")
    bullets = [line.removeprefix("- ") for line in output["answer"].splitlines()]
    for numbers, bullet in zip(output["lineQuotes"], bullets, strict=True):
        quotes = [output["evidence"][n - 1] for n in numbers]
        assert all(quote in document for quote in quotes)
        assert quotes[-1][-1] in ".!?,;:"
        # The quotes' own words in order (a long sentence piece by piece, each piece
        # continuing the one before), no full stop added; one opening in lower case is marked.
        said = " ".join(" ".join(quote.split()) for quote in quotes).rstrip(",;: ")
        assert bullet == ("… " if said[0].islower() else "") + said
        assert " ".join(" ".join(quotes).split()) in " ".join(document.split())
        assert not bullet[0].islower(), "no answer line passes off a fragment as a sentence"


@pytest.mark.parametrize("query", UNANSWERABLE)
def test_questions_the_handbook_does_not_address_fail(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], query: str
) -> None:
    result = run(tmp_path, capsys, "qa", query)
    assert result["status"] == "failed"
    assert result["claims"]
    for claim in result["claims"]:
        # A "not found" line names no quote and is never judged; a line built from a quote
        # names that quote.
        not_found = claim["text"].startswith("The document does not address this question")
        assert (claim["quotes"] == []) == not_found
        assert claim["verdict"] is None or not not_found


@pytest.mark.parametrize(("task", "status"), TASKS)
def test_tasks_pass_or_fail_as_the_handbook_allows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], task: str, status: str
) -> None:
    assert run(tmp_path, capsys, "task", task)["status"] == status
