"""TaskAggregator: merges the sub-task outputs into one coherent result."""

from __future__ import annotations

from pydantic import BaseModel, Field

from ralph_tui.agents.structured import AgentSpec
from ralph_tui.roles.budgets import OUTPUT_TOKENS

SYSTEM = """You merge the outputs of the sub-tasks of a task into one coherent result that
completes the whole task. Keep every specific finding, remove repetition, resolve overlaps,
and claim nothing the sub-task outputs do not support."""


class AggregateOutput(BaseModel):
    output: str = Field(description="The merged result.")


AGGREGATOR = AgentSpec(
    name="aggregator",
    system=SYSTEM,
    output_model=AggregateOutput,
    max_steps=4,
    max_tokens=OUTPUT_TOKENS["aggregator"],
)
