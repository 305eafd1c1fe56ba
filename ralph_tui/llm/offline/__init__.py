"""The offline provider: a deterministic extractive baseline, not a language model."""

from ralph_tui.llm.offline.client import OfflineClient, know_rarity

__all__ = ["OfflineClient", "know_rarity"]
