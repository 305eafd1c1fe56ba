"""QA judge: is every answer bullet supported by the windows around the evidence quotes?"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from ralph_tui.agents.structured import AgentSpec
from ralph_tui.roles.budgets import OUTPUT_TOKENS

SYSTEM = """You are a strict fact checker. You get a question, an answer of bullet lines,
the evidence quotes, and for each quote a window of the source document around it. Decide
whether every bullet is supported by the evidence windows and answers the question. Reply
ok "yes" only if all are; otherwise ok "no" with one issue per problem, naming the bullet and
saying what is unsupported or missing, specific enough to fix in a next attempt."""


class JudgeOutput(BaseModel):
    ok: Literal["yes", "no"]
    issues: list[str] = Field(default_factory=list, description="One entry per problem.")


JUDGE = AgentSpec(
    name="judge",
    system=SYSTEM,
    output_model=JudgeOutput,
    max_steps=4,
    max_tokens=OUTPUT_TOKENS["judge"],
)
