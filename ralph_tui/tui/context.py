"""What every screen needs from the app: settings, the runner, and where things live.

The settings are read when first needed: ``ralph-tui`` with no arguments paints its first
frame before reading them (and before importing what reads them), and reads them a frame
after Textual's Ready (``RalphApp._first_frame_shown``).
"""

from __future__ import annotations

from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.app import App

from ralph_tui.tui.core.run_handle import Runner, real_runner

if TYPE_CHECKING:
    from ralph_tui.config import Settings
    from ralph_tui.validate.evidence import EvidenceMinimum


class AppContext:
    """Shared, app-wide state; screens reach it with ``app_context(self.app)``."""

    def __init__(
        self, config_dir: Path, *, settings: Settings | None = None, runner: Runner = real_runner
    ) -> None:
        self.config_dir = config_dir
        self.runner = runner
        self._settings = settings
        """Given by the caller (the command line's flags), or ``None``: read from the
        environment and ``.env`` when first needed."""

    @property
    def settings(self) -> Settings:
        """The app's settings; ``SettingsError`` if they are read now and one is bad."""
        if self._settings is None:
            from ralph_tui.config import load_settings

            self._settings = load_settings()
        return self._settings

    @cached_property
    def missing_keys(self) -> list[str]:
        """The API keys the settings' provider needs and does not have."""
        from ralph_tui.llm.keys import missing_keys

        return missing_keys(self.settings)

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
