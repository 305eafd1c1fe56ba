"""ralph-tui: grounded, evidence-backed document analysis with LLMs."""

__version__ = "0.1.0"
