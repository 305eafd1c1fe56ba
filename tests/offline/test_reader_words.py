"""A question in a reader's words the documents never use ("headcount") is answered, for the
keyless baseline, only by lines that say it in the report's words ("employees",
"workforce"): a line holding the question's other words ("total", "2023") is not an answer,
and the judge says what it lacks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ralph_tui.cli import run_cli
from ralph_tui.llm.offline.text import Asked, DocumentsRarity
from tests.offline.test_keyless_answers import judged, rarity_of

QUESTION = "What was Acme's total headcount at the end of 2023?"
ANSWER = "As of December 31, 2023, Acme's total workforce was approximately 14,200 people."
FILLERS = [
    "Total operating lease expense was $38 million at the end of 2023 and $36 million in 2022.",
    "Total interest payments were $25 million for the year that ended in 2023.",
    "The total backlog at the end of 2023 was $4.1 billion, most of it for spare parts.",
    "Total deferred tax assets at the end of 2023 were $1.2 billion after the allowance.",
]
OTHER = [
    f"Acme's {topic} team met its goals in {year}; its plans for the year ahead follow."
    for topic in ("design", "sales", "service", "legal", "audit")
    for year in (2019, 2020, 2021)
]


def report(tmp_path: Path) -> tuple[Path, str]:
    text = "\n\n".join([*OTHER, *FILLERS, ANSWER, "Acme employs people in nine countries."])
    path = tmp_path / "ACME_2023_annual.md"
    path.write_text(text + "\n", encoding="utf-8")
    return path, text


async def test_a_readers_word_is_asked_in_the_reports_words(tmp_path: Path) -> None:
    _, text = report(tmp_path)
    asked = Asked.question(QUESTION).weighed(await rarity_of(text))
    assert [reader.phrase for reader in asked.stated] == ["headcount"]
    assert asked.addressed_by(ANSWER)
    assert not any(asked.addressed_by(filler) for filler in FILLERS)
    # The report's word holds the reader's: nothing of the question is left unanswered.
    assert "headcount" in asked.held_by(ANSWER)


async def test_the_judge_passes_the_line_in_the_reports_words_only(tmp_path: Path) -> None:
    path, text = report(tmp_path)
    # As a run weighs them: Acme, in the report's name, is its subject, not a telling term.
    rarity = DocumentsRarity.of(await rarity_of(text), [path.name])
    verdicts = judged(QUESTION, text, [*FILLERS[:2], ANSWER], rarity)
    assert verdicts == ["unsupported", "unsupported", "supported"]


async def test_a_word_the_documents_use_is_asked_as_it_is(tmp_path: Path) -> None:
    text = "\n\n".join([*OTHER, *FILLERS, "Acme's total headcount was 14,200 at the end of 2023."])
    asked = Asked.question(QUESTION).weighed(await rarity_of(text))
    assert asked.stated == ()


def test_the_keyless_answer_is_the_line_in_the_reports_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, _ = report(tmp_path)
    code = run_cli(["run", "--provider", "offline", "--json", "--mode", "qa",
                    "--query", QUESTION, "--doc", str(path),
                    "--out", str(tmp_path / "out"), "--maxIters", "1"])  # fmt: skip
    result = json.loads(capsys.readouterr().out)
    answer = str(result["output"]["answer"])
    assert ANSWER in answer
    assert not any(filler.split(" was")[0] in answer for filler in FILLERS), answer
    assert code == (0 if result["status"] == "passed" else 1)


async def test_a_readers_word_for_a_change_is_searched_for_but_need_not_be_said(
    tmp_path: Path,
) -> None:
    text = "\n\n".join([*OTHER, "Net cash provided by operating activities decreased in 2023."])
    asked = Asked.question("Why did Acme's cash from operations drop in 2023?")
    weighed = asked.weighed(await rarity_of(text))
    assert [reader.phrase for reader in asked.readers] == ["cash from operations"]
    assert weighed.addressed_by("Acme's operating activities used more cash for inventory.")


def test_how_many_is_how_a_question_is_phrased() -> None:
    asked = Asked.question("Roughly how many employees did Acme have at the end of 2023?")
    assert "mani" not in asked.words and "employe" in asked.words
