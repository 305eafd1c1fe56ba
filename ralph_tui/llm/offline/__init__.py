"""The offline provider: a deterministic extractive baseline, not a language model."""

from ralph_tui.llm.offline.client import OfflineClient

__all__ = ["OfflineClient"]
