"""TaskJudge: does the output substantively complete the task? Issues carry a category."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from ralph_tui.agents.structured import AgentSpec
from ralph_tui.roles.budgets import OUTPUT_TOKENS

IssueCategory = Literal["missing_scope", "unsupported_claim", "low_specificity", "conflict"]

SYSTEM = """You judge whether an output substantively completes a task, given the brief
extracted from the document and the memory of earlier iterations. Reply ok "yes" only if it
does. `passages` holds the document's own words the brief cites, each after its marker
(`[P1] ...`): a statement ending with markers must say what those passages say. Otherwise
list issues, each with a category:
- missing_scope: a part of the task is not addressed;
- unsupported_claim: a claim the brief does not support;
- low_specificity: vague where the brief has specifics;
- conflict: the output contradicts itself or the brief."""


class TaskIssue(BaseModel):
    category: IssueCategory
    message: str


class TaskJudgeOutput(BaseModel):
    ok: Literal["yes", "no"]
    issues: list[TaskIssue] = Field(default_factory=list)


TASK_JUDGE = AgentSpec(
    name="task_judge",
    system=SYSTEM,
    output_model=TaskJudgeOutput,
    max_steps=4,
    max_tokens=OUTPUT_TOKENS["task_judge"],
)
