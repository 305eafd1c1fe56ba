"""The sample the demo runs on: a bundled document and a question about it, the one place
both are named (the app's demo, ``demo --headless``, the sample and needle suites)."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

SAMPLE_QUESTION = "How often are the filters backwashed, and what triggers an early backwash?"


def sample_document() -> Path:
    """The bundled sample document (a water-treatment works' operations handbook): inside
    the installed package, so it is there however ralph-tui was installed."""
    return Path(str(resources.files("ralph_tui") / "data" / "sample_document.md"))


def headless_demo_arguments(extra: list[str]) -> list[str]:
    """The ``run`` command ``demo --headless`` stands for: the sample question over the
    sample document on the offline provider, with whatever other run flags were given."""
    return [
        "run",
        "--mode",
        "qa",
        "--provider",
        "offline",
        "--query",
        SAMPLE_QUESTION,
        "--doc",
        str(sample_document()),
        *extra,
    ]
