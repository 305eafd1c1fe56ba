"""QA worker: explores the document in the sandbox and answers with verbatim evidence."""

from __future__ import annotations

from pydantic import BaseModel, Field

from ralph_tui.agents.agent_run import RLMSpec
from ralph_tui.config import Settings
from ralph_tui.roles.budgets import rlm_spec

DEFINITION = """You are a strict technical writer answering a question about a document.
Answer with 3 to 7 bullet lines, each starting with "- ", every claim backed by the evidence.
Give 3 to 8 evidence quotes, each at most 160 characters, each copied character for character
from the document (a verbatim substring: same spaces, punctuation and quote marks), no
duplicates. Link every answer line to the quotes that back it in lineQuotes: one list per
answer line, in the order of the lines, holding the numbers of its quotes (the first quote is
1), e.g. [[1], [2, 3], [4]] for three lines; every line needs at least one quote. If
constraints from an earlier attempt are given, satisfy every one of them."""


class QAOutput(BaseModel):
    answer: str = Field(description='3-7 bullet lines, each starting with "- ".')
    evidence: list[str] = Field(description="3-8 verbatim quotes from the document, <= 160 chars.")
    lineQuotes: list[list[int]] = Field(
        description="For each answer line, in order, the numbers of the evidence quotes that "
        "back it (the first quote is 1), e.g. [[1], [2, 3], [4]]: one list per line, none empty."
    )


def worker_spec(settings: Settings) -> RLMSpec[QAOutput]:
    return rlm_spec("worker", DEFINITION, QAOutput, settings)
