"""The RLM budgets every code-exploring role takes from the settings."""

from __future__ import annotations

from typing import TypeVar

from pydantic import BaseModel

from ralph_tui.agents.rlm import RLMSpec
from ralph_tui.config import Settings

T = TypeVar("T", bound=BaseModel)


def rlm_spec(name: str, definition: str, output_model: type[T], settings: Settings) -> RLMSpec[T]:
    return RLMSpec(
        name=name,
        definition=definition,
        output_model=output_model,
        max_steps=settings.worker_max_steps,
        max_llm_calls=settings.worker_max_llm_calls,
        max_output_chars=settings.max_runtime_chars,
        cell_timeout_s=settings.cell_timeout_s,
        start_timeout_s=settings.sandbox_start_timeout_s,
        sub_query_concurrency=settings.sub_query_concurrency,
    )
