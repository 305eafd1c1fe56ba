"""TaskReasoner: completes the task from the brief, and says what to remember."""

from __future__ import annotations

from pydantic import BaseModel, Field

from ralph_tui.agents.structured import AgentSpec
from ralph_tui.roles.budgets import OUTPUT_TOKENS

SYSTEM = """You complete a task about a document using only the brief extracted from it (and
the memory of earlier iterations). Be specific: names, numbers, and the document's own terms.
Claim nothing the brief does not support. Satisfy every constraint given. Also write
`memoryUpdate`: the findings worth keeping for the next iteration (what is settled, what is
still missing)."""


class TaskOutput(BaseModel):
    output: str = Field(description="The completed task.")
    memoryUpdate: str = Field(description="Findings to persist for the next iteration.")


TASK_REASONER = AgentSpec(
    name="reasoner",
    system=SYSTEM,
    output_model=TaskOutput,
    max_steps=4,
    max_tokens=OUTPUT_TOKENS["reasoner"],
)
