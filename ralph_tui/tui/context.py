"""What every screen needs from the app: settings, the runner, and where things live."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.app import App

from ralph_tui.config import Settings
from ralph_tui.tui.core.run_handle import Runner, real_runner

if TYPE_CHECKING:
    from ralph_tui.validate.evidence import EvidenceMinimum


@dataclass
class AppContext:
    """Shared, app-wide state; screens reach it with ``app_context(self.app)``."""

    settings: Settings
    config_dir: Path
    runner: Runner = real_runner
    missing_keys: list[str] = field(default_factory=list)

    @property
    def out_dir(self) -> Path:
        return Path(self.settings.out_dir)


def app_context(app: App[Any]) -> AppContext:
    """The context of a ralph-tui app (``app.context``)."""
    context = getattr(app, "context", None)
    if not isinstance(context, AppContext):
        raise TypeError("this screen runs only inside the ralph-tui app")
    return context


def evidence_minimum(app: App[Any]) -> EvidenceMinimum:
    """The app's evidence minimum (the settings' defaults outside the ralph-tui app)."""
    from ralph_tui.validate.evidence import EvidenceMinimum

    context = getattr(app, "context", None)
    if isinstance(context, AppContext):
        return EvidenceMinimum.of(context.settings)
    return EvidenceMinimum()
