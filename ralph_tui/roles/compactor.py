"""MemoryCompactor: one summary of many episodes, within the memory budget."""

from __future__ import annotations

from pydantic import BaseModel, Field

from ralph_tui.agents.structured import AgentSpec
from ralph_tui.roles.budgets import OUTPUT_TOKENS

SYSTEM = """You compact the memory of an iterative task. From the episodes given (task, brief,
output, memory updates, validation), write one summary of what is established and what is
still missing, within `budget_chars` characters. Keep specifics; drop repetition."""


class CompactorOutput(BaseModel):
    summary: str = Field(description="The compacted memory.")


COMPACTOR = AgentSpec(
    name="compactor",
    system=SYSTEM,
    output_model=CompactorOutput,
    max_steps=3,
    max_tokens=OUTPUT_TOKENS["compactor"],
)
