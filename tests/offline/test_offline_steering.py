"""Constraints steer the offline baseline in ways a user can predict, and its judge checks
that each bullet addresses the question."""

from __future__ import annotations

import json
from typing import Any

from ralph_tui.llm.offline.constraints import read_constraints
from ralph_tui.roles.judge import JudgeOutput
from ralph_tui.words import stem
from tests.offline.judging import judge_input, judgement_of
from tests.offline.test_offline_client import SAMPLE, conversation, play, run_worker, tool_for

DOCUMENT = SAMPLE.read_text(encoding="utf-8")
ROTA = "Who shares the on-call duty manager rota?"
BACKWASH = "How often are the filters backwashed, and what triggers an early backwash?"


async def answer(query: str, constraints: list[str]) -> dict[str, Any]:
    """The worker's submitted output after it ran its own code over the handbook."""
    return await run_worker(query, DOCUMENT, constraints)


async def test_a_named_term_steers_the_search_to_its_passages() -> None:
    plain = await answer(ROTA, [])
    steered = await answer(ROTA, ["Focus on the telemetry autodialler."])
    assert not any("autodialler" in quote for quote in plain["evidence"][:1])
    assert "autodialler" in steered["evidence"][0]
    assert steered["answer"] != plain["answer"]


async def test_a_leave_out_constraint_removes_those_passages() -> None:
    plain = await answer(BACKWASH, [])
    trimmed = await answer(BACKWASH, ["Leave out turbidity."])
    assert any("turbidity" in quote for quote in plain["evidence"])
    assert trimmed["evidence"] and not any("turbidity" in q for q in trimmed["evidence"])


async def test_the_validators_count_feedback_brings_more_lines() -> None:
    plain = await answer(ROTA, [])
    feedback = 'Give 3 to 7 answer lines, each starting with "- ": 2 bullet lines'
    more = await answer(ROTA, [feedback])
    assert len(more["evidence"]) > len(plain["evidence"])
    # A long sentence is quoted piece by piece: a line may name several quotes.
    assert len(more["answer"].splitlines()) == len(more["lineQuotes"]) <= 7
    assert len(more["evidence"]) <= 8


async def test_the_validators_exact_text_is_quoted_first() -> None:
    exact = "Only one filter may be in backwash at any time"
    feedback = (
        "Copy every evidence quote character for character from the document: quote 1 differs"
        " from the document only in whitespace; copy the document's exact text instead, here as"
        f" a JSON string: {json.dumps(exact)}"
    )
    result = await answer(BACKWASH, [feedback])
    assert result["evidence"][0] == exact and exact in DOCUMENT


def test_only_the_documented_constraint_forms_are_read() -> None:
    steering = read_constraints(
        [
            "Focus on chlorine dosing",
            "Leave out the reservoirs",
            "Cover the part of the task the last output left out: phosphate",
        ]
    )
    assert steering.focus == [stem("chlorine"), stem("dosing")]
    assert steering.leave_out == ["reservoir"]
    assert not steering.wants_more and not steering.exact_quotes


async def test_the_judge_flags_a_bullet_that_does_not_address_the_question() -> None:
    on_topic = "- Each filter is backwashed after 48 hours in service."
    off_topic = "- The works has four dissolved air flotation (DAF) units, each rated at 16 ML/d."
    quotes = [on_topic[2:], off_topic[2:]]
    good_fields = judge_input(
        BACKWASH, {"answer": on_topic, "evidence": quotes[:1], "lineQuotes": [[1]]}
    )
    bad_fields = judge_input(
        BACKWASH,
        {"answer": f"{on_topic}\n{off_topic}", "evidence": quotes, "lineQuotes": [[1], [2]]},
    )
    good = judgement_of(await play(tool_for(JudgeOutput), conversation(good_fields)), good_fields)
    bad = judgement_of(await play(tool_for(JudgeOutput), conversation(bad_fields)), bad_fields)
    assert good.ok
    assert [claim.verdict for claim in bad.claims] == ["supported", "unsupported"]
    assert not bad.ok and "Line 2 is unsupported" in bad.issues[0]
    assert "an answer to the question" in bad.issues[0]
