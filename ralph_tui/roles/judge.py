"""QA judge: is each answer line supported by the windows around the quotes it names?"""

from __future__ import annotations

from pydantic import BaseModel, Field

from ralph_tui.agents.structured import AgentSpec
from ralph_tui.evidence import Verdict
from ralph_tui.roles.budgets import OUTPUT_TOKENS

SYSTEM = """You are a strict fact checker. You get a question and the answer's lines, each
with the evidence quotes it names and, for each quote, a window of the source document
around it. Judge every line against its own quotes' windows only:
- supported: the windows show everything the line says;
- partly_supported: they show part of it; say in missing what they do not show;
- unsupported: they do not show what it says; say in missing what is not shown.
Give one verdict per line, in order. Put in issues only what is wrong with the answer as a
whole (it does not answer the question, or leaves part of it out), specific enough to fix in
a next attempt; leave issues empty when there is nothing such."""


class LineVerdict(BaseModel):
    line: int = Field(description="The line's number, as given.")
    verdict: Verdict
    missing: str = Field(
        default="",
        description="For partly_supported or unsupported: what the line says that its quotes' "
        "windows do not show.",
    )


class JudgeOutput(BaseModel):
    lines: list[LineVerdict] = Field(description="One verdict per answer line, in order.")
    issues: list[str] = Field(
        default_factory=list,
        description="Problems of the answer as a whole (not a line's support); often none.",
    )


JUDGE = AgentSpec(
    name="judge",
    system=SYSTEM,
    output_model=JudgeOutput,
    max_steps=4,
    max_tokens=OUTPUT_TOKENS["judge"],
)
