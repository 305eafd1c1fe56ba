"""The summary DAG: leaf summaries cover contiguous spans of raw messages; condensed
summaries cover runs of summaries. Each has an id the model can ``expand``."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

from ralph_tui.llm.tokens import MESSAGE_OVERHEAD_TOKENS, estimate_tokens


class Summary(BaseModel):
    id: str
    kind: Literal["leaf", "condensed"]
    depth: int
    """1 for a leaf; one more than its deepest child for a condensed summary."""
    covers: list[str]
    """``M<n>`` message ids (a leaf) or summary ids (condensed), in order."""
    first: int
    last: int
    """The message ids the summary spans, inclusive."""
    text: str
    level: int
    """The compaction level that wrote it: 1 detailed, 2 bullets, 3 truncation."""
    source_tokens: int
    """Tokens of what it replaced in the active context."""

    @property
    def header(self) -> str:
        return summary_header(self.id, self.first, self.last)

    def rendered(self) -> str:
        return f"{self.header}\n{self.text}"

    @property
    def tokens(self) -> int:
        return estimate_tokens(self.rendered()) + MESSAGE_OVERHEAD_TOKENS


def summary_header(summary_id: str, first: int, last: int) -> str:
    """The line a summary is introduced by in the prompt, naming how to expand it."""
    return f"[{summary_id}: messages {first}-{last}, expand('{summary_id}')]"


def message_id(number: int) -> str:
    return f"M{number}"
