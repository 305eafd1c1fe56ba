"""ralph-tui: grounded, evidence-backed document analysis with LLMs.

The public Python API (``ask``, ``run_task``, ``arun`` and their async forms, with their
result types; ``search`` of documents; ``sessions`` and ``session`` read back; ``estimate`` of
a run before it starts; ``verify`` of an evidence bundle) is loaded on first use, so
``import ralph_tui`` stays light. ``PUBLIC`` is the list of it; the imports type checkers
read below name the same (a test holds them, and the reference, to it).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ralph_tui.version import __version__

PUBLIC = {
    "ask": "ralph_tui.api",
    "aask": "ralph_tui.api",
    "run_task": "ralph_tui.api",
    "arun_task": "ralph_tui.api",
    "arun": "ralph_tui.api",
    "RunResult": "ralph_tui.api",
    "Evidence": "ralph_tui.api",
    "Usage": "ralph_tui.api",
    "search": "ralph_tui.api",
    "asearch": "ralph_tui.api",
    "SearchResult": "ralph_tui.api",
    "Passage": "ralph_tui.api",
    "sessions": "ralph_tui.api",
    "session": "ralph_tui.api",
    "SessionSummary": "ralph_tui.api",
    "SessionDetail": "ralph_tui.api",
    "estimate": "ralph_tui.api",
    "aestimate": "ralph_tui.api",
    "RunEstimate": "ralph_tui.estimates",
    "verify": "ralph_tui.api",
    "averify": "ralph_tui.api",
    "VerifyReport": "ralph_tui.reports.verify",
    "QuoteResult": "ralph_tui.reports.verify",
    "Settings": "ralph_tui.config",
    "RalphError": "ralph_tui.errors",
    "UsageError": "ralph_tui.errors",
    "ProviderError": "ralph_tui.errors",
}
"""Each public name and the module that defines it."""

__all__ = ["__version__", *PUBLIC]

if TYPE_CHECKING:
    from ralph_tui.api import Evidence as Evidence
    from ralph_tui.api import Passage as Passage
    from ralph_tui.api import RunResult as RunResult
    from ralph_tui.api import SearchResult as SearchResult
    from ralph_tui.api import SessionDetail as SessionDetail
    from ralph_tui.api import SessionSummary as SessionSummary
    from ralph_tui.api import Usage as Usage
    from ralph_tui.api import aask as aask
    from ralph_tui.api import aestimate as aestimate
    from ralph_tui.api import arun as arun
    from ralph_tui.api import arun_task as arun_task
    from ralph_tui.api import asearch as asearch
    from ralph_tui.api import ask as ask
    from ralph_tui.api import averify as averify
    from ralph_tui.api import estimate as estimate
    from ralph_tui.api import run_task as run_task
    from ralph_tui.api import search as search
    from ralph_tui.api import session as session
    from ralph_tui.api import sessions as sessions
    from ralph_tui.api import verify as verify
    from ralph_tui.config import Settings as Settings
    from ralph_tui.errors import ProviderError as ProviderError
    from ralph_tui.errors import RalphError as RalphError
    from ralph_tui.errors import UsageError as UsageError
    from ralph_tui.estimates import RunEstimate as RunEstimate
    from ralph_tui.reports.verify import QuoteResult as QuoteResult
    from ralph_tui.reports.verify import VerifyReport as VerifyReport


def __getattr__(name: str) -> Any:
    if name not in PUBLIC:
        raise AttributeError(f"module 'ralph_tui' has no attribute {name!r}")
    return getattr(importlib.import_module(PUBLIC[name]), name)
