"""What the run form says, checked: plain values with no widget in them, so that what turns
them into a run request or an estimate (``tui.core.requests``) needs neither the form nor
Textual."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class RunFormValues:
    """What the form says, checked: ready to become a run request."""

    mode: str
    query: str
    doc_path: Path
    max_iters: int
    decompose: bool
    provider: str
    generate_model: str
    validate_model: str
    external_docs: tuple[str, ...] = ()
    external_provider: str = "local"
    inner: str = "rlm"
    more_docs: tuple[Path, ...] = ()
    """The documents after the first (``doc_path``), read along with it."""
