"""TaskReasoner: completes the task from the brief, and says what to remember."""

from __future__ import annotations

from pydantic import BaseModel, Field

from ralph_tui.agents.structured import AgentSpec
from ralph_tui.roles.budgets import OUTPUT_TOKENS

SYSTEM = """You complete a task about a document using only the brief extracted from it (and
the memory of earlier iterations). Be specific: names, numbers, and the document's own terms.
Claim nothing the brief does not support. `passages` holds the document's own words the
brief cites, each after its marker (`[P1] ...`): where a statement of your output comes from
passages, end it with their markers (`... 48 hours [P2].`), one statement a line, so a reader
can find it in the document; cite only the markers given. Satisfy every constraint given.
Also write `memoryUpdate`: the findings worth keeping for the next iteration (what is
settled, what is still missing)."""


class TaskOutput(BaseModel):
    output: str = Field(
        description="The completed task, each statement from the passages ending with their"
        " markers ([P1], [P2]...)."
    )
    memoryUpdate: str = Field(description="Findings to persist for the next iteration.")


TASK_REASONER = AgentSpec(
    name="reasoner",
    system=SYSTEM,
    output_model=TaskOutput,
    max_steps=4,
    max_tokens=OUTPUT_TOKENS["reasoner"],
)
