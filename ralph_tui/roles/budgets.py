"""The RLM budgets every code-exploring role takes from the settings."""

from __future__ import annotations

import dataclasses
from typing import TypeVar

from pydantic import BaseModel

from ralph_tui.agents.agent_run import RLMSpec
from ralph_tui.agents.structured import AgentSpec
from ralph_tui.config import Settings

T = TypeVar("T", bound=BaseModel)

OUTPUT_TOKENS = {
    "worker": 2048,
    "doc_reader": 2048,
    "judge": 1024,
    "task_judge": 1024,
    "decomposer": 1024,
    "compactor": 1024,
    "reasoner": 4096,
    "aggregator": 4096,
}
"""``max_tokens`` of each role's calls: what its output needs (a verdict, a plan, a cell of
code, a written result) and no more. A bound, not a target: a slow local model constrained
by a grammar would otherwise generate for minutes before an oversized answer is cut."""


def prompted(spec: AgentSpec[T], settings: Settings) -> AgentSpec[T]:
    """A structured role with its system prompt replaced by the settings' (a variant's
    ``role_prompts``), when they give one for it."""
    prompt = settings.role_prompts.get(spec.name)
    return dataclasses.replace(spec, system=prompt) if prompt else spec


def rlm_spec(name: str, definition: str, output_model: type[T], settings: Settings) -> RLMSpec[T]:
    return RLMSpec(
        name=name,
        definition=settings.role_prompts.get(name, definition),
        temperature=settings.temperature,
        output_model=output_model,
        max_steps=settings.worker_max_steps,
        max_llm_calls=settings.worker_max_llm_calls,
        max_output_chars=settings.max_runtime_chars,
        max_tokens=OUTPUT_TOKENS[name],
        cell_timeout_s=settings.cell_timeout_s,
        start_timeout_s=settings.sandbox_start_timeout_s,
        sub_query_concurrency=settings.sub_query_concurrency,
    )
