"""The agent fixtures (fake provider API, real SDK client, event recorder) serve loop tests too."""

from tests.agents.conftest import api, claude, events

__all__ = ["api", "claude", "events"]
