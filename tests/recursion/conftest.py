"""Recursion tests use the agent fixtures, and embed offline in runs (as the loop tests do)."""

from __future__ import annotations

from tests.agents.conftest import events
from tests.loops.conftest import offline_embedder

__all__ = ["events", "offline_embedder"]
