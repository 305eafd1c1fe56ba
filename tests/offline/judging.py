"""The QA judge's input built as the loop builds it, and its verdicts read as the loop reads
them, for tests that call the offline judge directly."""

from __future__ import annotations

from typing import Any

from ralph_tui.evidence import Claim
from ralph_tui.llm.offline import roles
from ralph_tui.loops.qa import judge_lines, line_judgements
from ralph_tui.roles.judge import JudgeOutput
from ralph_tui.validate.claims import Judgement, judge_claims, link_claims


def judge_input(query: str, output: dict[str, Any], windows: list[str] | None = None) -> dict:
    """The judge's fields for a worker ``output`` (its quotes as their own windows unless
    ``windows`` are given)."""
    evidence = list(output["evidence"])
    claims = link_claims(output["answer"], output.get("lineQuotes"))
    return {"query": query, "lines": judge_lines(claims, evidence, windows or evidence)}


def judgement_of(verdict: dict[str, Any], query_fields: dict[str, Any]) -> Judgement:
    """The loop's reading of a judge's reply to ``query_fields``."""
    reply = JudgeOutput.model_validate(verdict)
    claims = [Claim(line=line["line"], text=line["text"]) for line in query_fields["lines"]]
    return judge_claims(claims, line_judgements(reply), reply.issues)


def offline_judgement(
    query: str, output: dict[str, Any], windows: list[str] | None = None
) -> Judgement:
    """The offline judge's verdict on ``output``, as the loop derives it."""
    fields = judge_input(query, output, windows)
    return judgement_of(roles.qa_judge(fields), fields)
