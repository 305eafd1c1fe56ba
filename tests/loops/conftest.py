"""The agent fixtures (fake provider API, real SDK client, event recorder) serve loop tests too."""

from __future__ import annotations

import pytest

from tests.agents.conftest import api, claude, events

__all__ = ["api", "claude", "events"]


@pytest.fixture(autouse=True)
def offline_embedder(monkeypatch: pytest.MonkeyPatch) -> None:
    """Loop tests script or count the chat requests of a run: with an OpenAI key set, the
    retrieval leg would add embeddings requests. It embeds offline here (a test that wants
    the API sets ``RALPH_EMBEDDER`` itself); the embeddings path is tested in tests/retrieval."""
    monkeypatch.setenv("RALPH_EMBEDDER", "offline")
